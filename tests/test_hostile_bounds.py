"""Hostile recordings are bounded in size, time and expansion, and only regular files are read.

Every case goes through every command that reads a recording, as a subprocess with a timeout: a hang fails the test
instead of stalling the suite, and the answer is exit code 2 with one line naming the path.
"""

from __future__ import annotations

import functools
import os
import zlib
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
import yaml

from chatterm.cassette.dataio import MAX_DECODED, MAX_EXPANSION, MAX_FILE
from tests.conftest import SEEDS, assert_one_line_error, run_chatterm

SEED = (SEEDS / "xai_grok_simple_streaming.yaml").read_text()
"""A real go-vcr cassette; cases change one value in it."""

DEADLINE = 45.0
"""Seconds a refusal may take on a busy machine; a file that hangs a reader takes forever."""


def with_status(value: str) -> str:
    assert "    code: 200\n" in SEED
    return SEED.replace("    code: 200\n", f"    code: {value}\n")


def merge_bomb(levels: int = 9, width: int = 10) -> str:
    """Each mapping merges the one before `width` times: the safe loader flattens width**levels key pairs."""
    lines = ["m0: &m0 {a: 1, b: 2}"]
    for level in range(1, levels):
        merged = ", ".join([f"*m{level - 1}"] * width)
        lines.append(f"m{level}: &m{level} {{<<: [{merged}], k{level}: 1}}")
    return "\n".join(lines) + "\ninteractions: []\n"


def aliased_string(copies: int) -> str:
    """One large string, used `copies` times as the content of a message."""
    big = "x" * (1 << 20)
    messages = ", ".join(["{role: user, content: *big}"] * copies)
    return (
        f"big: &big {big}\n"
        "interactions:\n"
        f"- request: {{uri: 'http://x/v1/chat/completions', method: POST, body: {{messages: [{messages}]}}}}\n"
        "  response: {status: {code: 200}, body: {string: ''}}\n"
    )


