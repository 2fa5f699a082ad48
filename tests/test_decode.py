"""Stream decoding: line endings, dialects, and invariance under any split into network chunks."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from chatterm.cassette.load import load_recording
from chatterm.conversation.reply import Reply
from chatterm.decode.body import NDJSON, SSE, BodyDecoder, decode_all
from chatterm.decode.think import ThinkSplitter
from chatterm.events import Content, Reasoning, StreamError, StreamWarning
from tests.conftest import CORPUS, SEEDS


def reply_from(events: list) -> Reply:  # type: ignore[type-arg]
    reply = Reply()
    reply.extend(events)
    return reply


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    pieces, start = [], 0
    for point in points:
        pieces.append(data[start:point])
        start = point
    pieces.append(data[start:])
    return [p for p in pieces if p]


def decode_pieces(pieces: list[bytes], kind: str = SSE) -> list:  # type: ignore[type-arg]
    decoder = BodyDecoder(kind)
    events = []
    for piece in pieces:
        events.extend(decoder.feed(piece))
    events.extend(decoder.close())
    return events


def coalesced(events: list) -> list:  # type: ignore[type-arg]
    """Adjacent text events of the same kind joined: the text a user sees, whatever the chunking."""
    out: list = []  # type: ignore[type-arg]
    for event in events:
        if out and type(event) is type(out[-1]) and isinstance(event, (Content, Reasoning)):
            out[-1] = type(event)(out[-1].text + event.text)
        else:
            out.append(event)
    return out


XAI_BODY = load_recording(SEEDS / "xai_grok_simple_streaming.yaml").interactions[0].response.body
VLLM_BODY = (
    load_recording(CORPUS / "lls__inference__65eba1be095a7037c4f197f4168b310ebc8afc00aba3946ba498abe2fdbe6a63.json")
    .interactions[0]
    .response.body
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(min_value=0, max_value=10**9), max_size=40))
def test_any_split_of_a_recorded_stream_gives_the_same_events(cuts: list[int]) -> None:
    for body in (XAI_BODY, VLLM_BODY, (SEEDS / "groq_llama33_stream.sse").read_bytes()):
        whole = decode_all(body, SSE)
        assert coalesced(decode_pieces(split_at(body, cuts))) == coalesced(whole)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="ab<>/thinks \n", max_size=60), st.lists(st.integers(0, 200), max_size=10))
def test_think_splitter_is_split_invariant(text: str, cuts: list[int]) -> None:
    def run(pieces: list[str]) -> tuple[str, str]:
        splitter = ThinkSplitter()
        reasoning, content = "", ""
        for piece in pieces:
            r, c = splitter.feed(piece)
            reasoning, content = reasoning + r, content + c
        r, c = splitter.flush()
        return reasoning + r, content + c

    points = sorted({c % (len(text) + 1) for c in cuts})
    pieces = [text[a:b] for a, b in zip([0, *points], [*points, len(text)], strict=True)]
    assert run(pieces) == run([text])


def test_think_tags_split_across_chunks() -> None:
    splitter = ThinkSplitter()
    out = [splitter.feed(p) for p in ["<th", "ink>\nweigh", "ing it</thi", "nk>\n\nThe ", "answer"]]
    out.append(splitter.flush())
    assert "".join(r for r, _ in out) == "\nweighing it"
    assert "".join(c for _, c in out) == "The answer"


def test_think_tag_after_answer_text_is_left_alone() -> None:
    splitter = ThinkSplitter()
    reasoning, content = splitter.feed("Use the <think> tag like this: <think>x</think>")
    assert reasoning == "" and content.startswith("Use the <think> tag")


def sse(*payloads: dict, sep: bytes = b"\n") -> bytes:  # type: ignore[type-arg]
    return b"".join(b"data: " + json.dumps(p).encode() + sep + sep for p in payloads)


def delta(**fields: object) -> dict:  # type: ignore[type-arg]
    return {"choices": [{"index": 0, "delta": fields}]}


def test_line_endings_cr_lf_crlf_but_not_u2028() -> None:
    for sep in (b"\n", b"\r", b"\r\n"):
        reply = reply_from(decode_all(sse(delta(content="a\u2028b"), delta(content="c"), sep=sep), SSE))
        assert reply.content == "a\u2028bc"


def test_keepalive_comments_event_lines_and_empty_deltas() -> None:
    body = (
        b": OPENROUTER PROCESSING\n\n"
        + b"event: message\n"
        + sse(delta(), {"choices": []}, delta(content="hi"), {"choices": [], "usage": {"prompt_tokens": 1}})
        + b"\n\n\n"
    )
    reply = reply_from(decode_all(body, SSE))
    assert reply.content == "hi" and reply.usage is not None and reply.usage.prompt_tokens == 1


def test_reasoning_dialects_never_count_twice() -> None:
    body = sse(
        delta(reasoning_content="A", reasoning_details=[{"type": "reasoning.text", "text": "A"}]),
        delta(reasoning="B", reasoning_details=[{"type": "reasoning.text", "text": "B"}]),
        delta(reasoning_details=[{"type": "reasoning.text", "text": "C", "signature": "sig"}]),
        delta(reasoning_details=[{"type": "reasoning.encrypted", "data": "opaque"}]),
        delta(content=[{"type": "thinking", "thinking": [{"type": "text", "text": "D"}]}]),
        delta(content="<think>E</think>answer"),
    )
    reply = reply_from(decode_all(body, SSE))
    assert reply.reasoning == "ABCDE"
    assert reply.content == "answer"
    assert {d.get("type") for d in reply.reasoning_details} == {"reasoning.text", "reasoning.encrypted"}


def test_think_tags_can_be_switched_off() -> None:
    events = decode_all(sse(delta(content="<think>x</think>y")), SSE, think_tags=False)
    assert reply_from(events).content == "<think>x</think>y"


def test_malformed_chunk_is_skipped_with_a_warning() -> None:
    body = sse(delta(content="a")) + b"data: {not json\n\n" + sse(delta(content="b"))
    events = decode_all(body, SSE)
    assert reply_from(events).content == "ab"
    assert any(isinstance(e, StreamWarning) for e in events)


def test_json_body_where_sse_was_asked_for() -> None:
    body = json.dumps({"choices": [{"index": 0, "message": {"content": "whole"}, "finish_reason": "stop"}]}).encode()
    reply = reply_from(decode_all(body, SSE))
    assert reply.content == "whole" and reply.finish_reason == "stop"


def test_ndjson_and_error_line() -> None:
    body = b'{"model":"m","message":{"content":"hi"},"done":false}\n{"error":"model not found"}\n'
    reply = reply_from(decode_all(body, NDJSON))
    assert reply.content == "hi"
    assert reply.error is not None and "model not found" in reply.error.message


def test_a_line_past_the_limit_ends_with_an_error(monkeypatch: object) -> None:
    import chatterm.decode.body as body_module

    decoder = BodyDecoder(SSE)
    limit = body_module.MAX_LINE
    events = decoder.feed(b"data: " + b"x" * 1024)
    for _ in range(limit // (1024 * 1024) + 1):
        events += decoder.feed(b"x" * (1024 * 1024))
    assert any(isinstance(e, StreamError) and "longer than" in e.message for e in events)
