"""How fast a streamed body decodes into events: `python3 -m bench.decode`.

Not part of the unit suite and not part of `bench.run`: a check of the decoding hot path alone (bytes in,
events out, no network, no UI), for comparing two versions of `chatterm.decode` on the same machine in the same
minutes. A streamed answer arrives as thousands of small chunks, so every body is fed in small pieces: one
event per chunk as servers send them, and in 7-byte pieces as the worst case of a slow link. Each figure is the
median of several rounds.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from chatterm.cassette.load import load_recording
from chatterm.decode.body import SSE, BodyDecoder

SEED = Path(__file__).resolve().parent.parent / "tests" / "data" / "seeds" / "xai_grok_simple_streaming.yaml"


def synthetic(events: int, end: bytes = b"\n") -> bytes:
    """An OpenAI-style stream of `events` content deltas of a few words each, then `[DONE]`."""
    out = []
    for n in range(events):
        chunk = {
            "id": "c",
            "object": "chat.completion.chunk",
            "choices": [{"index": 0, "delta": {"content": f"w{n} é "}}],
        }
        out.append(b"data: " + json.dumps(chunk).encode() + end + end)
    out.append(b"data: [DONE]" + end + end)
    return b"".join(out)


def per_event(body: bytes, end: bytes = b"\n") -> list[bytes]:
    """The body cut after every blank line, as a server flushes one event at a time."""
    sep = end + end
    return [piece + sep for piece in body.split(sep) if piece]


def fixed(body: bytes, size: int) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


def run(pieces: list[bytes]) -> tuple[float, int]:
    """Seconds to decode the pieces, and how many events came out."""
    start = time.perf_counter()
    decoder = BodyDecoder(SSE)
    count = 0
    for piece in pieces:
        count += len(decoder.feed(piece))
    count += len(decoder.close())
    return time.perf_counter() - start, count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    seed = load_recording(SEED).interactions[0].response.body
    big, big_crlf = synthetic(3000), synthetic(3000, b"\r\n")
    cases = {
        "xai seed, one event a chunk": per_event(seed),
        "xai seed, 7-byte chunks": fixed(seed, 7),
        "3,000 events LF, one a chunk": per_event(big),
        "3,000 events CRLF, one a chunk": per_event(big_crlf, b"\r\n"),
        "3,000 events LF, 7-byte chunks": fixed(big, 7),
    }
    print(f"{'body':34} {'chunks':>7} {'events':>7} {'ms':>8} {'us/chunk':>9}")
    for name, pieces in cases.items():
        times, count = [], 0
        for _ in range(args.rounds):
            seconds, count = run(pieces)
            times.append(seconds)
        median = statistics.median(times)
        print(f"{name:34} {len(pieces):7} {count:7} {median * 1000:8.2f} {median / len(pieces) * 1e6:9.2f}")


if __name__ == "__main__":
    main()
