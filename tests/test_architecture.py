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
        "import sys; from chatterm.cli import recordings, ask; import chatterm.server, chatterm.client;"
        "print('textual' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"
