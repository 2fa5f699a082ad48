"""Real third-party clients against what chatterm serves and writes:

- the official `openai` SDK, streaming and not, against `serve` of every recording the project holds: each receives
  the content, reasoning (`reasoning_content`, one of the SDK's extra fields), tool calls, finish reason and usage
  that `show --json` reports, or the recorded error as the SDK's exception, with the same words;
- vcrpy loading the cassettes chatterm writes, from a recording of every format, and replaying them through httpx
  byte for byte.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import openai
import pytest
import vcr

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from chatterm.decode.errors import error_words
from tests.conftest import recordings, run_chatterm
from tests.openai_wire import sdk_stream, sdk_whole, wanted


def played(path: Path) -> list[dict[str, Any]]:
    """What `show --json` reports of each turn `serve` plays, in order (a retried turn as its answering attempt)."""
    return [turn["response"] for turn in summarize(load_recording(path))["turns"]]


def words(message: str) -> str:
    """The provider's words of an error message of `show` (without its `HTTP 429: ` or `error in stream: `)."""
    head, colon, rest = message.partition(": ")
    known = head.startswith("HTTP ") or (head.startswith("error ") and head.endswith("in stream"))
    return rest if colon and known else message


def check_error(exc: Exception | None, response: dict[str, Any], streamed: bool) -> None:
    """The SDK raised the recorded error: an HTTP error as `APIStatusError` with its status, an error inside a stream
    as `APIError` once the stream reaches it (as `APIStatusError` when not streamed), with the provider's words."""
    assert isinstance(exc, openai.APIError), f"expected the recorded error {response['error']}, got {exc!r}"
    status = response["status"] or 200
    if status >= 400:
        assert isinstance(exc, openai.APIStatusError) and exc.status_code == status
    elif streamed:
        assert not isinstance(exc, openai.APIStatusError)
    else:
        assert isinstance(exc, openai.APIStatusError) and exc.status_code == (response["error"]["status"] or 502)
    assert error_words({"error": exc.body}) == words(response["error"]["message"])


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name[:60])
def test_the_openai_sdk_receives_what_show_reports(path: Path, serve_recording: Callable[..., str]) -> None:
    client = openai.OpenAI(base_url=serve_recording(path), api_key="not-needed", max_retries=0)
    expected = played(path)
    for number, response in enumerate(expected, start=1):
        got, exc = sdk_stream(client)
        if response["error"] is None:
            assert exc is None, f"turn {number}: {exc!r}"
            assert got == wanted(response), f"turn {number}, streamed"
        else:
            check_error(exc, response, streamed=True)
            if (response["status"] or 200) < 400:  # what came before the error is received
                assert {k: got[k] for k in ("content", "reasoning", "tool_calls")} == {
                    k: response[k] for k in ("content", "reasoning", "tool_calls")
                }, f"turn {number}, streamed"
    for number, response in enumerate(expected, start=1):  # (every turn was played: playback starts over)
        got, exc = sdk_whole(client)
        if response["error"] is None:
            assert exc is None, f"turn {number}: {exc!r}"
            assert got == wanted(response) | {"finish_reason": response["finish_reason"] or "stop"}, f"turn {number}"
        else:
            check_error(exc, response, streamed=False)


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name[:60])
def test_vcrpy_replays_the_cassette_chatterm_writes_from_every_format(path: Path, tmp_path: Path) -> None:
    original = load_recording(path)
    target = tmp_path / "written.yaml"
    result = run_chatterm("convert", str(path), str(target), "--to", "vcr")
    assert result.code == 0, result.stderr
    requests = [interaction.request for interaction in original.interactions]
    # A raw SSE capture holds no request: its cassette's requests have no address, so they are matched by method.
    match_on = ["method", "scheme", "host", "port", "path", "query"] if all(requests) else ["method"]
    with vcr.use_cassette(str(target), record_mode="none", match_on=match_on) as cassette:
        assert len(cassette) == len(original.interactions)
        for interaction in original.interactions:
            request = interaction.request
            url = request.url if request is not None else "http://127.0.0.1/recorded"
            replayed = httpx.request(
                request.method if request is not None else "POST", url, content=request.body if request else b"{}"
            )
            assert replayed.status_code == (interaction.response.status or 200)
            assert replayed.content == interaction.response.body, "the body replays byte for byte"
        assert cassette.all_played
