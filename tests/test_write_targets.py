"""Where chatterm writes a file, only a regular file (or nothing) is ever replaced: a device, a FIFO, a socket, a
directory or a link to one of them stays as it is. `ask --record PATH` and `convert IN OUT` check their target
before anything is asked or read: a path that holds something else, a folder that does not exist, and (without
`--force`) a file that exists are each refused with one line, exit code 2, nothing sent and nothing written."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from chatterm.private_files import write_private
from chatterm.settings.prompts import PromptHistory, history_file
from chatterm.settings.remembered import load_state, save_state
from tests.conftest import SEEDS, assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER


def ask(fault_server: Any, *extra: str) -> Any:
    return run_chatterm("ask", "--base-url", fault_server.url("ok"), "--model", "fault-model", *extra, timeout=30)


def not_files(tmp_path: Path) -> dict[str, Path]:
    """One of each thing that is not a regular file, all in tmp_path. The device is only ever reached through a
    link, and is refused before it is opened."""
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    (tmp_path / "to-pipe.yaml").symlink_to(fifo)
    (tmp_path / "to-folder.yaml").symlink_to(folder)
    (tmp_path / "to-device.yaml").symlink_to("/dev/zero")
    names = ("pipe.yaml", "folder.yaml", "to-pipe.yaml", "to-folder.yaml", "to-device.yaml")
    return {name: tmp_path / name for name in names}


def unchanged(tmp_path: Path) -> None:
    assert (tmp_path / "pipe.yaml").is_fifo()
    assert (tmp_path / "folder.yaml").is_dir() and not any((tmp_path / "folder.yaml").iterdir())
    for link, to in (("to-pipe.yaml", tmp_path / "pipe.yaml"), ("to-folder.yaml", tmp_path / "folder.yaml")):
        assert (tmp_path / link).is_symlink() and (tmp_path / link).readlink() == to
    assert (tmp_path / "to-device.yaml").readlink() == Path("/dev/zero")


@pytest.mark.parametrize("force", [[], ["--force"]], ids=["plain", "force"])
def test_ask_record_refuses_what_is_not_a_regular_file(fault_server: Any, tmp_path: Path, force: list[str]) -> None:
    for name, target in not_files(tmp_path).items():
        result = ask(fault_server, "--record", str(target), *force, "hi")
        assert result.code == 2, (name, result.stderr)
        assert_one_line_error(result)
        assert str(target) in result.stderr and "not a regular file" in result.stderr, result.stderr
        assert result.stdout == ""
    assert not fault_server.seen, "nothing is asked"
    unchanged(tmp_path)


def test_ask_record_refuses_a_folder_that_does_not_exist(fault_server: Any, tmp_path: Path) -> None:
    target = tmp_path / "nowhere" / "deeper" / "r.yaml"
    result = ask(fault_server, "--record", str(target), "hi")
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    assert str(tmp_path / "nowhere" / "deeper") in result.stderr and "does not exist" in result.stderr
    assert not fault_server.seen and not (tmp_path / "nowhere").exists()


def test_ask_record_replaces_an_existing_recording_only_with_force(fault_server: Any, tmp_path: Path) -> None:
    record = tmp_path / "earlier.yaml"
    shutil.copyfile(SEEDS / "xai_grok_simple_streaming.yaml", record)
    before = record.read_bytes()
    result = ask(fault_server, "--record", str(record), "hi")
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    assert str(record) in result.stderr and "--force" in result.stderr
    assert not fault_server.seen and record.read_bytes() == before, "the earlier turn is kept"
    result = ask(fault_server, "--record", str(record), "--force", "hi")
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
    (turn,) = summarize(load_recording(record))["turns"]
    assert turn["response"]["content"] == ANSWER


def test_ask_help_names_force() -> None:
    result = run_chatterm("ask", "--help")
    assert "--force" in result.stdout and "replace" in result.stdout


def test_convert_refuses_a_folder_that_does_not_exist(tmp_path: Path) -> None:
    target = tmp_path / "nowhere" / "x.yaml"
    result = run_chatterm("convert", str(SEEDS / "xai_grok_simple_streaming.yaml"), str(target), timeout=30)
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    assert str(tmp_path / "nowhere") in result.stderr and "does not exist" in result.stderr
    assert not (tmp_path / "nowhere").exists()


def test_convert_refuses_a_link_to_a_device(tmp_path: Path) -> None:
    target = tmp_path / "to-device.yaml"
    target.symlink_to("/dev/zero")
    result = run_chatterm("convert", str(SEEDS / "xai_grok_simple_streaming.yaml"), str(target), "--force", timeout=30)
    assert result.code == 2, result.stderr
    assert_one_line_error(result)
    assert "not a regular file" in result.stderr and target.readlink() == Path("/dev/zero")


def test_the_shared_write_never_replaces_what_is_not_a_regular_file(tmp_path: Path) -> None:
    for name, target in not_files(tmp_path).items():
        with pytest.raises(OSError, match="not a regular file"):
            write_private(target, b"data")
        assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == [], name  # no temporary left
    unchanged(tmp_path)


def _state() -> Path:
    save_state(theme="first")
    return locations.data_dir() / "state.json"


def _prompts() -> Path:
    history = PromptHistory(history_file())
    history.add("first")
    history.settle()
    return history_file()


def _remembered_again(path: Path) -> None:
    save_state(theme="second")
    assert load_state() == {}


def _prompts_again(path: Path) -> None:
    history = PromptHistory(path)
    history.add("second")
    history.settle()
    assert history.prompts == ["second"]


@pytest.mark.parametrize(
    ("written", "again"),
    [(_state, _remembered_again), (_prompts, _prompts_again)],
    ids=["remembered-theme", "prompts-history"],
)
@pytest.mark.timeout(20)  # (a FIFO read would wait for ever)
def test_files_of_the_app_never_replace_a_fifo(written: Callable[[], Path], again: Callable[[Path], None]) -> None:
    """A FIFO where the app keeps a file is neither waited on when read nor replaced when written."""
    path = written()
    path.unlink()
    os.mkfifo(path)
    again(path)
    assert path.is_fifo()
