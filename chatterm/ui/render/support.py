"""Whether the private parts of Textual and Rich that chatterm's rendering uses are there, and wanted.

The checks run once per process, on first use: the versions (Textual's 8.2 series, Rich 13 to 15), then each
private name the render package touches. `CHATTERM_STOCK_RENDER=1` (any value but empty or `0`) forces the stock
path, as does any failed check; `force_stock` lets a test compare the two paths in one process.
"""

from __future__ import annotations

import functools
import importlib.metadata
import os

TEXTUAL_SERIES = ((8, 2),)
"""The Textual series the compositor and scrollbar subclasses were written against."""
RICH_MAJORS = (13, 14, 15)
ENVIRONMENT_SWITCH = "CHATTERM_STOCK_RENDER"
_APP_METHODS = ("_start_widget", "_fatal_error", "_close_messages_no_wait")
"""The App methods the render package calls or replaces (`widgets`, `crash`)."""

_forced: bool | None = None


def force_stock(stock: bool | None) -> None:
    """Use the stock path (True), the custom one where supported (False), or follow the environment (None)."""
    global _forced
    _forced = stock


def custom_rendering() -> bool:
    """True when chatterm's own rendering parts are used; False for Textual's and Rich's stock path."""
    if _forced is not None:
        return not _forced and supported()
    if os.environ.get(ENVIRONMENT_SWITCH, "") not in ("", "0"):
        return False
    return supported()


@functools.cache
def supported() -> bool:
    """The installed Textual and Rich are versions, and have the private names, the render package relies on."""
    return _versions_known() and not missing_private_names()


def _major_minor(package: str) -> tuple[int, int]:
    try:
        parts = importlib.metadata.version(package).split(".")
        return int(parts[0]), int(parts[1])
    except (importlib.metadata.PackageNotFoundError, ValueError, IndexError):
        return (0, 0)


def _versions_known() -> bool:
    return _major_minor("textual") in TEXTUAL_SERIES and _major_minor("rich")[0] in RICH_MAJORS


def missing_private_names() -> list[str]:
    """The private names the render package uses that this Textual or Rich lacks (empty when all are there)."""
    missing: list[str] = []
    try:
        from textual import _compositor

        compositor = _compositor.Compositor
        for name in ("_get_renders", "full_map", "render_partial_update", "reflow_visible", "render_update"):
            if not hasattr(compositor, name):
                missing.append(f"textual._compositor.Compositor.{name}")
        if not hasattr(_compositor, "ChopsUpdate"):
            missing.append("textual._compositor.ChopsUpdate")
        probe = compositor()
        for name in ("_dirty_regions", "_full_map", "_full_map_invalidated", "_visible_map"):
            if not hasattr(probe, name):
                missing.append(f"Compositor.{name}")
    except ImportError:
        missing.append("textual._compositor")
    from textual.screen import Screen
    from textual.widget import Widget

    for owner, names in ((Widget, ("_layout_required", "_vertical_scrollbar", "_anchor_released")),):
        source = owner.__init__.__code__.co_names
        missing.extend(f"Widget.{name}" for name in names if name not in source)
    if "_compositor" not in Screen.__init__.__code__.co_names:
        missing.append("Screen._compositor")
    from textual.app import App

    missing.extend(f"App.{name}" for name in _APP_METHODS if not callable(getattr(App, name, None)))
    if "_exit_renderables" not in App.__init__.__code__.co_names:
        missing.append("App._exit_renderables")
    try:
        from textual.widgets._footer import FooterKey

        made = FooterKey.__init__.__code__.co_names
        kept = ("key", "key_display", "description", "action")
        missing.extend(f"FooterKey.{name}" for name in kept if name not in made)
    except ImportError:
        missing.append("textual.widgets._footer")
    try:
        from rich import _wrap

        if not hasattr(_wrap, "divide_line"):
            missing.append("rich._wrap.divide_line")
    except ImportError:
        missing.append("rich._wrap")
    return missing
