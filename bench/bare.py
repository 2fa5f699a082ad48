"""The baseline: a bare httpx + httpx-sse client that parses the stream and joins the text."""

from __future__ import annotations

import json
import time

import httpx
from httpx_sse import connect_sse

from bench.server import SENTINEL, BenchServer


def bare_client(server: BenchServer, base_url: str) -> dict[str, float]:
    """Seconds from the server's first byte to the sentinel parsed; lag after its last byte; CPU seconds of this
    client alone (the thread it runs in: the loopback server runs in another thread of the same process)."""
    server.reset()
    cpu = time.thread_time()
    text: list[str] = []
    seen_at = 0.0
    with (
        httpx.Client(timeout=60) as client,
        connect_sse(
            client, "POST", base_url + "/chat/completions", json={"model": "m", "messages": [], "stream": True}
        ) as source,
    ):
        for event in source.iter_sse():
            if event.data == "[DONE]":
                break
            for choice in json.loads(event.data).get("choices", []):
                piece = choice.get("delta", {}).get("content")
                if piece:
                    text.append(piece)
                    if SENTINEL in piece:
                        seen_at = time.monotonic()
    deadline = time.monotonic() + 5
    while server.last_byte is None and time.monotonic() < deadline:
        time.sleep(0.001)  # the server notes its last byte just after sending it
    assert server.first_byte is not None and server.last_byte is not None
    assert SENTINEL in "".join(text)
    return {
        "first_to_last": seen_at - server.first_byte,
        "lag": max(seen_at - server.last_byte, 0.0),
        "cpu": time.thread_time() - cpu,
    }
