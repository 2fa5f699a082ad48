"""A reference point: the least a Textual app can do with the same stream.

It streams the answer with httpx + httpx-sse and writes what arrived into Textual's `Log` widget 20 times a
second: no Markdown, no wrapping, no recording, no reasoning. The benchmark measures it like any app, so the
table shows what Textual and an asyncio HTTP stream cost before chatterm does anything:

    python3 -m bench.floor http://127.0.0.1:PORT/v1
"""

from __future__ import annotations

import asyncio
import json
import sys

import httpx
from httpx_sse import aconnect_sse
from textual.app import App, ComposeResult
from textual.widgets import Input, Log

FRAME = 0.05


class Floor(App[None]):
    AUTO_FOCUS = "Input"

    def __init__(self, base_url: str) -> None:
        super().__init__()
        self.base_url = base_url

    def compose(self) -> ComposeResult:
        yield Log()
        yield Input(placeholder="Enter sends")

    def on_input_submitted(self) -> None:
        self.run_worker(self.stream())

    async def stream(self) -> None:
        log = self.query_one(Log)
        pending: list[str] = []

        async def draw() -> None:
            while True:
                await asyncio.sleep(FRAME)
                if pending:
                    log.write("".join(pending))
                    pending.clear()

        drawer = asyncio.create_task(draw())
        body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "go"}]}
        async with (
            httpx.AsyncClient(timeout=60) as client,
            aconnect_sse(client, "POST", self.base_url + "/chat/completions", json=body) as source,
        ):
            async for event in source.aiter_sse():
                if event.data == "[DONE]":
                    break
                for choice in json.loads(event.data).get("choices", []):
                    pending.append(choice.get("delta", {}).get("content") or "")
        drawer.cancel()
        log.write("".join(pending))


if __name__ == "__main__":
    Floor(sys.argv[1]).run()
