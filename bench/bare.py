"""The baseline: a bare httpx + httpx-sse client that parses the stream and joins the text.

It runs in a process of its own, as the app does, and its CPU is that process's during the stream. (Until
2026-11-22 it ran as a thread beside the loopback server and counted that thread's CPU: over 8 runs of S2 in turn
with the process, a median of 0.43 s against 0.57 s, and noisier, 20% against 14% of the mean. The issue's own
figures for the bare client, 0.53-0.75 s, are a process's.)

    python3 -m bench.bare BASE_URL [API]    # prints when the sentinel arrived and the CPU seconds, as JSON
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from bench.native import PATHS, answer_text, body
from bench.server import SENTINEL, BenchServer

ROOT = Path(__file__).resolve().parent


def bare_client(server: BenchServer, base_url: str) -> dict[str, float]:
    """Seconds from the server's first byte to the sentinel parsed; lag after its last byte; CPU seconds of the
    client's process during the stream (reading the scenario's API)."""
    server.reset()
    command = [sys.executable, "-m", "bench.bare", base_url, server.scenario.api]
    done = subprocess.run(command, cwd=ROOT.parent, capture_output=True, text=True, timeout=300, check=True)
    result = json.loads(done.stdout)
    deadline = time.monotonic() + 5
    while server.last_byte is None and time.monotonic() < deadline:
        time.sleep(0.001)  # the server notes its last byte just after sending it
    assert server.first_byte is not None and server.last_byte is not None
    assert result["sentinel"], "the bare client never saw the sentinel"
    return {
        "first_to_last": result["seen_at"] - server.first_byte,
        "lag": max(result["seen_at"] - server.last_byte, 0.0),
        "cpu": result["cpu"],
    }


def stream(base_url: str, api: str = "openai") -> dict[str, float | bool]:
    """Stream one answer of `api`: when the sentinel was parsed (the system's monotonic clock, which the server's
    process shares) and the CPU seconds this process spent from the request to the end of the stream."""
    import httpx
    from httpx_sse import connect_sse

    cpu = time.process_time()
    text: list[str] = []
    seen_at = 0.0
    url = base_url + PATHS.get(api, "/chat/completions")
    request = body(api) if api in PATHS else {"model": "m", "messages": [], "stream": True}
    with httpx.Client(timeout=60) as client, connect_sse(client, "POST", url, json=request) as source:
        for event in source.iter_sse():
            if event.data == "[DONE]":
                break
            payload = json.loads(event.data)
            if api in PATHS:
                pieces = [answer_text(api, payload)]
            else:
                pieces = [choice.get("delta", {}).get("content") for choice in payload.get("choices", [])]
            for piece in pieces:
                if piece:
                    text.append(piece)
                    if SENTINEL in piece:
                        seen_at = time.monotonic()
    return {"seen_at": seen_at, "cpu": time.process_time() - cpu, "sentinel": SENTINEL in "".join(text)}


if __name__ == "__main__":
    print(json.dumps(stream(sys.argv[1], *sys.argv[2:3])))
