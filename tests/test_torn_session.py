"""A session file cut short by a kill in the middle of a save (the finished turns whole, what followed them cut
anywhere) is read as far as it got: `show`, the sessions list and Ctrl+O give back every finished turn, quietly; a
recording cut short that chatterm did not save is still refused with one line."""

from __future__ import annotations

import json
from pathlib import Path

from chatterm import locations
from chatterm.cassette import load
from chatterm.cassette.load import load_recording, load_tail, parse_recording
from chatterm.cassette.model import Recording, RecordingError, Switch
from chatterm.cassette.session_rows import quick_row, read_row
from chatterm.cassette.store import SessionSaver, list_sessions
from chatterm.cassette.torn import mended
from chatterm.chat.session import user_text
from tests.conftest import SEEDS, run_chatterm
from tests.test_incremental_save import exchange, streaming
from tests.ui.helpers import app_for, wait_for
from tests.ui.test_session_dialogs import opened
from tests.ui.test_sessions_list import titles

FINISHED = 3


def mid_save() -> tuple[bytes, int]:
    """A session as a save leaves it while its fourth answer streams (three finished turns and a branch switch),
    and where its finished part ends."""
    saver = SessionSaver(locations.sessions_dir() / "whole.yaml")
    recording = Recording("vcr", [exchange(number, words=3) for number in range(1, FINISHED + 1)])
    recording.interactions.append(streaming(FINISHED + 1, 4))
    recording.switches.append(Switch(str(FINISHED), FINISHED))
    saver.save(recording)
    saver.close()
    data = saver.path.read_bytes()
    saver.path.unlink()
    return data, data.rfind(b"\n- request:\n") + 1


def prompts(recording: Recording) -> list[str]:
    return [user_text(interaction) for interaction in recording.interactions]


def test_a_session_torn_anywhere_after_its_finished_turns_gives_back_every_one_of_them() -> None:
    """Every tear in the bytes, as each reader reads them; and the readers of the file at a tear in each line."""
    data, finished = mid_save()
    wanted = [f"question {number}" for number in range(1, FINISHED + 1)]
    for cut in range(finished, len(data) + 1):
        torn = mended(data[:cut])
        assert prompts(parse_recording(torn))[:FINISHED] == wanted, cut
        row = quick_row(torn, "torn.yaml")
        assert row is not None and row[0] == "question 1" and row[3] >= FINISHED, cut
    path = locations.sessions_dir() / "torn.yaml"
    lines = [end + 1 for end in range(finished, len(data)) if data[end : end + 1] == b"\n"]
    for cut in sorted({*lines, *(end - 5 for end in lines)}):
        path.write_bytes(data[:cut])
        load._last = None
        assert prompts(load_recording(path))[:FINISHED] == wanted, cut
        tail, total = load_tail(path, 2)
        assert total >= FINISHED and wanted[-1] in prompts(tail), cut
        row_read = read_row(path, 0.0)
        assert (row_read.error, row_read.title, row_read.turns >= FINISHED) == (None, "question 1", True), cut


def test_a_torn_session_is_shown_and_listed_without_a_word_about_it() -> None:
    data, finished = mid_save()
    path = locations.sessions_dir() / "torn.yaml"
    path.write_bytes(data[: finished + 40])
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0 and result.stderr == "", result.stderr
    assert [turn["request"]["messages"][-1]["content"] for turn in json.loads(result.stdout)["turns"]] == [
        "question 1",
        "question 2",
        "question 3",
    ]
    (row,) = list_sessions()
    assert (row.title, row.turns, row.error) == ("question 1", FINISHED, None)


def test_a_recording_cut_short_that_chatterm_did_not_save_is_still_refused(tmp_path: Path) -> None:
    path = tmp_path / "cut.yaml"
    path.write_text((SEEDS / "xai_grok_simple_streaming.yaml").read_text()[:1500])
    try:
        load_recording(path)
    except RecordingError:
        pass
    else:
        raise AssertionError("a third-party cassette cut short was read")


async def test_ctrl_o_opens_a_torn_session_as_far_as_it_got() -> None:
    data, finished = mid_save()
    (locations.sessions_dir() / "torn.yaml").write_bytes(data[: finished + 100])
    app = app_for()
    async with app.run_test(size=(100, 30)) as pilot:
        dialog = await opened(pilot, app)
        assert titles(dialog) == ["question 1"], "listed, not marked as bad"
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.session is not None and len(app.session.recorder.interactions) == FINISHED)
        assert app.session is not None
        assert prompts(app.session.recorder.recording) == [f"question {n}" for n in range(1, FINISHED + 1)]
