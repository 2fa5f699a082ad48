"""Crash safety and files: sessions saved as they go, never shared, never unreadable, private modes."""

from __future__ import annotations

import os
import stat
from pathlib import Path

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.store import SessionSaver, list_sessions, new_session_path, session_info
from chatterm.cassette.summary import summarize
from chatterm.net.client import ChatClient
from chatterm.net.endpoint import Endpoint
from chatterm.net.recorder import INCOMPLETE, Recorder
from tests.faultserver import FaultServer


def a_recording() -> Recording:
    response = Response(status=200, headers={"content-type": ["text/event-stream"]}, body=b"data: [DONE]\n\n")
    request = Request("POST", "http://x/v1/chat/completions", body=b'{"messages":[{"role":"user","content":"q"}]}')
    return Recording("vcr", [Interaction(request, response)])


def test_session_files_are_private_and_atomic() -> None:
    saver = SessionSaver(new_session_path())
    saver.save(a_recording())
    saver.close()
    assert stat.S_IMODE(saver.path.stat().st_mode) == 0o600
    for directory in (saver.path.parent, locations.data_dir()):
        assert stat.S_IMODE(directory.stat().st_mode) == 0o700, directory
    assert not [p for p in saver.path.parent.iterdir() if p.name.endswith(".tmp")]
    assert summarize(load_recording(saver.path))["turns"][0]["request"]["messages"][0]["content"] == "q"


def test_two_processes_never_share_a_session_file(monkeypatch: object) -> None:
    first = new_session_path()
    taken = SessionSaver(first)
    taken.save(a_recording())
    taken.flush()
    other = SessionSaver(first)  # the same name, as if a second process had picked it
    other.save(a_recording())
    other.close()
    taken.close()
    assert other.path != first and other.path.exists() and first.exists()


def test_an_unwritable_data_dir_is_one_warning_and_nothing_else(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the sessions folder should be")
    warnings: list[str] = []
    saver = SessionSaver(blocker / "sessions" / "s.yaml", on_error=warnings.append)
    for _ in range(3):
        saver.save(a_recording())
        saver.flush()
    saver.close()
    assert len(warnings) == 1 and "cannot save the session" in warnings[0] and "the chat goes on" in warnings[0]


def test_corrupt_sessions_are_listed_not_hidden() -> None:
    folder = locations.sessions_dir()
    folder.mkdir(parents=True)
    (folder / "bad.yaml").write_bytes(b"\x00\x01garbage")
    saver = SessionSaver(folder / "good.yaml")
    saver.save(a_recording())
    saver.close()
    listed = {info.path.name: info for info in list_sessions()}
    assert listed["good.yaml"].error is None and listed["good.yaml"].title == "q"
    assert listed["bad.yaml"].error is not None and listed["bad.yaml"].error.startswith("bad.yaml:")


async def test_a_snapshot_mid_answer_says_it_is_incomplete(faults: FaultServer) -> None:
    """While an answer streams the recorder flushes every second; a crash leaves an honest file."""
    faults.gap = 0.3
    snapshots: list[tuple[bytes, str | None]] = []

    def on_update(recorder: Recorder) -> None:
        response = recorder.interactions[-1].response
        snapshots.append((response.body, (response.error or {}).get("message")))

    recorder = Recorder(on_update=on_update, flush_interval=0.5)
    endpoint = Endpoint(base_url=faults.url("paced"), model="fault-model")
    async with ChatClient(endpoint, recorder=recorder) as client:
        async for _ in client.stream([{"role": "user", "content": "hi"}]):
            pass
    partial = [s for s in snapshots if s[1] == INCOMPLETE]
    assert partial and b"Hello" in partial[0][0], "a snapshot was taken mid-answer"
    assert recorder.interactions[-1].response.error is None, "the finished answer is not marked"
    assert os.environ.get("HOME")  # the isolated fixture is in force


def test_a_session_is_read_again_only_when_its_file_changed() -> None:
    """The sessions list reads each session whole; opening it again reads only what changed since."""
    folder = locations.sessions_dir()
    folder.mkdir(parents=True)
    saver = SessionSaver(folder / "one.yaml")
    saver.save(a_recording())
    saver.flush()
    first = session_info(folder / "one.yaml")
    assert session_info(folder / "one.yaml") is first, "unchanged: not read again"
    saver.save(Recording("vcr", [*a_recording().interactions, *a_recording().interactions]))
    saver.close()
    again = session_info(folder / "one.yaml")
    assert again is not first and again.turns == 2 * first.turns
    assert [info.path.name for info in list_sessions()] == ["one.yaml"]


async def test_a_session_saved_mid_answer_lists_the_profile_and_model_asked(faults: FaultServer) -> None:
    """A session cut short by a crash (saved while its answer streamed) showed no profile in the sessions list: the
    turn's notes of who was asked were written only when the answer ended."""
    from chatterm.chat.session import ChatSession
    from chatterm.settings.choice import choose
    from chatterm.settings.config import load_settings

    faults.gap = 0.3
    path = locations.sessions_dir() / "crashed.yaml"
    session = ChatSession(choose(load_settings(), model="fault-model", base_url=faults.url("paced")), session_path=path)
    try:
        session.add_prompt("hi")
        async for _ in session.stream():
            session.save()
            assert session.saver is not None and session.saver.flush()
            break
        info = session_info(path)
        assert (info.profile, info.model) == ("ad-hoc", "fault-model")
    finally:
        await session.aclose()