@functools.cache
def gzip_bomb() -> str:
    """A vcrpy cassette whose gzip body, a few hundred KB, holds more zero bytes than chatterm decodes."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    body = b"".join(packer.compress(zeros) for _ in range(MAX_DECODED // len(zeros) + 8)) + packer.flush()
    cassette = {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "http://x/v1/chat/completions", "body": "{}", "headers": {}},
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"Content-Encoding": ["gzip"], "Content-Type": ["text/event-stream"]},
                    "body": {"string": body},
                },
            }
        ],
        "version": 1,
    }
    return str(yaml.safe_dump(cassette))


CASES: dict[str, Callable[[], str]] = {
    "bigint.yaml": lambda: with_status("9" * 5000),
    "hexint.yaml": lambda: with_status("0x" + "f" * 5000),
    "hex-offset.yaml": lambda: with_status("200\n    x_chatterm: {offsets: [[0x" + "f" * 400 + ", 5]]}"),
    "merge-bomb.yaml": merge_bomb,
    "aliased-string.yaml": lambda: aliased_string(MAX_EXPANSION // (1 << 20) + 8),
    "gzip-bomb.yaml": gzip_bomb,
    "deep.json": lambda: "[" * 100_000 + "]" * 100_000,
}

COMMANDS = {
    "show": ("show",),
    "show-json": ("show", "--json"),
    "convert": ("convert",),
    "serve": ("serve",),
    "replay": ("replay",),
    "replay-instant": ("replay", "--instant"),
}


def refused(command: str, path: Path, tmp_path: Path) -> str:
    """Run a command on `path`; it must end at once with exit 2 and one line naming the path."""
    args = [*COMMANDS[command], str(path)]
    target = tmp_path / "converted.yaml"
    if command == "convert":
        args.append(str(target))
    result = run_chatterm(*args, timeout=DEADLINE)
    assert result.code == 2, (result.code, result.stdout[:300], result.stderr[-2000:])
    assert_one_line_error(result)
    assert str(path) in result.stderr, result.stderr
    assert not target.exists(), "nothing is written from a refused recording"
    return result.stderr


def test_the_cases_are_small() -> None:
    """The bombs are small files: what they cost is what they expand to."""
    assert len(merge_bomb()) < 1024
    assert len(gzip_bomb()) < 2 * 1024 * 1024


@pytest.mark.parametrize("command", sorted(COMMANDS))
@pytest.mark.parametrize("name", sorted(CASES))
def test_a_hostile_recording_is_refused_by_every_command(name: str, command: str, tmp_path: Path) -> None:
    path = tmp_path / name
    path.write_text(CASES[name]())
    message = refused(command, path, tmp_path)
    assert "sys.set_int_max_str_digits" not in message


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_fifo_is_refused_not_waited_on(command: str, tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.yaml"
    os.mkfifo(fifo)
    assert "not a regular file" in refused(command, fifo, tmp_path)


@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_a_device_is_refused_not_read_without_end(command: str, tmp_path: Path) -> None:
    assert "not a regular file" in refused(command, Path("/dev/zero"), tmp_path)


@pytest.mark.parametrize("command", ["show-json", "serve"])
def test_a_file_larger_than_chatterm_reads_is_refused_unread(command: str, tmp_path: Path) -> None:
    path = tmp_path / "huge.yaml"
    with path.open("wb") as handle:
        handle.truncate(MAX_FILE + 1)  # sparse: no disk is used
    assert "larger than" in refused(command, path, tmp_path)


def test_the_messages_say_what_was_refused(tmp_path: Path) -> None:
    said = {}
    for name in ("bigint.yaml", "merge-bomb.yaml", "aliased-string.yaml", "gzip-bomb.yaml"):
        path = tmp_path / name
        path.write_text(CASES[name]())
        said[name] = refused("show-json", path, tmp_path)
    assert "a number 5000 characters long" in said["bigint.yaml"]
    assert "aliases expand" in said["merge-bomb.yaml"] and "aliases expand" in said["aliased-string.yaml"]
    assert "gzip" in said["gzip-bomb.yaml"] and "interaction 1" in said["gzip-bomb.yaml"]


def test_dates_and_long_numbers_in_text_are_read_as_written(tmp_path: Path) -> None:
    """A value that looks like a date is kept as its text (an impossible date is no error), and a long number
    inside a string is only text."""
    text = SEED.replace("      - application/json\n", "      - 2024-13-45\n", 1)
    text = text.replace("      - OpenAI/Go 2.7.1\n", "      - '" + "9" * 5000 + "'\n", 1)
    assert text != SEED
    path = tmp_path / "dates.yaml"
    path.write_text(text)
    result = run_chatterm("show", str(path), "--json", timeout=DEADLINE)
    assert result.code == 0, result.stderr
    converted = tmp_path / "converted.yaml"
    result = run_chatterm("convert", str(path), str(converted), timeout=DEADLINE)
    assert result.code == 0, result.stderr


def test_a_recording_with_a_few_aliases_still_opens(tmp_path: Path) -> None:
    """Anchors and aliases are plain YAML (vcrpy's dumper writes them for shared objects): only their expansion
    is bounded."""
    text = (
        "headers: &h {Content-Type: [text/event-stream]}\n"
        "interactions:\n"
        "- request: {uri: 'http://x/v1/chat/completions', method: POST, body: '{}', headers: *h}\n"
        "  response:\n"
        "    status: {code: 200, message: OK}\n"
        "    headers: *h\n"
        '    body: {string: "data: {\\"choices\\": [{\\"delta\\": {\\"content\\": \\"hi\\"}}]}\\n\\n"}\n'
    )
    path = tmp_path / "anchored.yaml"
    path.write_text(text)
    result = run_chatterm("show", str(path), "--json", timeout=DEADLINE)
    assert result.code == 0, result.stderr
    assert '"content": "hi"' in result.stdout


PACES = {
    "offsets-forever.yaml": lambda: with_status("200\n    x_chatterm: {offsets: [[.inf, 40], [1.0e+300, 80]]}"),
    "offsets-negative.yaml": lambda: with_status("200\n    x_chatterm: {offsets: [[-5, 40], [.nan, 80]]}"),
    "duration-forever.yaml": lambda: SEED.replace("duration: ", "duration: 2562047h #", 1),
}


@pytest.mark.parametrize("name", sorted(PACES))
def test_a_recorded_pace_of_forever_is_not_waited_for(
    name: str, tmp_path: Path, serve_recording: Callable[..., str]
) -> None:
    """A time a recording cannot mean (not finite, negative, or beyond an hour) is no pace to replay: `serve` at
    the recorded pace answers in full without waiting for it."""
    path = tmp_path / name
    path.write_text(PACES[name]())
    base_url = serve_recording(path, instant=False)
    body = {"messages": [], "stream": True}
    with httpx.stream("POST", base_url + "/chat/completions", json=body, timeout=DEADLINE) as response:
        received = b"".join(response.iter_bytes())
    assert b"[DONE]" in received
