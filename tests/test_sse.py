"""Server-sent events by the WHATWG parsing rules: lines, fields, dispatch, and any split of the bytes."""

from __future__ import annotations

import codecs
import json
from dataclasses import dataclass, field
from itertools import pairwise
from typing import NamedTuple

from hypothesis import given, settings
from hypothesis import strategies as st

from chatterm.conversation.reply import Reply
from chatterm.decode.body import SSE, BodyDecoder, decode_all
from chatterm.decode.sse import EventAssembler, LineSplitter
from chatterm.events import Content, Event

BOM = "\ufeff".encode()


def lines_of(pieces: list[str]) -> list[str]:
    splitter = LineSplitter()
    lines = [line for piece in pieces for line in splitter.feed(piece)]
    return lines + splitter.flush()


class MessageEvent(NamedTuple):
    """An event's fields, to compare (httpx-sse's `ServerSentEvent` has no equality)."""

    event: str
    data: str
    id: str
    retry: int | None


def events_of(pieces: list[bytes]) -> list[MessageEvent]:
    """Bytes to events, decoded as a stream is: UTF-8 piece by piece, then lines, then events."""
    text = codecs.getincrementaldecoder("utf-8")()
    splitter, assembler = LineSplitter(), EventAssembler()
    events = []
    for piece in pieces:
        events += assembler.feed(splitter.feed(text.decode(piece)))
    events += assembler.feed(splitter.feed(text.decode(b"", final=True)) + splitter.flush())
    return [MessageEvent(e.event, e.data, e.id, e.retry) for e in events + assembler.close()]


def parse(text: str) -> list[MessageEvent]:
    return events_of([text.encode()])


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(data), *(c % (len(data) + 1) for c in cuts)})
    return [data[a:b] for a, b in pairwise(points)]


def decode_pieces(pieces: list[bytes]) -> list[Event]:
    decoder = BodyDecoder(SSE, think_tags=False)
    events = [event for piece in pieces for event in decoder.feed(piece)]
    return events + decoder.close()


def chunk(text: str) -> bytes:
    return json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}, ensure_ascii=False).encode()


# Lines


def test_lines_end_at_cr_lf_and_crlf_only() -> None:
    text = "a\rb\nc\r\nd\u2028e\x85f\x0bg\x0ch\x1ci\u2029j\r\r\n\n"
    assert lines_of([text]) == ["a", "b", "c", "d\u2028e\x85f\x0bg\x0ch\x1ci\u2029j", "", ""]


def test_cr_at_the_end_of_a_chunk_and_lf_at_the_start_of_the_next_are_one_line_end() -> None:
    assert lines_of(["a\r", "\nb\r", "\r", "\n", "c"]) == ["a", "b", "", "c"]


def test_a_cr_ends_its_line_without_waiting_for_the_next_chunk() -> None:
    assert LineSplitter().feed("data: x\r") == ["data: x"]


def test_a_line_in_many_pieces() -> None:
    assert lines_of(["da", "ta", ": ", "x", "\n", "y"]) == ["data: x", "y"]


# Fields and dispatch


def test_fields_comments_and_dispatch() -> None:
    text = ": keep-alive\nevent: add\ndata: 1\ndata:2\ndata\nid: 7\nretry: 1500\nunknown: field\n\n"
    assert parse(text) == [MessageEvent("add", "1\n2\n", "7", 1500)]


def test_only_one_space_after_the_colon_is_dropped() -> None:
    assert parse("data:  two\n\ndata:\tx\n\n") == [
        MessageEvent("message", " two", "", None),
        MessageEvent("message", "\tx", "", None),
    ]


def test_the_field_name_is_everything_before_the_first_colon() -> None:
    assert parse("data : ignored\nDATA: ignored\ndata: a:b: c\n\n") == [MessageEvent("message", "a:b: c", "", None)]


def test_a_blank_line_without_data_dispatches_nothing_and_forgets_the_event_type() -> None:
    assert parse("event: error\n\ndata: x\n\n") == [MessageEvent("message", "x", "", None)]


def test_an_empty_data_field_is_an_event_with_empty_data() -> None:
    assert parse("data\n\ndata:\n\n") == [MessageEvent("message", "", "", None)] * 2


def test_the_last_event_id_and_retry_carry_over_to_later_events() -> None:
    text = "id: 1\nretry: 10\n\ndata: a\n\nid\ndata: b\n\n"
    assert parse(text) == [MessageEvent("message", "a", "1", 10), MessageEvent("message", "b", "", 10)]


def test_an_id_with_nul_and_a_retry_of_anything_but_ascii_digits_are_ignored() -> None:
    text = "id: 5\nretry: 9\ndata: a\n\n" + "id: 6\0\nretry: 1x\nretry: -3\nretry: ١٢\nretry:\nretry:  4\ndata: b\n\n"
    assert parse(text)[1] == MessageEvent("message", "b", "5", 9)


def test_an_event_whose_blank_line_never_came_is_dispatched_at_the_end() -> None:
    assert parse("data: a\n\ndata: b") == [
        MessageEvent("message", "a", "", None),
        MessageEvent("message", "b", "", None),
    ]
    assert parse("event: x\n") == []


