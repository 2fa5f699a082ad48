"""chatterm's words after a message from outside: punctuated once, however the message ends."""

from __future__ import annotations

import pytest

from chatterm.sentences import then


@pytest.mark.parametrize(
    ("message", "joined"),
    [
        ("Overloaded", "Overloaded; retrying in 1.0 s"),
        ("Overloaded.", "Overloaded. Retrying in 1.0 s"),
        ("Overloaded. ", "Overloaded. Retrying in 1.0 s"),
        ("Try again later!", "Try again later! Retrying in 1.0 s"),
        ("Is the server up?", "Is the server up? Retrying in 1.0 s"),
        ("Busy…", "Busy… Retrying in 1.0 s"),
        ("Busy;", "Busy; retrying in 1.0 s"),
        ("Error:", "Error; retrying in 1.0 s"),
        ("Busy,\n", "Busy; retrying in 1.0 s"),
        ("", "retrying in 1.0 s"),
    ],
)
def test_a_message_and_what_follows_are_punctuated_once(message: str, joined: str) -> None:
    assert then(message, "retrying in 1.0 s") == joined
