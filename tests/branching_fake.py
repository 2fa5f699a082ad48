"""A fake provider for the conversation tree's tests, at the session level: an httpx transport that answers every
chat request with a numbered answer ("answer 1", "answer 2", ...), whole or cut short as the test asks, and keeps
the messages of every request it was sent."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import httpx

from chatterm.chat.session import ChatSession
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings


class FakeProvider(httpx.AsyncBaseTransport):
    def __init__(self) -> None:
        self.requests: list[list[dict[str, Any]]] = []
        self.cut_next = False
        """The next answer stops mid-way (no finish, no `[DONE]`): an answer cut short."""
        self.overloaded = 0
        """How many of the next requests are answered 503 (to be retried at once: `Retry-After: 0`)."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread())
        if self.overloaded:
            self.overloaded -= 1
            return httpx.Response(503, headers={"retry-after": "0"}, json={"error": {"message": "overloaded"}})
        self.requests.append(body["messages"])
        answer = f"answer {len(self.requests)}"
        events = [{"choices": [{"index": 0, "delta": {"content": word}}]} for word in (answer[:4], answer[4:])]
        text = "".join(f"data: {json.dumps(event)}\n\n" for event in events)
        if self.cut_next:
            self.cut_next = False
        else:
            finish = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            text += f"data: {json.dumps(finish)}\n\ndata: [DONE]\n\n"
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=text.encode())


def fake_session(provider: FakeProvider, path: Path | None, api: str = "openai") -> ChatSession:
    choice = choose(load_settings(), model="m", base_url="http://127.0.0.1:9/v1", api=api)
    return ChatSession(choice, session_path=path, save=path is not None, transport=provider)


async def answer(session: ChatSession) -> str:
    """Stream the next answer; its text."""
    return "".join([getattr(event, "text", "") async for event in session.stream()])
