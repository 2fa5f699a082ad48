"""The four APIs chatterm talks: where a request goes, how its key travels, and what its body holds.

- `openai`: chat completions (`POST {base}/chat/completions`), the key as `Authorization: Bearer`.
- `responses`: OpenAI's Responses API (`POST {base}/responses`), Bearer too; the conversation is sent whole each turn
  (`store: false`), with the encrypted reasoning items of earlier answers (`include: ["reasoning.encrypted_content"]`).
- `anthropic`: the Messages API (`POST {base}/messages`), the key as `x-api-key` beside `anthropic-version`.
- `gemini`: `POST {base}/models/{model}:streamGenerateContent?alt=sse`, the key as `x-goog-api-key` (never in the
  URL, where logs and proxies keep it).

The reasoning effort of one request (`EFFORTS`; None leaves the provider's default) is said in each API's words:
`reasoning_effort` (only where the profile says the endpoint takes it), `reasoning.effort`, a thinking budget.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

from chatterm.conversation.anthropic_request import anthropic_messages
from chatterm.conversation.gemini_request import gemini_contents
from chatterm.conversation.responses_request import responses_input

APIS = ("openai", "responses", "anthropic", "gemini")
EFFORTS = ("off", "low", "medium", "high")
ANTHROPIC_VERSION = "2023-06-01"
ANTHROPIC_MAX_TOKENS = 4096
"""Anthropic requires `max_tokens`; this fits every Claude model's output limit. Thinking adds its budget to it."""
ANTHROPIC_BUDGETS = {"low": 1024, "medium": 4096, "high": 16384}
"""Thinking budgets in tokens (1024 is the least the API takes)."""
GEMINI_BUDGETS = {"off": 0, "low": 1024, "medium": 8192, "high": 24576}
PRIVATE_KEYS = ("reasoning_details",)
"""Keys of chatterm's history messages that chat completions never receive (they hold another API's reasoning)."""


def chat_url(api: str, base_url: str, model: str) -> str:
    base = base_url.rstrip("/")
    if api == "responses":
        return f"{base}/responses"
    if api == "anthropic":
        return f"{base}/messages"
    if api == "gemini":
        return f"{base}/models/{quote(model.removeprefix('models/'), safe='-._~')}:streamGenerateContent?alt=sse"
    return f"{base}/chat/completions"


def auth_headers(api: str, key: str | None) -> dict[str, str]:
    """The headers that carry the key, as the provider documents them (and `anthropic-version`, which every
    Messages request needs)."""
    headers = {"anthropic-version": ANTHROPIC_VERSION} if api == "anthropic" else {}
    if not key:
        return headers
    if api == "anthropic":
        headers["x-api-key"] = key
    elif api == "gemini":
        headers["x-goog-api-key"] = key
    else:
        headers["Authorization"] = f"Bearer {key}"
    return headers


def request_body(
    api: str,
    messages: list[dict[str, Any]],
    model: str,
    params: dict[str, Any],
    effort: str | None = None,
    stream_usage: bool = True,
    reasoning_effort: bool = False,
) -> dict[str, Any]:
    """The body of one streamed request in `api`'s shape, `params` laid over it, then the effort asked for."""
    if api == "anthropic":
        system, converted = anthropic_messages(messages)
        body: dict[str, Any] = {"model": model, "messages": converted, "max_tokens": ANTHROPIC_MAX_TOKENS}
        if system:
            body["system"] = system
        body["stream"] = True
        body.update(params)
        _anthropic_effort(body, effort, "max_tokens" in params)
    elif api == "gemini":
        system, contents = gemini_contents(messages)
        body = {"contents": contents}
        if system:
            body["systemInstruction"] = {"parts": [{"text": system}]}
        body.update(params)
        _gemini_effort(body, effort)
    elif api == "responses":
        instructions, items = responses_input(messages)
        body = {"model": model, "input": items, "stream": True, "store": False}
        if instructions:
            body["instructions"] = instructions
        body["include"] = ["reasoning.encrypted_content"]
        body.update(params)
        if effort is not None and effort != "off":
            body["reasoning"] = {**body.get("reasoning", {}), "effort": effort, "summary": "auto"}
    else:
        sent = [{k: v for k, v in m.items() if k not in PRIVATE_KEYS} for m in messages]
        body = {"model": model, "messages": sent, "stream": True}
        if stream_usage:
            body["stream_options"] = {"include_usage": True}
        body.update(params)
        if reasoning_effort and effort is not None and effort != "off":
            body["reasoning_effort"] = effort
    return body


def _anthropic_effort(body: dict[str, Any], effort: str | None, given: bool) -> None:
    """Thinking with the effort's budget. The budget counts in `max_tokens`, so it is added to the default; a
    `max_tokens` the profile gives is kept unless it leaves no room for the budget."""
    budget = ANTHROPIC_BUDGETS.get(effort or "")
    if budget is None:
        return
    body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    limit = body.get("max_tokens")
    if not given or not isinstance(limit, int) or limit <= budget:
        body["max_tokens"] = budget + ANTHROPIC_MAX_TOKENS


def _gemini_effort(body: dict[str, Any], effort: str | None) -> None:
    config = dict(body.get("generationConfig") or {})  # (copied: the profile's params stay as they are)
    thinking = dict(config.get("thinkingConfig") or {})
    thinking["includeThoughts"] = effort != "off"
    if effort in GEMINI_BUDGETS:
        thinking["thinkingBudget"] = GEMINI_BUDGETS[effort]
    config["thinkingConfig"] = thinking
    body["generationConfig"] = config
