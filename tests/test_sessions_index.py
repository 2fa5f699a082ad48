"""The sessions list over many files and bad ones: an index beside the session files gives the rows of those that
have not changed, the files stay the truth (one changed since is read again, a missing or broken index is rebuilt),
and no bad file stops the list or makes it wait."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest

from chatterm import locations
from chatterm.cassette import session_index, session_rows
from chatterm.cassette.load import load_recording, parse_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.session_rows import quick_row, row_of
from chatterm.cassette.store import SessionSaver, list_sessions
from chatterm.cassette.write import render
from tests.conftest import TEST_KEY, recordings
from tests.test_hostile_bounds import merge_bomb

INDEX = session_index.INDEX_NAME


def turn(prompt: str, model: str = "m-1", profile: str = "work", answer: str = "fine") -> Interaction:
    body = json.dumps({"model": model, "messages": [{"role": "user", "content": prompt}], "stream": True})
    chunk = json.dumps({"choices": [{"index": 0, "delta": {"content": answer}, "finish_reason": "stop"}]})
    response = Response(200, {"content-type": ["text/event-stream"]}, f"data: {chunk}\n\ndata: [DONE]\n\n".encode())
    response.offsets = [(0.01, len(response.body))]
    request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=body.encode())
    return Interaction(request, response, meta={"profile": profile, "model": model}, done=True)


def save(name: str, *turns: Interaction, secrets: tuple[str, ...] = ()) -> Path:
    saver = SessionSaver(locations.sessions_dir() / name, secrets)
    saver.save(Recording("vcr", list(turns)))
    saver.close()
    return saver.path


@pytest.fixture
def reads(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The names of the session files read for their rows (the rest came from the index)."""
    names: list[str] = []
    original = session_rows.read_row

    def counted(path: Path, modified: float) -> session_rows.SessionInfo:
        names.append(path.name)
        return original(path, modified)

    monkeypatch.setattr(session_index, "read_row", counted)
    return names


def rows() -> dict[str, tuple[str, str, str, int, str | None]]:
    return {i.path.name: (i.title, i.profile, i.model, i.turns, i.error) for i in list_sessions()}


def test_saving_a_session_puts_its_row_in_the_index_and_the_list_reads_no_file(reads: list[str]) -> None:
    save("a.yaml", turn("first [/INST] question"), turn("second", model="m-2"))
    save("b.yaml", turn("another one", profile="home"))
    assert (locations.sessions_dir() / INDEX).exists()
    assert rows() == {
        "a.yaml": ("first [/INST] question", "work", "m-2", 2, None),
        "b.yaml": ("another one", "home", "m-1", 1, None),
    }
    assert reads == [], "every row came from the index"
    assert os.stat(locations.sessions_dir() / INDEX).st_mode & 0o777 == 0o600


def test_a_session_changed_since_it_was_indexed_is_read_again(reads: list[str]) -> None:
    path = save("a.yaml", turn("old question"))
    index = (locations.sessions_dir() / INDEX).read_bytes()
    path.write_bytes(render(Recording("vcr", [turn("new question"), turn("and more")])))  # by another writer
    assert rows()["a.yaml"] == ("new question", "work", "m-1", 2, None)
    assert reads == ["a.yaml"]
    assert (locations.sessions_dir() / INDEX).read_bytes() != index, "the index was brought up to date"
    reads.clear()
    assert rows()["a.yaml"][0] == "new question" and reads == []


@pytest.mark.parametrize(
    "index",
    [
        b"",
        b"{not json",
        b'{"version": 99, "sessions": {}}',
        b'{"version": 1, "sessions": []}',
        b'{"version": 1, "sessions": {"a.yaml": {"size": "x"}, "../x.yaml": 1, "b.yaml": null}}',
        b"[" * 100_000,
        b"\xff\xfe",
    ],
)
def test_a_missing_or_broken_index_is_rebuilt_from_the_session_files(index: bytes, reads: list[str]) -> None:
    save("a.yaml", turn("question a"))
    save("b.yaml", turn("question b"))
    (locations.sessions_dir() / INDEX).write_bytes(index)
    assert {name: row[0] for name, row in rows().items()} == {"a.yaml": "question a", "b.yaml": "question b"}
    assert sorted(reads) == ["a.yaml", "b.yaml"]
    reads.clear()
    rows()
    assert reads == [], "rebuilt"


