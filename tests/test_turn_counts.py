"""The sessions list, `chatterm show` and `chatterm convert` count a session's turns alike: a turn retried is one
turn, and a call recorded beside the chat is none, whichever way the list reads the file (its first and last items, or
whole)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from chatterm import locations
from chatterm.cassette.exchange import RETRIED
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.session_rows import quick_row, row_of
from chatterm.cassette.store import list_sessions
from chatterm.cassette.vcr_yaml import write_vcr
from tests.conftest import TEST_KEY, run_chatterm
from tests.faultserver import ANSWER
from tests.test_sessions_index import save, turn


def shown_turns(path: Path) -> int:
    """How many turns `chatterm show` says the file holds."""
    result = run_chatterm("show", str(path))
    assert result.code == 0, result.stderr
    found = re.search(r", (\d+) turns?[ )]", result.stdout.splitlines()[0])
    assert found, result.stdout
    return int(found.group(1))


def listed_turns(path: Path) -> int:
    (row,) = [row for row in list_sessions() if row.path == path]
    assert row.error is None, row.error
    return row.turns


def test_a_turn_retried_is_one_turn_in_the_sessions_list_as_in_show(fault_server: Any) -> None:
    record = locations.sessions_dir() / "retried.yaml"
    record.parent.mkdir(parents=True)  # (`--record` writes in a folder that exists)
    options = ["--api-key-env", "FAULT_KEY", "--model", "fault-model", "--no-reasoning"]
    result = run_chatterm(
        "ask",
        "--base-url",
        fault_server.url("e429-then-ok"),
        *options,
        "--record",
        str(record),
        "hi",
        env={"FAULT_KEY": TEST_KEY},
    )
    assert result.code == 0 and result.stdout == ANSWER, result.stderr
    assert len(load_recording(record).interactions) == 2, "both attempts are in the file"
    assert shown_turns(record) == 1
    assert listed_turns(record) == 1
    converted = run_chatterm("convert", str(record), str(record.with_name("converted.yaml")))
    assert converted.code == 0 and converted.stderr.strip().endswith("(vcr, 1 turn)"), converted.stderr


def retried(interaction: Interaction) -> Interaction:
    interaction.meta[RETRIED] = True
    return interaction


def models_call() -> Interaction:
    """A model list fetched beside the chat (a cassette from a test suite, continued in chatterm)."""
    response = Response(200, {"content-type": ["application/json"]}, b'{"data": [{"id": "m-1", "object": "model"}]}')
    return Interaction(Request("GET", "http://127.0.0.1/v1/models"), response, meta={"profile": "work"}, done=True)


SHAPES = {
    "retried then answered, then another": [retried(turn("q1")), turn("q1"), turn("q2")],
    "retried twice": [retried(turn("q1")), retried(turn("q1")), turn("q1")],
    "ended while waiting to retry": [turn("q1"), retried(turn("q2"))],
    "a call beside the chat": [turn("q1"), models_call(), turn("q2")],
}


@pytest.mark.parametrize("shape", SHAPES)
def test_the_list_counts_what_show_counts_however_it_reads_the_file(shape: str) -> None:
    interactions = SHAPES[shape]
    path = save(f"{shape.replace(' ', '-')}.yaml", *interactions)
    whole = row_of(Recording("vcr", load_recording(path).interactions))[3]
    quick = quick_row(path.read_bytes(), path.name)
    assert quick is not None, "a file chatterm wrote is read from its parts"
    assert quick[3] == whole == shown_turns(path) == listed_turns(path)


def test_a_session_in_another_layout_is_counted_as_show_counts_it(tmp_path: Path) -> None:
    data = write_vcr(Recording("vcr", [retried(turn("q1")), turn("q1")])).replace(
        b"interactions:\n", b"---\ninteractions:\n", 1
    )
    path = locations.sessions_dir() / "other-layout.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    assert quick_row(data, path.name) is None, "(read whole)"
    assert shown_turns(path) == listed_turns(path) == 1
