"""The official SDKs of the native APIs as clients of `chatterm serve`, unmodified, streaming and not: `anthropic`
(Messages) for every Anthropic recording of the corpus, `google-genai` (pointed at the loopback server through its
`http_options`) for every Gemini one, `openai` (Responses) for a recording of the Responses API; and, for each API, a
recording of every ending (`native_wire.answers`: reasoning, a tool call, the token limit, an error in the stream, an
HTTP error, an answer recorded whole). Each receives the content, reasoning, tool calls, finish reason and usage that
`chatterm show --json` reports, the continuity data (signatures, redacted thinking, encrypted reasoning) as it was
recorded, and the recorded errors as the SDK's own exceptions in the provider's words."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from google import genai
from google.genai import errors as genai_errors
from google.genai import types

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import answers, reply_of
from tests import native_wire
from tests.conftest import CORPUS, run_chatterm

ANTHROPIC = [
    "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml",
    "pydai__test_anthropic__test_anthropic_model_thinking_part_redacted_stream.yaml",
    "lls__messages__f22657bfd86db6348c0a0d0b17332dcfc038b345d2a7be8da4b880a433d36a52.json",
]
GEMINI = ["fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml"]
QUESTION = "a question the recording does not hold"


def shown(path: Path) -> list[dict[str, Any]]:
    """What `chatterm show --json` reports of each answer, in the order `serve` plays them."""
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0, result.stderr
    return [turn["response"] for turn in json.loads(result.stdout)["turns"]]


def recorded(name: str, tmp_path: Path, api: str) -> Path:
    """A corpus recording, or (for `every-ending`) a recording of every ending of `api`."""
    if name == "every-ending":
        return native_wire.recording(tmp_path / f"{api}.yaml", api, native_wire.answers(api))
    return CORPUS / name


def details(path: Path) -> list[list[dict[str, Any]]]:
    """The continuity data of each recorded answer, as chatterm keeps it to send back."""
    return [reply_of(interaction).reasoning_details for interaction in answers(load_recording(path)).interactions]


def words(response: dict[str, Any]) -> str:
    message: str = response["error"]["message"]
    return message.split(": ", 1)[1] if message.startswith(("HTTP ", "error ")) else message


def check(got: dict[str, Any], failure: str | None, response: dict[str, Any], streamed: bool) -> None:
    """The SDK received the answer `show` reports, or failed with the recorded error (`failure`: what it said)."""
    if response["error"] is None:
        assert failure is None, failure
        expected = native_wire.wanted(response)
        expected["finish_reason"] = expected["finish_reason"] or "stop"
        assert got == expected
        return
    assert failure is not None, f"expected the recorded error {response['error']}"
    assert words(response) in failure
    if streamed and (response["status"] or 200) < 400:  # what came before the error is received
        assert (got["content"], got["reasoning"]) == (response["content"], response["reasoning"])


@pytest.mark.parametrize("name", [*ANTHROPIC, "every-ending"], ids=lambda n: n[:40])
def test_the_anthropic_sdk_receives_what_show_reports(
    name: str, tmp_path: Path, serve_recording: Callable[..., str]
) -> None:
    path = recorded(name, tmp_path, "anthropic")
    client = anthropic.Anthropic(base_url=serve_recording(path).removesuffix("/v1"), api_key="x", max_retries=0)
    ask: dict[str, Any] = {"model": "any", "max_tokens": 100, "messages": [{"role": "user", "content": QUESTION}]}
    kept = details(path)
    for streamed in (True, False):
        for number, response in enumerate(shown(path)):
            message, exc, arrived = None, None, {"content": "", "reasoning": ""}
            try:
                if streamed:
                    with client.messages.stream(**ask) as stream:
                        for event in stream:
                            arrived["content"] += event.text if event.type == "text" else ""
                            arrived["reasoning"] += event.thinking if event.type == "thinking" else ""
                        message = stream.get_final_message().model_dump()
                else:
                    message = client.messages.create(**ask).model_dump()
            except anthropic.APIError as error:
                exc = error
            got = native_wire.anthropic_fields(message) if message is not None else arrived
            if message is not None:
                assert native_wire.anthropic_details(message) == kept[number], f"turn {number + 1}"
            check(got, str(exc) if exc else None, response, streamed)
            if exc is not None and (response["status"] or 200) >= 400:
                assert isinstance(exc, anthropic.APIStatusError) and exc.status_code == response["status"]


@pytest.mark.parametrize("name", [*GEMINI, "every-ending"], ids=lambda n: n[:40])
def test_the_google_genai_sdk_receives_what_show_reports(
    name: str, tmp_path: Path, serve_recording: Callable[..., str]
) -> None:
    path = recorded(name, tmp_path, "gemini")
    options = types.HttpOptions(base_url=serve_recording(path).removesuffix("/v1"))
    client = genai.Client(api_key="x", http_options=options)
    kept = details(path)
    for streamed in (True, False):
        for number, response in enumerate(shown(path)):
            fold, exc = native_wire.GeminiFold(), None
            try:
                if streamed:
                    for chunk in client.models.generate_content_stream(model="any", contents=QUESTION):
                        fold.chunk(chunk.model_dump())
                else:
                    fold.chunk(client.models.generate_content(model="any", contents=QUESTION).model_dump())
            except genai_errors.APIError as error:
                exc = error
            check(fold.fields(), str(exc) if exc else None, response, streamed)
            if exc is None:
                assert fold.signatures == kept[number], f"turn {number + 1}"
            elif (response["status"] or 200) >= 400:
                assert isinstance(exc, genai_errors.APIError) and exc.code == response["status"]


@pytest.mark.parametrize("name", ["every-ending"])
def test_the_openai_sdk_receives_what_show_reports_of_a_responses_api_recording(
    name: str, tmp_path: Path, serve_recording: Callable[..., str]
) -> None:
    path = recorded(name, tmp_path, "responses")
    client = openai.OpenAI(base_url=serve_recording(path), api_key="x", max_retries=0)
    kept = details(path)
    for streamed in (True, False):
        for number, response in enumerate(shown(path)):
            fold, exc = native_wire.ResponsesFold(), None
            try:
                if streamed:
                    for event in client.responses.create(model="any", input=QUESTION, stream=True):
                        fold.event(event.model_dump())
                else:
                    fold.whole(client.responses.create(model="any", input=QUESTION).model_dump())
            except openai.APIError as error:
                exc = error
            # (a stream that failed is an event the SDK hands over, not an exception)
            check(fold.fields(), str(exc) if exc else fold.failed, response, streamed)
            if exc is None and fold.failed is None:
                assert fold.items == kept[number], f"turn {number + 1}"
            elif (response["status"] or 200) >= 400:
                assert isinstance(exc, openai.APIStatusError) and exc.status_code == response["status"]


@pytest.mark.parametrize(
    ("api", "name"), [("anthropic", GEMINI[0]), ("gemini", ANTHROPIC[0]), ("responses", ANTHROPIC[0])]
)
def test_each_sdk_is_told_in_its_own_words_which_paths_serve_a_recording_of_another_api(
    api: str, name: str, serve_recording: Callable[..., str]
) -> None:
    base = serve_recording(CORPUS / name)
    if api == "anthropic":
        client = anthropic.Anthropic(base_url=base.removesuffix("/v1"), api_key="x", max_retries=0)
        with pytest.raises(anthropic.NotFoundError) as caught:
            client.messages.create(model="any", max_tokens=10, messages=[{"role": "user", "content": QUESTION}])
        message = caught.value.body["error"]["message"]  # type: ignore[index]
        assert "Gemini API" in message and "/v1beta/models/{model}:streamGenerateContent" in message
        assert "/v1/chat/completions" in message
    elif api == "gemini":
        gemini = genai.Client(api_key="x", http_options=types.HttpOptions(base_url=base.removesuffix("/v1")))
        with pytest.raises(genai_errors.ClientError) as raised:
            gemini.models.generate_content(model="any", contents=QUESTION)
        assert raised.value.code == 404 and raised.value.status == "NOT_FOUND"
        message = str(raised.value.message)
        assert "Anthropic Messages API" in message and "/v1/messages" in message and "/v1/chat/completions" in message
    else:
        with pytest.raises(openai.NotFoundError) as missing:
            openai.OpenAI(base_url=base, api_key="x", max_retries=0).responses.create(model="any", input=QUESTION)
        assert "not OpenAI Responses API ones" in str(missing.value) and "/v1/messages" in str(missing.value)
