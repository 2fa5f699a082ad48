"""A long session is saved where it changed: a save while an answer streams and a branch switch write the end of
the file (the streaming answer, the switches, the trailer), never the finished turns before it again, and the file
stays what a whole write gives. A file the saver did not write itself (renamed from the sessions list, continued
after Ctrl+O) is written whole once, then from its end; one moved to the archive goes on from its end.

What a save writes is counted where it reaches the system: the bytes the saver's thread passed to `write` calls
(Linux's per-thread I/O counters)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import vcr

from chatterm import locations
from chatterm.cassette import session_files
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response, Switch
from chatterm.cassette.session_rows import TITLE
from chatterm.cassette.store import SessionSaver, new_session_path
from chatterm.cassette.vcr_yaml import write_vcr
from chatterm.net.recorder import INCOMPLETE

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="counts writes with /proc's I/O counters")

TURNS = 300
TAIL = 16 * 1024
"""More than a save of the streaming answer or a switch may write: a small part of the long session's file."""


def exchange(number: int, words: int = 40, done: bool = True) -> Interaction:
    """Turn `number` of a linear conversation (noted with its place in the tree), its answer `words` long."""
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"question {number}"}], "stream": True})
    chunks = "".join(
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": f"word{n} "}}]}) + "\n\n"
        for n in range(words)
    )
    response = Response(200, {"content-type": ["text/event-stream"]}, (chunks + "data: [DONE]\n\n").encode())
    response.offsets = [(0.01 * n, len(response.body) * (n + 1) // words) for n in range(words)]
    meta = {"id": str(number), "parent": str(number - 1) if number > 1 else None, "profile": "p", "model": "m"}
    request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=body.encode())
    return Interaction(request, response, meta=meta, done=done)


def streaming(number: int, words: int) -> Interaction:
    """An answer streaming, as the recorder keeps it between two saves."""
    interaction = exchange(number, words, done=False)
    interaction.response.error = {"status": None, "message": INCOMPLETE}
    return interaction


def written(saver: SessionSaver) -> int:
    """The bytes the saver's thread has passed to the system's write calls so far."""
    io = Path(f"/proc/self/task/{saver._thread.native_id}/io").read_text()
    return int(next(line.split()[1] for line in io.splitlines() if line.startswith("wchar:")))


def saved(saver: SessionSaver, recording: Recording) -> int:
    """Save and wait: the bytes that save wrote."""
    before = written(saver)
    saver.save(recording)
    assert saver.flush()
    return written(saver) - before


def long_session() -> tuple[SessionSaver, Recording]:
    saver = SessionSaver(locations.sessions_dir() / "long.yaml")
    recording = Recording("vcr", [exchange(number) for number in range(1, TURNS + 1)])
    saved(saver, recording)
    assert saver.path.stat().st_size > 40 * TAIL
    return saver, recording


def as_whole(recording: Recording) -> bytes:
    """The session's file as a whole write gives it."""
    return write_vcr(recording)


def test_a_streaming_save_and_a_branch_switch_write_the_end_of_the_file_not_the_whole() -> None:
    saver, recording = long_session()
    inode = saver.path.stat().st_ino
    recording.interactions.append(streaming(TURNS + 1, 5))
    for words in (5, 30, 60, 90):
        recording.interactions[-1] = streaming(TURNS + 1, words) if words > 5 else recording.interactions[-1]
        assert saved(saver, recording) < TAIL, "a streaming save writes the answer, not the session"
        assert saver.path.read_bytes() == as_whole(recording)
    recording.interactions[-1] = exchange(TURNS + 1, 90)
    assert saved(saver, recording) < TAIL, "the answer done"
    recording.switches.append(Switch(str(TURNS // 2), len(recording.interactions)))
    assert saved(saver, recording) < TAIL, "a branch switch writes a few lines"
    assert saver.path.read_bytes() == as_whole(recording)
    assert saver.path.stat().st_ino == inode, "written in place"
    assert saver.path.stat().st_mode & 0o777 == 0o600
    saver.close()
    assert load_recording(saver.path).switches == recording.switches
    with vcr.use_cassette(str(saver.path), record_mode="none") as cassette:
        assert len(cassette) == TURNS + 1


def test_a_session_renamed_is_written_whole_once_then_from_its_end() -> None:
    saver, recording = long_session()
    saver.rename("Named", session_files.retitle)
    recording.interactions.append(streaming(TURNS + 1, 10))
    assert saved(saver, recording) >= saver.path.stat().st_size, "the file changed by another hand: written whole"
    recording.interactions[-1] = streaming(TURNS + 1, 20)
    assert saved(saver, recording) < TAIL
    assert recording.interactions[0].meta[TITLE] == "Named"
    assert saver.path.read_bytes() == as_whole(recording)
    saver.close()


def test_a_session_archived_goes_on_from_its_end_where_it_now_lives() -> None:
    saver, recording = long_session()
    archived = saver.relocate(session_files.archive)
    recording.interactions.append(streaming(TURNS + 1, 10))
    assert saved(saver, recording) < TAIL
    assert saver.path == archived and archived.read_bytes() == as_whole(recording)
    saver.close()


def test_a_session_continued_after_ctrl_o_is_written_whole_once_then_from_its_end() -> None:
    first, _ = long_session()
    first.close()
    loaded = load_recording(first.path)
    for interaction in loaded.interactions:
        interaction.done = True
    saver = SessionSaver(new_session_path())
    assert saver.go_on_in(first.path) is None
    loaded.interactions.append(streaming(TURNS + 1, 10))
    assert saved(saver, loaded) >= first.path.stat().st_size
    loaded.interactions[-1] = streaming(TURNS + 1, 30)
    assert saved(saver, loaded) < TAIL
    assert first.path.read_bytes() == as_whole(loaded)
    saver.close()


def test_a_file_written_over_by_another_hand_is_written_whole_again() -> None:
    saver, recording = long_session()
    saver.path.write_bytes(as_whole(Recording("vcr", recording.interactions[:3])))
    recording.interactions.append(streaming(TURNS + 1, 10))
    saved(saver, recording)
    assert saver.path.read_bytes() == as_whole(recording)
    saver.close()
