"""Writing, converting and serving recordings; interoperability with vcrpy."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
import pytest
import vcr
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from chatterm.cli.main import main
from chatterm.conversation.reply import Reply
from chatterm.decode.body import SSE, decode_all
from tests.conftest import SEEDS, TEST_KEY, recordings, run_chatterm
from tests.faultserver import ANSWER


def responses(path: Path, errors: bool = True) -> list[dict[str, Any]]:
    out = []
    for turn in summarize(load_recording(path))["turns"]:
        response = dict(turn["response"])
        if not errors and (response["error"] or (response["status"] or 200) >= 400):
            continue
        out.append(response)
    return out


@pytest.mark.parametrize("path", recordings(), ids=lambda p: p.name[:50])
def test_convert_round_trips_keep_the_conversation(path: Path, tmp_path: Path) -> None:
    original = summarize(load_recording(path))
    for fmt, suffix in (("vcr", ".yaml"), ("govcr", ".yaml"), ("sse", ".sse")):
        target = tmp_path / f"out-{fmt}{suffix}"
        assert main(["convert", str(path), str(target), "--to", fmt]) == 0
        converted = summarize(load_recording(target))
        if fmt == "sse":
            wanted = [t["response"] for t in original["turns"] if not t["response"]["error"]]
            got = [t["response"] for t in converted["turns"] if not t["response"]["error"]]
            assert len(got) == len(wanted)
            for a, b in zip(wanted, got, strict=True):
                assert (a["content"], a["reasoning"], a["tool_calls"]) == (
                    b["content"],
                    b["reasoning"],
                    b["tool_calls"],
                )
        else:
            assert converted["format"] == fmt
            # A raw SSE capture holds no status and no request: cassettes need both, so 200 and a bare request.
            expected = [{**t["response"], "status": t["response"]["status"] or 200} for t in original["turns"]]
            assert [t["response"] for t in converted["turns"]] == expected
            for before, after in zip(original["turns"], converted["turns"], strict=True):
                assert after["request"] == (before["request"] or after["request"])


def test_conversion_strips_cookies_and_account_headers(tmp_path: Path) -> None:
    source = next(p for p in recordings() if p.name.startswith("otel__openai"))
    assert b"set-cookie" in source.read_bytes()
    target = tmp_path / "clean.yaml"
    main(["convert", str(source), str(target)])
    text = target.read_text().lower()
    for leaked in ("set-cookie", "__cf_bm", "openai-organization", "proj_tzz1tbppoxaf6j9tekvubiaa", "cf-ray"):
        assert leaked not in text


def test_recorded_cassette_loads_in_vcrpy_and_replays_through_httpx(fault_server: Any, tmp_path: Path) -> None:
    record = tmp_path / "session.yaml"
    result = run_chatterm(
        "ask",
        "--base-url",
        fault_server.url("ok"),
        "--api-key-env",
        "K",
        "--record",
        str(record),
        "hi",
        env={"K": TEST_KEY},
    )
    assert result.code == 0
    assert TEST_KEY not in record.read_text()
    with vcr.use_cassette(str(record), record_mode="none") as cassette:
        assert len(cassette) == 1
        response = httpx.post(fault_server.url("ok") + "/chat/completions", json={"messages": []})
    reply = Reply()
    reply.extend(decode_all(response.content, SSE))
    assert reply.content == ANSWER and reply.reasoning == "Thinking it over."
    assert fault_server.counts["ok"] == 1, "vcrpy answered from the cassette, not the server"


def test_written_bodies_are_byte_for_byte(tmp_path: Path) -> None:
    original = load_recording(SEEDS / "xai_grok_simple_streaming.yaml")
    for fmt in ("vcr", "govcr"):
        target = tmp_path / f"{fmt}.yaml"
        main(["convert", str(SEEDS / "xai_grok_simple_streaming.yaml"), str(target), "--to", fmt])
        assert load_recording(target).interactions[0].response.body == original.interactions[0].response.body


def start_serve(path: Path, *extra: str) -> tuple[subprocess.Popen[str], str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "chatterm", "serve", str(path), *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    base_url = process.stdout.readline().strip()
    assert base_url.startswith("http://127.0.0.1:") and base_url.endswith("/v1"), base_url
    return process, base_url


def timed_stream(base_url: str) -> tuple[float, bytes]:
    started = time.monotonic()
    with httpx.stream("POST", base_url + "/chat/completions", json={"messages": [], "stream": True}) as response:
        body = b"".join(response.iter_bytes())
    return time.monotonic() - started, body


def test_serve_replays_at_the_recorded_pace_and_instantly(fault_server: Any, tmp_path: Path) -> None:
    fault_server.gap = 0.15
    record = tmp_path / "paced.yaml"
    assert run_chatterm("ask", "--base-url", fault_server.url("paced"), "--record", str(record), "hi").code == 0
    recorded = load_recording(record).interactions[0].response
    assert recorded.offsets is not None
    recorded_span = recorded.offsets[-1][0] - recorded.offsets[0][0]
    assert recorded_span >= 0.15 * 6

    process, base_url = start_serve(record)
    try:
        elapsed, body = timed_stream(base_url)
        assert body == recorded.body
        assert elapsed >= recorded_span * 0.9  # a lower bound: the pace is kept
        models = httpx.get(base_url + "/models").json()
        assert [m["id"] for m in models["data"]] == ["fault-model"]
    finally:
        process.terminate()
        process.wait(10)

    faster = []
    for options in (["--speed", "4"], ["--instant"]):
        process, base_url = start_serve(record, *options)
        try:
            seconds, body = timed_stream(base_url)
            assert body == recorded.body
            faster.append(seconds)
        finally:
            process.terminate()
            process.wait(10)
    assert all(seconds < elapsed for seconds in faster)


def test_serve_non_streaming_request(serve_recording: Any) -> None:
    base_url = serve_recording(SEEDS / "xai_grok_simple_streaming.yaml")
    completion = httpx.post(base_url + "/chat/completions", json={"messages": [], "stream": False}).json()
    message = completion["choices"][0]["message"]
    assert message["content"].startswith("Oi!") and message["reasoning_content"].startswith("First")
    assert completion["usage"]["completion_tokens_details"] == {"reasoning_tokens": 133}


def test_serve_matches_the_request_else_plays_in_order(serve_recording: Any) -> None:
    path = next(p for p in recordings() if "multi_tool_streaming" in p.name)
    second_request = load_recording(path).interactions[1].request
    assert second_request is not None
    base_url = serve_recording(path)

    async def fetch(messages: list[Any]) -> Any:
        async with httpx.AsyncClient() as client:
            response = await client.post(base_url + "/chat/completions", json={"messages": messages})
        reply = Reply()
        reply.extend(decode_all(response.content, SSE))
        return reply

    # The second turn's request is asked first: it is matched, not played in order.
    assert asyncio.run(fetch(second_request.messages)).content == "The sum of 2 and 3 is 5, and the product is 6."
    unmatched = asyncio.run(fetch([{"role": "user", "content": "unmatched"}]))
    assert [call.name for call in unmatched.tool_calls.values()] == ["add", "multiply"]


def test_serve_answers_a_request_asked_again_with_its_own_turn(serve_recording: Any) -> None:
    """A client that sends the same request twice (a retry, a test run twice against one `serve`) gets the turn
    whose history it sends each time, not the next turn in the file."""
    path = next(p for p in recordings() if "multi_tool_streaming" in p.name)
    first_request = load_recording(path).interactions[0].request
    assert first_request is not None
    base_url = serve_recording(path)

    def names(messages: list[Any]) -> list[str]:
        response = httpx.post(base_url + "/chat/completions", json={"messages": messages})
        reply = Reply()
        reply.extend(decode_all(response.content, SSE))
        return [call.name for call in reply.tool_calls.values()]

    assert names(first_request.messages) == ["add", "multiply"]
    assert names(first_request.messages) == ["add", "multiply"]


def test_serve_refuses_a_public_address_without_the_flag() -> None:
    result = run_chatterm("serve", str(SEEDS / "groq_llama33_stream.sse"), "--host", "0.0.0.0")
    assert result.code == 2 and "--allow-remote" in result.stderr


async def test_replay_transport_re_emits_bytes_at_pace() -> None:
    from chatterm.cassette.replay import ReplayTransport
    from chatterm.net.client import ChatClient
    from chatterm.net.endpoint import Endpoint

    recording = load_recording(SEEDS / "xai_grok_simple_streaming.yaml")
    recorded = recording.interactions[0].response
    assert recorded.duration is not None and recorded.duration > 0.15  # go-vcr keeps the whole duration

    async def replay(speed: float, instant: bool) -> tuple[float, Reply, bytes]:
        transport = ReplayTransport(recording, speed=speed, instant=instant)
        async with httpx.AsyncClient(transport=transport) as http:
            raw = (await http.post("http://replay/v1/chat/completions", json={})).content
        endpoint = Endpoint(base_url="http://replay/v1", model="grok-code-fast-1")
        reply = Reply()
        started = time.monotonic()
        async with ChatClient(endpoint, transport=ReplayTransport(recording, speed, instant)) as client:
            async for event in client.stream([{"role": "user", "content": "Say hi in Portuguese"}]):
                reply.add(event)
        return time.monotonic() - started, reply, raw

    paced, reply, raw = await replay(1.0, False)
    assert raw == recorded.body
    assert reply.content.startswith("Oi!") and reply.reasoning.startswith("First")
    assert paced >= recorded.duration * 0.9
    instant, reply_now, _ = await replay(1.0, True)
    assert reply_now.content == reply.content and instant < paced


@settings(max_examples=200, deadline=None)
@given(st.lists(st.binary(max_size=300) | st.text(max_size=300).map(str.encode), min_size=1, max_size=3))
@example([b"\x1f\x8b"])  # found: a body that only looks like gzip came back empty
@example([b"\x1f\x8b\x08\x00"])
def test_written_bodies_round_trip_exactly(bodies: list[bytes]) -> None:
    from chatterm.cassette.load import parse_recording
    from chatterm.cassette.model import Interaction, Recording, Response
    from chatterm.cassette.write import render

    recording = Recording("vcr", [Interaction(None, Response(status=200, body=b)) for b in bodies])
    for fmt in ("vcr", "govcr"):
        loaded = parse_recording(render(recording, fmt), "round-trip")
        assert [i.response.body for i in loaded.interactions] == bodies


_BODY_PIECES = st.sampled_from(["data: {}", "\n", "\n\n", "é", "  indented", "\r\n", "\x00", "…", "-"]).map(str.encode)


@given(
    st.lists(st.lists(_BODY_PIECES | st.binary(max_size=3), min_size=1, max_size=5).map(b"".join), max_size=25),
    st.sets(st.integers(0, 25)),
)
def test_a_growing_answer_is_written_as_a_fresh_render_writes_it(chunks: list[bytes], restarts: set[int]) -> None:
    """A streaming answer is saved every second by one `ItemWriter`, which keeps what it wrote of the body and the
    offsets: at every save its item is byte for byte the one a fresh writer renders, and loads back exactly."""
    from chatterm.cassette.load import parse_recording
    from chatterm.cassette.model import Interaction, Request, Response
    from chatterm.cassette.vcr_yaml import ItemWriter, assemble_vcr

    writer, body = ItemWriter(), b""
    offsets: list[tuple[float, int]] = []
    for number, chunk in enumerate(chunks):
        body = chunk if number in restarts else body + chunk  # (a body that is not a continuation starts afresh)
        offsets = [(at, min(end, len(body))) for at, end in offsets if end <= len(body)]
        if offsets and number % 3:
            offsets[-1] = (number * 0.01, len(body))  # the last event grew
        else:
            offsets.append((number * 0.01, len(body)))
        response = Response(status=200, headers={"content-type": ["text/event-stream"]}, body=body, offsets=offsets)
        interaction = Interaction(Request("POST", "http://x/v1/chat/completions"), response, meta={"model": "m"})
        written = writer.render(interaction)
        assert written == ItemWriter().render(interaction)
        loaded = parse_recording(assemble_vcr([written]), "growing").interactions[0].response
        assert loaded.body == body and loaded.offsets == [(round(at, 4), end) for at, end in offsets]


_EVENT_PIECES = st.sampled_from([b"data: {}", b"\n", b"\r\n", b"\n\n", b"\r\n\r\n", b"x", b"\x00\x00\x00\x10", b"\x00"])


@given(
    st.lists(st.lists(_EVENT_PIECES, min_size=1, max_size=6).map(b"".join), min_size=1, max_size=30),
    st.sets(st.integers(0, 30)),
    st.sampled_from(["sse", "ndjson", "eventstream"]),
)
def test_event_times_kept_up_to_date_equal_one_scan_of_the_whole_body(
    chunks: list[bytes], syncs: set[int], kind: str
) -> None:
    """A streaming answer's event offsets are brought up to date as it arrives (`EventTimes`, every second) and
    equal, at every point, what scanning the whole body gives (`offsets_from_chunks`)."""
    from chatterm.cassette.timing import EventTimes, offsets_from_chunks

    times, body, arrivals = EventTimes(), b"", []
    for number, chunk in enumerate(chunks):
        body += chunk
        arrivals.append((number * 0.01, len(body)))
        if number in syncs or number == len(chunks) - 1:
            expected = scanned_offsets(arrivals, body, kind)
            assert times.update(arrivals, body, kind) == expected == offsets_from_chunks(arrivals, body, kind)


def scanned_offsets(chunks: list[tuple[float, int]], body: bytes, kind: str) -> list[tuple[float, int]]:
    """The plain specification: every event end of the whole body, stamped with the chunk that completed it (a
    frame cut short ends where the body does)."""
    import re

    ends: list[int] = []
    if kind == "sse":
        ends = [m.end() for m in re.finditer(rb"(?:\r\n|\r|\n)(?:\r\n|\r|\n)", body)]
    elif kind == "ndjson":
        ends = [at + 1 for at, byte in enumerate(body) if byte == 10]
    else:
        at = 0
        while at + 4 <= len(body) and (size := int.from_bytes(body[at : at + 4], "big")) > 0:
            at = min(at + size, len(body))
            ends.append(at)
    if not ends or ends[-1] != len(body):
        ends.append(len(body))
    ends = [end for end in ends if end > 0] or [len(body)]
    stamped = []
    for end in ends:
        arrival = next((at for at, chunk_end in chunks if chunk_end >= end), chunks[-1][0])
        stamped.append((round(arrival, 4), end))
    return stamped