# Through the body decoder, as a streamed answer arrives


def test_a_byte_order_mark_before_the_first_event_is_skipped() -> None:
    body = BOM + b"data: " + chunk("hi") + b"\n\n"
    assert decode_all(body, SSE) == [Content("hi")]
    assert decode_pieces([BOM[:1], BOM[1:2], BOM[2:] + b"da", b"ta: " + chunk("hi") + b"\n\n"]) == [Content("hi")]


def test_an_event_ended_by_cr_comes_out_with_the_chunk_that_ends_it() -> None:
    decoder = BodyDecoder(SSE)
    assert decoder.feed(b"data: " + chunk("now") + b"\r\r") == [Content("now")]
    assert decoder.feed(b"\ndata: " + chunk("then") + b"\r\n\r\n") == [Content("then")]


# Any stream, any split


@dataclass
class Block:
    """One event's worth of lines, and what the standard says they mean."""

    lines: list[str] = field(default_factory=list)
    event: str = ""
    data: list[str] = field(default_factory=list)
    id: str | None = None
    retry: int | None = None


VALUE = st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=8)
"""A field's value: anything but a line end, multi-byte UTF-8, U+2028, U+0085, colons and NUL included."""


@st.composite
def field_line(draw: st.DrawFn, block: Block) -> None:
    kind = draw(st.sampled_from(["data", "data", "event", "id", "retry", "bad retry", "comment", "unknown"]))
    value = draw(VALUE)
    if kind == "data":
        block.data.append(value)
    elif kind == "event":
        block.event = value
    elif kind == "id":
        block.id = value if "\0" not in value else block.id
    elif kind == "retry":
        number = draw(st.integers(0, 10**6))
        block.retry, value = number, str(number)
    elif kind == "bad retry":
        kind, value = "retry", draw(st.sampled_from(["", "x", "1.5", "-2", " 3", "+4", "٣", "5 "]))
    elif kind == "comment":
        block.lines.append(":" + value)
        return
    else:
        kind = draw(st.sampled_from(["Data", "data ", "ID", "retry2", "eventdata"]))
    if value == "" and draw(st.booleans()):
        block.lines.append(kind)
    elif value.startswith(" ") or draw(st.booleans()):
        block.lines.append(f"{kind}: {value}")
    else:
        block.lines.append(f"{kind}:{value}")


@st.composite
def streams(draw: st.DrawFn) -> tuple[str, list[MessageEvent]]:
    """A stream of blocks with random line ends, and the events it holds."""
    lines: list[str] = []
    expected: list[MessageEvent] = []
    last_id, retry = "", None
    for _ in range(draw(st.integers(0, 6))):
        block = Block()
        for _ in range(draw(st.integers(0, 5))):
            draw(field_line(block))
        lines += [*block.lines, ""]
        last_id = block.id if block.id is not None else last_id
        retry = block.retry if block.retry is not None else retry
        if block.data:
            expected.append(MessageEvent(block.event or "message", "\n".join(block.data), last_id, retry))
    text, previous = "", ""
    for line in lines:
        ends = ["\r", "\r\n"] if previous == "\r" and not line else ["\n", "\r", "\r\n"]
        previous = draw(st.sampled_from(ends))
        text += line + previous
    return text, expected


@settings(max_examples=400, deadline=None)
@given(streams(), st.lists(st.integers(0, 10**9), max_size=30))
def test_any_stream_split_anywhere_gives_its_events(stream: tuple[str, list[MessageEvent]], cuts: list[int]) -> None:
    text, expected = stream
    data = text.encode()
    assert events_of([data]) == expected
    assert events_of(split_at(data, cuts)) == expected
    assert events_of([data[i : i + 1] for i in range(len(data))]) == expected


ANSWER = st.lists(st.text(st.characters(codec="utf-8"), min_size=1, max_size=6), max_size=8)
"""Pieces of an answer: any text, CR, LF, U+2028 and multi-byte UTF-8 included (JSON carries them)."""


@settings(max_examples=300, deadline=None)
@given(ANSWER, st.data())
def test_any_split_of_a_streamed_answer_gives_the_same_answer(pieces: list[str], data: st.DataObject) -> None:
    body = BOM if data.draw(st.booleans()) else b""
    for piece in pieces:
        end = data.draw(st.sampled_from([b"\n", b"\r", b"\r\n"]))
        extra = data.draw(st.sampled_from([b"", b": ping" + end, b"event: message" + end, b"id: 1" + end]))
        payload = chunk(piece)
        if data.draw(st.booleans()):  # the JSON over two data lines, which join with "\n"
            payload = payload.replace(b'{"index"', b'\ndata: {"index"', 1)
        body += extra + b"data: " + payload.replace(b"\n", end) + end + end
    whole = decode_all(body, SSE, think_tags=False)
    assert "".join(e.text for e in whole if isinstance(e, Content)) == "".join(pieces)
    reply = Reply()
    reply.extend(whole)
    assert reply.error is None
    cuts = data.draw(st.lists(st.integers(0, 10**9), max_size=30))
    assert decode_pieces(split_at(body, cuts)) == whole