def test_an_index_that_is_not_a_file_is_not_waited_on(reads: list[str]) -> None:
    save("a.yaml", turn("question a"))
    (locations.sessions_dir() / INDEX).unlink()
    os.mkfifo(locations.sessions_dir() / INDEX)
    assert rows()["a.yaml"][0] == "question a"
    assert (locations.sessions_dir() / INDEX).is_fifo(), "never replaced by the index written"


def test_rows_of_gone_files_leave_the_index() -> None:
    gone = save("gone.yaml", turn("bye"))
    save("kept.yaml", turn("hello"))
    gone.unlink()
    assert list(rows()) == ["kept.yaml"]
    data = json.loads((locations.sessions_dir() / INDEX).read_text())
    assert list(data["sessions"]) == ["kept.yaml"]


def test_the_index_holds_no_key() -> None:
    save("a.yaml", turn(f"my key is {TEST_KEY}, keep it"), secrets=(TEST_KEY,))
    assert TEST_KEY not in (locations.sessions_dir() / INDEX).read_text()
    assert rows()["a.yaml"][0] == "my key is REDACTED, keep it"


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name)
def test_a_row_read_in_part_is_the_row_read_whole(path: Path) -> None:
    """A session file is read in part (its first and last items) to be listed: the row is the one the whole
    recording gives, for every recording the project holds written as a session."""
    data = render(load_recording(path))
    whole = row_of(parse_recording(data))
    part = quick_row(data, path.name)
    if part is not None:
        assert (part[0][:80], *part[1:]) == (whole[0][:80], *whole[1:])


def test_a_session_cut_short_by_a_crash_lists_the_model_its_request_named() -> None:
    """A snapshot taken mid-answer has no notes on the turn yet: the model comes from its request."""
    streaming = turn("still going", model="m-9")
    streaming.meta, streaming.done = {}, False
    streaming.response.error = {"status": None, "message": "the answer was still streaming when this was saved"}
    save("a.yaml", turn("earlier"), streaming)
    assert rows()["a.yaml"] == ("earlier", "", "m-9", 2, None)


def huge_dense(path: Path, megabytes: int) -> None:
    """A YAML file dense with small nodes: parsing it whole takes seconds a megabyte."""
    path.write_text("interactions:\n" + "- a\n" * (megabytes * 2**18))


def bad_files(folder: Path) -> dict[str, str]:
    """One of each bad file; the words its row says."""
    (folder / "corrupt.yaml").write_text("interactions: [")
    os.mkfifo(folder / "fifo.yaml")
    (folder / "bomb.yaml").write_text(merge_bomb())
    huge_dense(folder / "huge.yaml", 4)
    (folder / "directory.yaml").mkdir()
    (folder / "dangling.yaml").symlink_to(folder / "nowhere.yaml")
    (folder / "binary.yaml").write_bytes(b"\x00\x01\x02garbage")
    return {
        "corrupt.yaml": "not valid YAML",
        "fifo.yaml": "named pipe",
        "bomb.yaml": "expand",
        "huge.yaml": "too large",
        "directory.yaml": "directory",
        "dangling.yaml": "not there",
        "binary.yaml": "binary",
    }


def test_every_good_session_is_listed_and_each_bad_file_marked(monkeypatch: pytest.MonkeyPatch) -> None:
    folder = locations.sessions_dir()
    goods = [save(f"good{n}.yaml", turn(f"question {n}")) for n in range(3)]
    bad = bad_files(folder)
    parsed: list[int] = []
    original = parse_recording

    def counted(data: bytes, name: str = "") -> Any:
        parsed.append(len(data))
        return original(data, name)

    monkeypatch.setattr(session_rows, "parse_recording", counted)
    listed = rows()
    assert {name: listed[name][0] for name in (p.name for p in goods)} == {
        f"good{n}.yaml": f"question {n}" for n in range(3)
    }
    for name, words in bad.items():
        error = listed[name][4]
        assert error is not None and error.startswith(f"{name}: ") and words in error, (name, error)
    assert max(parsed) < 2**20, "a large file that is not a session chatterm wrote is not parsed whole"
    assert set(listed) == {p.name for p in goods} | set(bad)
