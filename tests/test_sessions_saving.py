"""Saving a long session: each save writes the whole file (atomically), but holds no copy of it in memory; the file
and its row in the sessions list are those of the whole recording."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.session_rows import items_row, quick_row
from chatterm.cassette.store import SessionSaver, list_sessions
from chatterm.cassette.vcr_yaml import assemble_vcr, vcr_item_yaml
from tests.conftest import recordings


def turn(number: int) -> Interaction:
    """Turn `number` of a chat whose requests carry the whole history, as a chat's do."""
    messages = []
    for earlier in range(number + 1):
        messages += [{"role": "user", "content": f"question {earlier} " + "words " * 60}]
        messages += [{"role": "assistant", "content": "an answer " * 60}] if earlier < number else []
    body = json.dumps({"model": "m-1", "messages": messages, "stream": True}).encode()
    chunk = json.dumps({"choices": [{"index": 0, "delta": {"content": "fine"}, "finish_reason": "stop"}]})
    response = Response(200, {"content-type": ["text/event-stream"]}, f"data: {chunk}\n\ndata: [DONE]\n\n".encode())
    response.offsets = [(0.01, len(response.body))]
    request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=body)
    return Interaction(request, response, meta={"profile": "work", "model": "m-1"}, done=True)


def test_a_turn_of_a_long_session_is_saved_without_a_copy_of_the_file_in_memory() -> None:
    saver = SessionSaver(locations.sessions_dir() / "long.yaml")
    recording = Recording("vcr", [turn(number) for number in range(120)])
    saver.save(recording)
    assert saver.flush()
    recording.interactions.append(turn(120))
    tracemalloc.start()
    try:
        saver.save(recording)
        assert saver.flush()
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    saver.close()
    size = saver.path.stat().st_size
    assert peak < size / 4, f"saving the 121st turn held {peak / 2**20:.1f} MB for a file of {size / 2**20:.1f} MB"
    assert len(load_recording(saver.path).interactions) == 121
    (info,) = list_sessions()
    assert info.title.startswith("question 0 words") and info.turns == 121


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name)
def test_the_row_a_saver_reads_from_its_items_is_the_row_of_the_file(path: Path) -> None:
    """The saver indexes a session from the items it writes, never joined: the row is the one the file gives."""
    recording = load_recording(path)
    items = [vcr_item_yaml(interaction) for interaction in recording.interactions]
    assert items_row(items, path.name) == quick_row(assemble_vcr(items, recording.switches), path.name)
