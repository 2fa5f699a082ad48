"""Reading what `serve` sends as the official SDKs of the native APIs read it (`anthropic`, `google-genai`, `openai`'s
Responses), each answer folded into the fields `show --json` reports, so a test compares the two directly; and
recordings of each API made from the shapes of `native_shapes`, for the turns the corpus does not hold (the Responses
API, errors).

The folds read each API by its own reference: Anthropic's `stop_reason` and usage (the prompt is `input_tokens` plus
the tokens read from and written to the cache), Gemini's `finishReason` and `usageMetadata` (the output is the
answer's tokens plus the thoughts'), the Responses API's `status` and `incomplete_details`.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.write import render
from tests import native_shapes

STOP_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_calls",
    "refusal": "content_filter",
}
FINISH_REASONS = {"STOP": "stop", "MAX_TOKENS": "length", "SAFETY": "content_filter"}
INCOMPLETE = {"max_output_tokens": "length", "content_filter": "content_filter"}
KEYS = ("content", "reasoning", "tool_calls", "finish_reason", "usage")


def wanted(response: dict[str, Any]) -> dict[str, Any]:
    """The fields of a `show --json` response an SDK is to receive (tool arguments as the JSON they hold)."""
    fields = {key: response[key] for key in KEYS}
    fields["tool_calls"] = [
        {**call, "arguments": json.loads(call["arguments"] or "{}")} for call in response["tool_calls"]
    ]
    return fields


def anthropic_fields(message: dict[str, Any]) -> dict[str, Any]:
    """An Anthropic `message` (`Message.model_dump()`) as `show --json` reports an answer."""
    blocks = message["content"]
    usage = message["usage"]
    read, written = usage.get("cache_read_input_tokens") or 0, usage.get("cache_creation_input_tokens") or 0
    prompt = usage["input_tokens"] + read + written
    return {
        "content": "".join(block["text"] for block in blocks if block["type"] == "text"),
        "reasoning": "".join(block["thinking"] for block in blocks if block["type"] == "thinking"),
        "tool_calls": [
            {"id": block["id"], "name": block["name"], "arguments": block["input"]}
            for block in blocks
            if block["type"] == "tool_use"
        ],
        "finish_reason": STOP_REASONS.get(message["stop_reason"], message["stop_reason"]),
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": usage["output_tokens"],
            "total_tokens": prompt + usage["output_tokens"],
            "reasoning_tokens": None,
            "cached_tokens": read,
        },
    }


def anthropic_details(message: dict[str, Any]) -> list[dict[str, Any]]:
    """The thinking blocks an Anthropic client sends back, as the SDK holds them."""
    kept = {"thinking": ("type", "thinking", "signature"), "redacted_thinking": ("type", "data")}
    return [
        {key: block[key] or "" for key in kept[block["type"]]}  # (a stream that sent no signature: "" to chatterm)
        for block in message["content"]
        if block["type"] in kept
    ]


class GeminiFold:
    """Gemini chunks (`GenerateContentResponse.model_dump()`), or one whole answer, folded."""

    def __init__(self) -> None:
        self.content = self.reasoning = ""
        self.calls: list[dict[str, Any]] = []
        self.signatures: list[dict[str, Any]] = []
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None

    def chunk(self, chunk: dict[str, Any]) -> None:
        for candidate in chunk.get("candidates") or []:
            for part in (candidate.get("content") or {}).get("parts") or []:
                self._part(part)
            reason = candidate.get("finish_reason")
            if reason:
                self.finish = FINISH_REASONS.get(reason, reason.lower())
        meta = chunk.get("usage_metadata")
        if meta:
            answer, thoughts = meta.get("candidates_token_count"), meta.get("thoughts_token_count")
            self.usage = {
                "prompt_tokens": meta.get("prompt_token_count"),
                "completion_tokens": None if answer is None and thoughts is None else (answer or 0) + (thoughts or 0),
                "total_tokens": meta.get("total_token_count"),
                "reasoning_tokens": thoughts,
                "cached_tokens": meta.get("cached_content_token_count"),
            }

    def _part(self, part: dict[str, Any]) -> None:
        where: dict[str, int] = {}
        if part.get("text"):
            if part.get("thought"):
                self.reasoning += part["text"]
            else:
                self.content += part["text"]
        call = part.get("function_call")
        if call:
            where = {"call": len(self.calls)}
            self.calls.append({"id": call.get("id") or "", "name": call["name"], "arguments": call.get("args") or {}})
        if part.get("thought_signature"):
            signature = base64.b64encode(part["thought_signature"]).decode()
            self.signatures.append({"type": "thoughtSignature", "signature": signature, **where})

    def fields(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "reasoning": self.reasoning,
            "tool_calls": self.calls,
            "finish_reason": self.finish,
            "usage": self.usage,
        }


class ResponsesFold:
    """Responses API stream events (`model_dump()` of each), or a whole `response`, folded."""

    def __init__(self) -> None:
        self.content = self.reasoning = ""
        self.calls: list[dict[str, Any]] = []
        self.items: list[dict[str, Any]] = []
        self.finish: str | None = None
        self.usage: dict[str, Any] | None = None
        self.failed: str | None = None

    def event(self, event: dict[str, Any]) -> None:
        kind = event["type"]
        if kind == "response.output_text.delta":
            self.content += event["delta"]
        elif kind == "response.reasoning_summary_text.delta":
            self.reasoning += event["delta"]
        elif kind == "response.reasoning_summary_part.added" and event["summary_index"] > 0:
            self.reasoning += "\n\n"
        elif kind == "response.output_item.done":
            self._item(event["item"])
        elif kind in ("response.completed", "response.incomplete", "response.failed"):
            self._end(event["response"])

    def whole(self, response: dict[str, Any]) -> None:
        for item in response["output"]:
            if item["type"] == "message":
                self.content += "".join(part["text"] for part in item["content"])
            elif item["type"] == "reasoning":
                self.reasoning += "\n\n".join(part["text"] for part in item["summary"])
            self._item(item)
        self._end(response)

    def _item(self, item: dict[str, Any]) -> None:
        if item["type"] == "function_call":
            arguments = json.loads(item["arguments"] or "{}")
            self.calls.append({"id": item["call_id"], "name": item["name"], "arguments": arguments})
        elif item["type"] == "reasoning":
            self.items.append({key: value for key, value in item.items() if value is not None})

    def _end(self, response: dict[str, Any]) -> None:
        usage = response.get("usage")
        if usage:
            self.usage = {
                "prompt_tokens": usage["input_tokens"],
                "completion_tokens": usage["output_tokens"],
                "total_tokens": usage["total_tokens"],
                "reasoning_tokens": (usage.get("output_tokens_details") or {}).get("reasoning_tokens"),
                "cached_tokens": (usage.get("input_tokens_details") or {}).get("cached_tokens"),
            }
        if response["status"] == "failed":
            self.failed = response["error"]["message"]
        elif response["status"] == "incomplete":
            self.finish = INCOMPLETE[response["incomplete_details"]["reason"]]
        else:
            self.finish = "tool_calls" if self.calls else "stop"

    def fields(self) -> dict[str, Any]:
        return {
            "content": self.content,
            "reasoning": self.reasoning,
            "tool_calls": self.calls,
            "finish_reason": self.finish,
            "usage": self.usage,
        }


PATHS = {
    "anthropic": "https://api.anthropic.com/v1/messages",
    "gemini": "https://generativelanguage.googleapis.com/v1beta/models/m:streamGenerateContent?alt=sse",
    "responses": "https://api.openai.com/v1/responses",
}


def recording(path: Path, api: str, answers: list[tuple[int, bytes]]) -> Path:
    """A cassette of turns of `api`, each answered with a status and a body (an SSE stream, or a JSON document)."""
    interactions = []
    for number, (status, body) in enumerate(answers):
        request = Request("POST", PATHS[api], {"Content-Type": ["application/json"]}, _question(api, number))
        kind = "application/json" if body.lstrip().startswith(b"{") else "text/event-stream"
        interactions.append(Interaction(request, Response(status, {"Content-Type": [kind]}, body)))
    path.write_bytes(render(Recording(format="vcr", interactions=interactions)))
    return path


def _question(api: str, number: int) -> bytes:
    text = f"question {number}"
    if api == "gemini":
        return json.dumps({"contents": [{"role": "user", "parts": [{"text": text}]}]}).encode()
    if api == "responses":
        return json.dumps({"model": "m", "input": [{"role": "user", "content": text}], "stream": True}).encode()
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": text}], "stream": True}).encode()


def answers(api: str) -> list[tuple[int, bytes]]:
    """Turns of every ending: reasoning and an answer, a tool call, a stop at the token limit, an error inside the
    stream, an HTTP error, an answer recorded whole (not streamed)."""
    return [
        (200, b"".join(native_shapes.answer(api, ["Hello", " there"], reasoning=["Thinking", " it over"]))),
        (200, b"".join(native_shapes.tool_call(api, "weather", '{"city": "Oslo"}'))),
        (200, b"".join(native_shapes.stopped(api, ["Cut", " short"], filtered=False))),
        (200, b"".join([*native_shapes.answer(api, ["Half"], end=False), native_shapes.stream_error(api, "busy now")])),
        (429, json.dumps(native_shapes.error_body(api, 429, "slow down")).encode()),
        (200, json.dumps(native_shapes.whole(api, "All at once", "Briefly")).encode()),
    ]
