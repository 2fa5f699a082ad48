"""`chatterm serve` (the real command, read as curl reads it) on the native APIs' paths: a recording of another API is
refused on a native path with that API's own error shape, saying where the recording is served, while chat
completions answer from it as before; a Gemini recording answers `streamGenerateContent` without `alt=sse` with the
JSON array of chunks that API sends then."""

from __future__ import annotations

from collections.abc import Callable

import httpx

from tests.conftest import CORPUS, Served

OPENAI = CORPUS / "fantasy__TestOpenAICommon__openai-gpt-4o-mini__simple_streaming.yaml"
GEMINI = CORPUS / "fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml"


def test_a_chat_completions_recording_is_refused_on_each_native_path_in_that_apis_words(
    served: Callable[..., Served],
) -> None:
    server = served(OPENAI, "--instant")
    root = server.base_url.removesuffix("/v1")
    question = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}
    anthropic = httpx.post(f"{root}/v1/messages", json=question, timeout=30)
    assert anthropic.status_code == 404
    assert anthropic.json()["type"] == "error" and anthropic.json()["error"]["type"] == "not_found_error"
    said = anthropic.json()["error"]["message"]
    assert said.startswith("this recording holds chat completions answers, not Anthropic Messages API ones")
    assert said.endswith("ask on /v1/chat/completions")
    gemini = httpx.post(f"{root}/v1beta/models/m:generateContent", json={"contents": []}, timeout=30)
    assert gemini.status_code == 404
    assert gemini.json()["error"]["code"] == 404 and gemini.json()["error"]["status"] == "NOT_FOUND"
    responses = httpx.post(f"{root}/v1/responses", json={"model": "m", "input": "hi"}, timeout=30)
    assert responses.status_code == 404 and responses.json()["error"]["type"] == "invalid_request_error"
    assert "/v1/chat/completions" in responses.json()["error"]["message"]
    chat = httpx.post(server.base_url + "/chat/completions", json=question, timeout=30)
    assert chat.status_code == 200 and chat.json()["choices"][0]["message"]["content"]


def test_gemini_without_alt_sse_gets_the_json_array_of_chunks(served: Callable[..., Served]) -> None:
    server = served(GEMINI, "--instant")
    url = server.base_url.removesuffix("/v1") + "/v1beta/models/gemini-2.5-flash:streamGenerateContent"
    answered = httpx.post(url, json={"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}, timeout=30)
    assert answered.status_code == 200 and answered.headers["content-type"] == "application/json"
    (chunk,) = answered.json()
    parts = chunk["candidates"][0]["content"]["parts"]
    assert parts[0]["thought"] is True and parts[0]["text"].startswith("**Determining the Weather Inquiry**")
    assert parts[1]["functionCall"] == {"name": "weather", "args": {"location": "Florence, Italy"}}
    assert parts[1]["thoughtSignature"]
