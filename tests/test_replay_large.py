"""Replaying a large go-vcr cassette: its last turns are read without parsing the rest, the file is parsed once when
the replay command's check and the app both ask for it, and each answer shown is decoded once. (How fast is measured
by `bench/run.py`, not here.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette import dataio, load, summary
from chatterm.cassette.govcr import write_govcr
from chatterm.cassette.load import load_recording, load_tail
from chatterm.cassette.model import Interaction
from chatterm.chat import session
from chatterm.ui.screens.chat import OPENED_TURNS
from tests.conftest import CORPUS, SEEDS
from tests.ui.helpers import app_for, wait_for
from tests.ui.test_app import long_session


def govcr(path: Path, turns: int) -> Path:
    vcr = long_session(path.with_suffix(".vcr.yaml"), turns)
    path.write_bytes(write_govcr(load_recording(vcr)))
    return path


@pytest.fixture
def parsed(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The length of every text parsed as YAML."""
    sizes: list[int] = []
    original = dataio.load_yaml

    def counted(text: str, name: str) -> Any:
        sizes.append(len(text))
        return original(text, name)

    monkeypatch.setattr(load, "load_yaml", counted)
    return sizes


def same(a: list[Interaction], b: list[Interaction]) -> bool:
    return [(i.request, i.response.body, i.response.status, i.response.duration) for i in a] == [
        (i.request, i.response.body, i.response.status, i.response.duration) for i in b
    ]


@pytest.mark.parametrize(
    "path", [*sorted(CORPUS.glob("fantasy__*.yaml")), SEEDS / "xai_grok_simple_streaming.yaml"], ids=lambda p: p.name
)
@pytest.mark.parametrize("count", [1, 2, 20])
def test_the_tail_of_a_go_vcr_cassette_is_its_last_turns(path: Path, count: int) -> None:
    whole = load_recording(path).interactions
    tail, total = load_tail(path, count)
    assert total == len(whole) and same(tail.interactions, whole[-count:])


def test_the_last_turn_of_a_long_go_vcr_cassette_is_read_alone(tmp_path: Path, parsed: list[int]) -> None:
    path = govcr(tmp_path / "long.yaml", 200)
    parsed.clear()
    tail, total = load_tail(path, 1)
    assert total == 200 and same(tail.interactions, load_recording(path).interactions[-1:])
    assert parsed[0] < path.stat().st_size / 50, "only the last turn was parsed"


@pytest.mark.parametrize("turns", [1, 3, 40])
def test_a_cassette_checked_then_opened_is_parsed_once(tmp_path: Path, parsed: list[int], turns: int) -> None:
    """`chatterm replay` (and the sessions list) check the file before the app is given it, then the app opens it:
    one parse, not two."""
    path = govcr(tmp_path / "cassette.yaml", turns)
    parsed.clear()
    load_tail(path, OPENED_TURNS)  # the check
    opened, total = load_tail(path, OPENED_TURNS)
    assert total == turns and same(opened.interactions, load_recording(path).interactions[-OPENED_TURNS:])
    assert len(parsed) == 1 + 1  # (and the full load just above)
    path.write_bytes(path.read_bytes() + b"\n")  # changed since: parsed again
    load_tail(path, OPENED_TURNS)
    assert len(parsed) == 3


async def test_each_answer_of_an_instant_replay_is_decoded_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = govcr(tmp_path / "few.yaml", 3)
    decoded: list[int] = []
    original = summary.reply_of

    def counted(interaction: Interaction, think_tags: bool = True) -> Any:
        decoded.append(len(interaction.response.body))
        return original(interaction, think_tags)

    for module in (summary, session):
        monkeypatch.setattr(module, "reply_of", counted)
    app = app_for(replay=path, speed="instant")
    async with app.run_test(size=(100, 36)) as pilot:
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert app.session is not None
        await wait_for(pilot, lambda: len(app.session.recorder.interactions) == 3)  # type: ignore[union-attr]
        await pilot.pause(0.2)
    assert len(decoded) == 3, f"{len(decoded)} answers decoded for 3 shown"
