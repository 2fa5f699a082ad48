"""The headless core is reachable without the TUI, and only the render package touches Textual's and Rich's insides."""

from __future__ import annotations

import ast
import functools
import importlib
import inspect
import re
import subprocess
import sys
from pathlib import Path

from textual.app import App
from textual.screen import Screen

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
            if any(name.split(".")[0] in ("textual", "textual_serve") for name in names):
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


FENCE = PACKAGE / "ui" / "render"
"""The one package that may touch private parts of Textual and Rich (its own tests may too)."""
PRIVATE_OWNERS = ("textual", "rich")
ORACLE = PACKAGE.parent / "tests" / "ui" / "oracle.py"
"""The screen oracle compares what chatterm's compositor sent with what Textual's own draws, so it uses it too."""


def _private_imports(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        modules: list[tuple[str, list[str]]] = []
        if isinstance(node, ast.Import):
            modules = [(alias.name, []) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            modules = [(node.module, [alias.name for alias in node.names])]
        for module, names in modules:
            parts = module.split(".")
            if parts[0] not in PRIVATE_OWNERS:
                continue
            private = [part for part in parts[1:] if part.startswith("_")] + [n for n in names if n.startswith("_")]
            if private:
                found.append(f"{path.relative_to(PACKAGE.parent)}:{getattr(node, 'lineno', 0)} {module} {names}")
    return found


def test_only_the_render_package_imports_private_names_of_textual_or_rich() -> None:
    outside = [
        path
        for root in (PACKAGE, PACKAGE.parent / "tests")
        for path in root.rglob("*.py")
        if FENCE not in path.parents
        and (PACKAGE.parent / "tests" / "ui" / "render") not in path.parents
        and path != ORACLE
    ]
    offenders = [line for path in outside for line in _private_imports(path)]
    assert not offenders, f"private parts of Textual or Rich used outside chatterm/ui/render: {offenders}"


def _private_attributes_of(cls: type) -> set[str]:
    """The private attributes and methods Textual's or Rich's classes in `cls`'s ancestry use."""
    names: set[str] = set()
    for base in cls.__mro__[1:]:
        if base.__module__.split(".")[0] in PRIVATE_OWNERS:
            names |= _private_names_in(base)
    return names


@functools.cache
def _private_names_in(base: type) -> frozenset[str]:
    """The private attributes and methods one class of Textual's or Rich's uses (read once: every widget shares
    Widget's and DOMNode's, whose source is long)."""
    try:
        source = inspect.getsource(base)
    except (OSError, TypeError):
        return frozenset()
    return frozenset(re.findall(r"self\.(_[a-z]\w*)", source)) | frozenset(re.findall(r"def (_[a-z]\w*)", source))


_APP_AND_SCREEN_PRIVATE = _private_attributes_of(type("AnyApp", (App,), {})) | _private_attributes_of(
    type("AnyScreen", (Screen,), {})
)


def test_no_widget_outside_the_render_package_uses_private_state_of_its_textual_base() -> None:
    """A subclass that reads or writes a private attribute of its Textual base depends on Textual's insides (or
    clobbers them by accident, when it picks the same name for its own state)."""
    offenders = []
    for path in (PACKAGE / "ui").rglob("*.py"):
        if FENCE in path.parents:
            continue
        module = importlib.import_module(".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts))
        for cls in vars(module).values():
            if not inspect.isclass(cls) or cls.__module__ != module.__name__:
                continue
            source = inspect.getsource(cls)
            clash = set(re.findall(r"self\.(_[a-z]\w*)", source)) & _private_attributes_of(cls)
            clash |= set(re.findall(r"self\.(?:app|screen)\.(_[a-z]\w*)", source)) & _APP_AND_SCREEN_PRIVATE
            if clash:
                offenders.append(f"{module.__name__}.{cls.__name__}: {sorted(clash)}")
    assert not offenders, f"private state of Textual used outside chatterm/ui/render: {offenders}"
