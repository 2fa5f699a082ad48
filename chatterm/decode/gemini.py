"""Google Gemini `generateContent` / `streamGenerateContent` answers to events.

A thought signature is kept (`ReasoningDetail`) with the place it came on: the function call it was given with
(`call`: the call's number), or the answer's text; the next turn gives it back there. A finish reason that withheld
the answer (SAFETY, RECITATION, a blocklist and the like) reads as `content_filter`; a prompt the API blocked
(`promptFeedback.blockReason`) ends the answer the same way.
"""

from __future__ import annotations

import json
from typing import Any

from chatterm.events import (
    Content,
    Event,
    Finish,
    ModelName,
    Reasoning,
    ReasoningDetail,
    ToolCallDelta,
    Usage,
    UsageReport,
)

FILTERED = ("SAFETY", "RECITATION", "BLOCKLIST", "PROHIBITED_CONTENT", "SPII", "IMAGE_SAFETY", "LANGUAGE")
FINISH_REASONS = {"STOP": "stop", "MAX_TOKENS": "length", **dict.fromkeys(FILTERED, "content_filter")}


def is_gemini(payload: dict[str, Any]) -> bool:
    return "candidates" in payload or "usageMetadata" in payload


class GeminiDecoder:
    """Decodes the chunks of one Gemini answer; `thought: true` parts are reasoning."""

    def __init__(self) -> None:
        self._calls = 0
        self._model: str | None = None

    def chunk(self, payload: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        model = payload.get("modelVersion")
        if isinstance(model, str) and model and model != self._model:
            self._model = model
            events.append(ModelName(model))
        candidates = payload.get("candidates")
        if isinstance(candidates, list) and candidates and isinstance(candidates[0], dict):
            candidate = candidates[0]
            content = candidate.get("content")
            parts = content.get("parts") if isinstance(content, dict) else None
            for part in parts if isinstance(parts, list) else []:
                if isinstance(part, dict):
                    events.extend(self._part(part))
            reason = candidate.get("finishReason")
            if isinstance(reason, str) and reason:
                events.append(Finish(FINISH_REASONS.get(reason, reason.lower())))
        feedback = payload.get("promptFeedback")
        blocked = feedback.get("blockReason") if isinstance(feedback, dict) else None
        if isinstance(blocked, str) and blocked and not candidates:
            events.append(Finish("content_filter"))
        meta = payload.get("usageMetadata")
        if isinstance(meta, dict):
            events.append(UsageReport(_usage(meta)))
        return events

    def _part(self, part: dict[str, Any]) -> list[Event]:
        events: list[Event] = []
        text = part.get("text")
        if isinstance(text, str) and text:
            events.append(Reasoning(text) if part.get("thought") is True else Content(text))
        call = part.get("functionCall")
        where: dict[str, int] = {}
        if isinstance(call, dict):
            arguments = json.dumps(call.get("args") or {}, ensure_ascii=False)
            call_id = call.get("id") if isinstance(call.get("id"), str) else None
            events.append(ToolCallDelta(index=self._calls, id=call_id, name=call.get("name"), arguments=arguments))
            where = {"call": self._calls}
            self._calls += 1
        if isinstance(part.get("thoughtSignature"), str) and part["thoughtSignature"]:
            detail = {"type": "thoughtSignature", "signature": part["thoughtSignature"], **where}
            events.append(ReasoningDetail(detail))
        return events


def _usage(meta: dict[str, Any]) -> Usage:
    def count(key: str) -> int | None:
        value = meta.get(key)
        return value if isinstance(value, int) else None

    answer, thoughts = count("candidatesTokenCount"), count("thoughtsTokenCount")
    completion = None if answer is None and thoughts is None else (answer or 0) + (thoughts or 0)
    return Usage(
        prompt_tokens=count("promptTokenCount"),
        completion_tokens=completion,
        total_tokens=count("totalTokenCount"),
        reasoning_tokens=thoughts,
        cached_tokens=count("cachedContentTokenCount"),
    )
