"""The headless core is reachable without the TUI: nothing outside chatterm/ui/ imports Textual."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "chatterm"


def test_no_core_module_imports_textual() -> None:
    offenders = []
    for path in PACKAGE.rglob("*.py"):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] == "ui" or relative.as_posix() == "cli/app.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module:
                names = [node.module]
            if any(name == "textual" or name.startswith("textual.") for name in names):
                offenders.append(str(relative))
    assert not offenders, f"Textual imported in the headless core: {offenders}"


def test_the_core_commands_never_load_textual() -> None:
    code = (
        "import sys; from chatterm.cli import recordings, ask; import chatterm.cassette.serve, chatterm.net.client;"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_the_first_frame_does_not_wait_for_the_http_stack() -> None:
    """What the app imports before its first frame: not the HTTP stack, YAML or the Markdown parser (bench
    startup: 0.87 s -> 0.44 s); those are imported right after it (`chatterm.ui.app.AFTER_FIRST_FRAME`)."""
    code = (
        "import sys; import chatterm.cli.app, chatterm.ui.app;"
        "print(sorted(m for m in ('httpx', 'httpcore', 'yaml', 'markdown_it', 'tomlkit') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
