"""Pilot tests run without a blinking cursor: a blink is a frame of its own, at a moment the test does not choose,
which makes what a test sees depend on timing (a test that is about the blink asks for it with `blinking_cursor`)."""

from __future__ import annotations

import pytest
from textual.widgets import Input, TextArea


@pytest.fixture(autouse=True)
def no_cursor_blink(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    if request.node.get_closest_marker("blinking_cursor") is None:
        for widget in (TextArea, Input):
            monkeypatch.setattr(widget.cursor_blink, "_default", False)
