"""An answer is complete only when the provider said so.

A body that ends without the provider's end (a finish reason, `[DONE]`, Anthropic's `message_stop`, Gemini's last
chunk with `finishReason`, Ollama's `done: true`), an empty answer and an HTML page are errors: `ask` exits 1 with
one line and keeps the partial text, the `--record` file holds the error, and `show` reports it. A token limit or a
filter is told, and the answer stands. All through the real command against the fault server on 127.0.0.1.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatterm.cassette.load import load_recording
from chatterm.decode.body import SSE, BodyDecoder
from chatterm.decode.ending import CUT_SHORT, EMPTY, HTML_PAGE
from chatterm.events import StreamError, StreamWarning
from tests.conftest import ask_faults as ask
from tests.conftest import assert_one_line_error, run_chatterm, show_json
from tests.faultserver import ANSWER, DONE, PARTIAL, WORDS, chunk
from tests.test_decode import split_at

FAILED = {
    "cut": (CUT_SHORT, PARTIAL),
    "cut-anthropic": (CUT_SHORT, PARTIAL),
    "cut-gemini": (CUT_SHORT, PARTIAL),
    "cut-ollama": (CUT_SHORT, PARTIAL),
    "empty": (EMPTY, ""),
    "blank": (EMPTY, ""),
    "html": (HTML_PAGE, ""),
}
"""Scenarios of the fault server whose answer is an error, with the error and the text kept."""


@pytest.mark.parametrize("scenario", list(FAILED))
def test_an_answer_cut_short_empty_or_a_page_is_an_error_in_ask_the_recording_and_show(
    fault_server: Any, tmp_path: Path, scenario: str
) -> None:
    words, partial = FAILED[scenario]
    record = tmp_path / "answer.yaml"
    result = ask(fault_server.url(scenario), "--record", str(record))
    assert result.code == 1, result.stderr
    assert result.stdout == partial, "every token received is kept"
    assert_one_line_error(result)
    assert result.stderr.splitlines() == [f"chatterm: {words}"], "one line, not a warning per line of a page"
    (interaction,) = load_recording(record).interactions
    assert interaction.response.error == {"status": None, "message": words}, "the recording holds the error"
    (turn,) = show_json(record)["turns"]
    assert turn["response"]["content"] == partial
    assert turn["response"]["error"] == {"status": None, "message": words}


@pytest.mark.parametrize("scenario", ["ok", "nodone", "ok-anthropic", "ok-gemini", "ok-ollama", "json"])
def test_an_answer_the_provider_ended_is_complete(fault_server: Any, tmp_path: Path, scenario: str) -> None:
    record = tmp_path / "answer.yaml"
    result = ask(fault_server.url(scenario), "--record", str(record), "--no-reasoning")
    assert (result.code, result.stdout, result.stderr) == (0, ANSWER, "")
    (turn,) = show_json(record)["turns"]
    assert turn["response"]["content"] == ANSWER and turn["response"]["error"] is None


def test_show_judges_a_recording_made_elsewhere_the_same_way(tmp_path: Path) -> None:
    """A capture that carries no error of its own: the answer is whole only if the provider said so."""
    cut = tmp_path / "cut.sse"
    cut.write_bytes(b"".join(chunk(word) for word in WORDS[:4]))
    whole = tmp_path / "whole.sse"
    whole.write_bytes(b"".join(chunk(word) for word in WORDS) + chunk(finish="stop"))
    (turn,) = show_json(cut)["turns"]
    assert turn["response"]["content"] == PARTIAL and turn["response"]["error"]["message"] == CUT_SHORT
    (turn,) = show_json(whole)["turns"]
    assert turn["response"]["content"] == ANSWER and turn["response"]["error"] is None
    text = run_chatterm("show", str(cut))
    assert f"[error] {CUT_SHORT}" in text.stdout


NOTICES = {
    "length": "stopped at the token limit",
    "length-anthropic": "stopped at the token limit",
    "length-gemini": "stopped at the token limit",
    "filtered": "filtered by the provider",
    "safety-gemini": "filtered by the provider",
    "recitation-gemini": "filtered by the provider",
}


@pytest.mark.parametrize("scenario", list(NOTICES))
def test_a_token_limit_or_a_filter_is_told_and_the_answer_stands(
    fault_server: Any, tmp_path: Path, scenario: str
) -> None:
    notice = NOTICES[scenario]
    record = tmp_path / "answer.yaml"
    result = ask(fault_server.url(scenario), "--record", str(record))
    assert result.code == 0, "the provider did answer"
    assert result.stdout == PARTIAL
    assert result.stderr.splitlines() == [f"chatterm: note: {notice}"]
    (turn,) = show_json(record)["turns"]
    assert turn["response"]["error"] is None and turn["response"]["content"] == PARTIAL


BODIES = {
    "page": (b"\n<!DOCTYPE html>\n<html><body>" + b"<p>terms</p>\n" * 48 + b"</body></html>\n", HTML_PAGE),
    "cut": (b"".join(chunk(word) for word in WORDS[:4]), CUT_SHORT),
    "whole": (b"".join(chunk(word) for word in WORDS) + chunk(finish="stop"), None),
    "done": (b"".join(chunk(word) for word in WORDS) + DONE, None),
    "empty": (b"", EMPTY),
    "nothing said": (chunk(finish="stop") + DONE, EMPTY),
}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(BODIES)), st.lists(st.integers(min_value=0, max_value=4000), max_size=8))
def test_the_verdict_is_the_same_however_the_body_was_split(name: str, cuts: list[int]) -> None:
    body, expected = BODIES[name]
    decoder = BodyDecoder(SSE)
    events = [event for piece in split_at(body, cuts) for event in decoder.feed(piece)] + decoder.close()
    verdict = decoder.verdict()
    errors: list[str | None] = [e.message for e in events if isinstance(e, StreamError)]
    assert (errors or [verdict.message if verdict else None]) == [expected]
    assert not [e for e in events if isinstance(e, StreamWarning)]
