"""Reading what `serve` sends as an OpenAI client reads it: the raw wire (as curl gets it) and the official `openai`
SDK, each folded into the fields `show --json` reports, so a test compares the two directly."""

from __future__ import annotations

import json
from typing import Any

import openai
from openai.types.chat import ChatCompletionMessageParam

ANSWER_KEYS = ("content", "reasoning", "tool_calls", "finish_reason", "usage")
"""What a client of the OpenAI shape receives of an answer: the fields of `show --json` it is compared on."""


def wanted(response: dict[str, Any]) -> dict[str, Any]:
    """The fields of a `show --json` response a client is to receive."""
    return {key: response[key] for key in ANSWER_KEYS}


class Folded:
    """An answer folded from OpenAI deltas (or a whole message), as `show --json` shows one."""

    def __init__(self) -> None:
        self.content = ""
        self.reasoning = ""
        self.calls: dict[int, dict[str, str]] = {}
        self.finish_reason: str | None = None
        self.usage: dict[str, Any] | None = None

    def delta(self, delta: dict[str, Any]) -> None:
        self.content += delta.get("content") or ""
        self.reasoning += delta.get("reasoning_content") or ""
        for call in delta.get("tool_calls") or []:
            merged = self.calls.setdefault(call["index"], {"id": "", "name": "", "arguments": ""})
            function = call.get("function") or {}
            merged["id"] = call.get("id") or merged["id"]
            merged["name"] = function.get("name") or merged["name"]
            merged["arguments"] += function.get("arguments") or ""

    def usage_of(self, usage: dict[str, Any] | None) -> None:
        if usage is not None:
            details = usage.get("completion_tokens_details") or {}
            prompt_details = usage.get("prompt_tokens_details") or {}
            self.usage = {
                "prompt_tokens": usage.get("prompt_tokens"),
                "completion_tokens": usage.get("completion_tokens"),
                "total_tokens": usage.get("total_tokens"),
                "reasoning_tokens": details.get("reasoning_tokens"),
                "cached_tokens": prompt_details.get("cached_tokens"),
            }

    def as_dict(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "reasoning": self.reasoning,
            "tool_calls": [self.calls[index] for index in sorted(self.calls)],
            "finish_reason": self.finish_reason,
            "usage": self.usage,
        }


def data_payloads(body: bytes) -> list[Any]:
    """The `data:` of each event of an SSE body, parsed (`[DONE]` kept as the string)."""
    out: list[Any] = []
    for event in body.decode("utf-8").replace("\r\n", "\n").split("\n\n"):
        data = "\n".join(line[5:].removeprefix(" ") for line in event.split("\n") if line.startswith("data:"))
        if data:
            out.append(data if data == "[DONE]" else json.loads(data))
    return out


def fold_chunks(payloads: list[Any]) -> dict[str, Any]:
    folded = Folded()
    for payload in payloads:
        if not isinstance(payload, dict) or "error" in payload:
            continue
        for choice in payload["choices"]:
            folded.delta(choice["delta"])
            folded.finish_reason = choice.get("finish_reason") or folded.finish_reason
        folded.usage_of(payload.get("usage"))
    return folded.as_dict()


def fold_completion(completion: dict[str, Any]) -> dict[str, Any]:
    folded = Folded()
    (choice,) = completion["choices"]
    folded.delta(
        {
            **choice["message"],
            "tool_calls": [{"index": i, **c} for i, c in enumerate(choice["message"].get("tool_calls") or [])],
        }
    )
    folded.finish_reason = choice["finish_reason"]
    folded.usage_of(completion.get("usage"))
    return folded.as_dict()


QUESTION: list[ChatCompletionMessageParam] = [{"role": "user", "content": "a question the recording does not hold"}]
"""Asked of every turn: it matches no recorded request, so `serve` plays the turns in order."""


def sdk_stream(client: openai.OpenAI) -> tuple[dict[str, Any], Exception | None]:
    """A streamed answer as the SDK gives it (reasoning from the deltas' extra fields), and the SDK's exception."""
    folded = Folded()
    try:
        stream = client.chat.completions.create(model="any", messages=QUESTION, stream=True)
        for chunk in stream:
            for choice in chunk.choices:
                delta = choice.delta.model_dump(exclude_none=True)
                delta["reasoning_content"] = (choice.delta.model_extra or {}).get("reasoning_content")
                folded.delta(delta)
                folded.finish_reason = choice.finish_reason or folded.finish_reason
            folded.usage_of(chunk.usage.model_dump() if chunk.usage else None)
    except openai.OpenAIError as exc:
        return folded.as_dict(), exc
    return folded.as_dict(), None


def sdk_whole(client: openai.OpenAI) -> tuple[dict[str, Any], Exception | None]:
    """A whole answer (`stream` not asked for) as the SDK gives it, and the SDK's exception."""
    try:
        completion = client.chat.completions.create(model="any", messages=QUESTION)
    except openai.OpenAIError as exc:
        return Folded().as_dict(), exc
    (choice,) = completion.choices
    message = choice.message.model_dump(exclude_none=True)
    message["reasoning_content"] = (choice.message.model_extra or {}).get("reasoning_content")
    as_json: dict[str, Any] = {"choices": [{"message": message, "finish_reason": choice.finish_reason}]}
    as_json["usage"] = completion.usage.model_dump() if completion.usage else None
    return fold_completion(as_json), None
