"""The prompt history file: bounded, private, and ignored when it cannot be used."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from chatterm.settings import prompts as prompt_history
from chatterm.settings.prompts import MOST, PromptHistory, history_file


def saved(path: Path) -> list[str]:
    data = json.loads(path.read_text())
    assert isinstance(data["prompts"], list)
    return data["prompts"]


def test_prompts_are_kept_in_a_private_file_and_read_again() -> None:
    history = PromptHistory(history_file())
    for text in ("one", "two\nlines", "two\nlines", "é ✓"):
        history.add(text)
    history.settle()
    assert saved(history_file()) == ["one", "two\nlines", "é ✓"], "the same prompt twice in a row is kept once"
    assert stat.S_IMODE(history_file().stat().st_mode) == 0o600
    assert PromptHistory(history_file()).prompts == ["one", "two\nlines", "é ✓"]


def test_the_history_keeps_the_last_prompts_only() -> None:
    history = PromptHistory(history_file())
    for number in range(MOST + 20):
        history.add(f"prompt {number}")
    history.settle()
    kept = saved(history_file())
    assert len(kept) == MOST and kept[0] == "prompt 20" and kept[-1] == f"prompt {MOST + 19}"
    assert len(PromptHistory(history_file()).prompts) == MOST


def test_the_file_is_bounded_in_size_too(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prompt_history, "MOST_BYTES", 10_000)
    history = PromptHistory(history_file())
    for number in range(10):
        history.add(f"{number}" + "x" * 3000)
    history.settle()
    kept = saved(history_file())
    assert history_file().stat().st_size <= 10_000
    assert [prompt[0] for prompt in kept] == ["7", "8", "9"]
    history.add("y" * 50_000)
    history.settle()
    assert saved(history_file()) == ["y" * 50_000], "the newest prompt is kept, however long"


@pytest.mark.parametrize(
    "content",
    [b"{not json", b"\xff\xfe\x00", b'["a list"]', b'{"prompts": "text"}', b'{"prompts": [1, null, "kept"]}'],
)
def test_a_corrupt_file_is_ignored_then_replaced(content: bytes) -> None:
    history_file().parent.mkdir(parents=True, exist_ok=True)
    history_file().write_bytes(content)
    history = PromptHistory(history_file())
    expected = ["kept"] if b"kept" in content else []
    assert history.prompts == expected
    history.add("new")
    history.settle()
    assert saved(history_file()) == [*expected, "new"]


def test_a_file_that_cannot_be_read_is_left_alone() -> None:
    history_file().mkdir(parents=True)  # (reading it fails, whoever runs the test)
    history = PromptHistory(history_file())
    assert history.prompts == []
    history.add("only in memory")
    history.settle()
    assert history.prompts == ["only in memory"] and history_file().is_dir()
