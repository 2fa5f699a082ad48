"""The render package's own tests: they compare chatterm's compositor and scrollbar with Textual's, so they need
the custom rendering path (skipped when the suite runs on the stock path)."""

from __future__ import annotations

import pytest

from chatterm.ui.render.support import custom_rendering


@pytest.fixture(autouse=True)
def custom_render_only(render_path: str) -> None:
    if not custom_rendering():
        pytest.skip("tests chatterm's own rendering parts; the suite runs on the stock render path")
