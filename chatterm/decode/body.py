"""One incremental decoder for every response body chatterm understands.

Bytes go in as they arrive from the network (or from a recording), events come out. The same code runs
for a live stream, `show`, replay and `serve`, so a recording shows exactly what the live stream showed.
Any split of the bytes into chunks gives the same events.
"""

from __future__ import annotations

import base64
import codecs
import struct
from typing import Any

from httpx_sse import ServerSentEvent

from chatterm.decode.anthropic import AnthropicDecoder, is_anthropic
from chatterm.decode.ending import HTML_PAGE, UNREADABLE, Ending, is_markup
from chatterm.decode.errors import is_error_payload, stream_error
from chatterm.decode.eventstream import EventStreamError, FrameDecoder
from chatterm.decode.gemini import GeminiDecoder, is_gemini
from chatterm.decode.ollama import OllamaDecoder, is_ollama
from chatterm.decode.openai import OpenAIDecoder
from chatterm.decode.responses import ResponsesDecoder, is_responses
from chatterm.decode.safejson import MAX_DEPTH, TooDeep, loads
from chatterm.decode.sse import EventAssembler, LineSplitter
from chatterm.events import Event, StreamError, StreamWarning

SNIFF = 16
"""Bytes (past leading blanks) that tell a page from JSON or a stream."""
MAX_LINE = 16 * 1024 * 1024
"""The longest line (or whole JSON body) accepted; past it the answer ends with an error."""

SSE, NDJSON, JSON, EVENTSTREAM, HTML = "sse", "ndjson", "json", "eventstream", "html"
TOO_DEEP = StreamWarning(f"skipped a chunk nested more than {MAX_DEPTH} levels deep")


def body_kind(content_type: str | None, head: bytes = b"") -> str:
    """Which framing a body uses, from its Content-Type, or from its first bytes when that says nothing."""
    kind = (content_type or "").split(";")[0].strip().lower()
    if kind == "text/event-stream":
        return SSE
    if kind in ("application/x-ndjson", "application/jsonl", "application/ndjson"):
        return NDJSON
    if kind == "application/vnd.amazon.eventstream":
        return EVENTSTREAM
    if kind.endswith("json"):
        return JSON
    if kind in ("text/html", "application/xhtml+xml"):
        return HTML
    start = head.lstrip()[:6]
    if start.startswith((b"data:", b"event:", b":", b"id:", b"retry:")):
        return SSE
    return JSON


class BodyDecoder:
    """Decodes one response body.

    Args:
        kind: the framing (see `body_kind`).
        think_tags: split inline `<think>` reasoning out of the answer text.
    """

    def __init__(self, kind: str, think_tags: bool = True) -> None:
        self.kind = kind
        self.done = False
        """True once the stream said it ended (`[DONE]`, an error event): what follows is not read."""
        self.ending = Ending()
        self._openai = OpenAIDecoder(think_tags=think_tags)
        self._anthropic = AnthropicDecoder()
        self._gemini = GeminiDecoder()
        self._responses = ResponsesDecoder()
        self._ollama = OllamaDecoder(think_tags=think_tags)
        self._text = codecs.getincrementaldecoder("utf-8-sig")("replace")
        """UTF-8 with a leading byte order mark dropped, as the event-stream standard decodes."""
        self._lines = LineSplitter()
        self._sse = EventAssembler()
        self._frames = FrameDecoder()
        self._pending = 0
        self._whole: list[bytes] = []
        self._failed = False
        self._sniffed = kind == EVENTSTREAM
        self._head = b""
        """The first bytes, held until there are enough of them to tell what the body is."""

    def feed(self, data: bytes) -> list[Event]:
        """Events completed by `data`."""
        return self.ending.watch(self._feed(data))

    def close(self) -> list[Event]:
        """The body ended: release what is held back."""
        return self.ending.watch(self._close())

    def verdict(self) -> StreamError | None:
        """After `close`: the error of an answer that ended without the provider saying so, or empty (else None)."""
        return self.ending.verdict()

    def _feed(self, data: bytes) -> list[Event]:
        if self._failed or not data:
            return []
        if data.strip():
            self.ending.received = True
        if self.kind == EVENTSTREAM:
            return self._feed_frames(data)
        if not self._sniffed:
            self._head += data
            if len(self._head.lstrip(b" \t\r\n\xef\xbb\xbf")) < SNIFF:
                return []  # (held: what the body is, is told from its first bytes however they were split)
            data, self._head = self._head, b""
            if self._sniff(data):
                return self._fail(HTML_PAGE, "html")
        return self._take(data)

    def _sniff(self, head: bytes) -> bool:
        """Tell the framing from the body's first bytes; True for an HTML page."""
        self._sniffed = True
        if is_markup(head):
            self.done = True
            return True
        if self.kind == HTML:
            self.kind = body_kind(None, head)  # announced as a page, but it is not one
        elif self.kind == SSE and head.lstrip()[:1] in (b"{", b"["):
            self.kind = JSON  # a whole JSON document where a stream was announced
        return False

    def _take(self, data: bytes) -> list[Event]:
        if self.kind in (JSON, HTML):
            self._pending += len(data)
            if self._pending > MAX_LINE:
                return self._fail(f"the response body is larger than {MAX_LINE // (1024 * 1024)} MiB")
            self._whole.append(data)
            return []
        newline = max(data.rfind(b"\n"), data.rfind(b"\r"))
        self._pending = len(data) - newline - 1 if newline >= 0 else self._pending + len(data)
        if self._pending > MAX_LINE:
            return self._fail(f"a line of the stream is longer than {MAX_LINE // (1024 * 1024)} MiB")
        return self._lines_to_events(self._lines.feed(self._text.decode(data)))

    def _close(self) -> list[Event]:
        events: list[Event] = []
        if not self._sniffed and self._head and not self._failed:
            head, self._head = self._head, b""
            events = self._fail(HTML_PAGE, "html") if self._sniff(head) else self._take(head)
        if self._failed:
            return events
        if self.kind in (JSON, HTML):
            events.extend(self._whole_body(b"".join(self._whole)))
        elif self.kind == EVENTSTREAM:
            if self._frames.pending:
                events.append(StreamWarning(f"{self._frames.pending} bytes after the last event-stream frame"))
        else:
            lines = self._lines.feed(self._text.decode(b"", final=True)) + self._lines.flush()
            events.extend(self._lines_to_events(lines, end=True))
        events.extend(self._openai.finish())
        events.extend(self._ollama.finish())
        return events

    def _fail(self, message: str, kind: str = "stream") -> list[Event]:
        self._failed = True
        return [*self._openai.finish(), StreamError(status=None, message=message, kind=kind)]

    def _lines_to_events(self, lines: list[str], end: bool = False) -> list[Event]:
        if self.kind == NDJSON:
            return self._ndjson_events(lines)
        messages = self._sse.feed(lines)
        if end:
            messages += self._sse.close()
        return self._sse_events(messages) if messages else []

    def _ndjson_events(self, lines: list[str]) -> list[Event]:
        events: list[Event] = []
        for line in lines:
            if self.done:
                break
            if line.strip():
                events.extend(self._json_text(line))
        return events

    def _sse_events(self, messages: list[ServerSentEvent]) -> list[Event]:
        events: list[Event] = []
        for sse in messages:
            if self.done:
                break
            data = sse.data
            if sse.event == "error":
                events.extend(self._openai.finish())
                try:
                    events.append(stream_error(_loads_or_text(data)))
                except TooDeep:
                    events.append(stream_error(None))
                self.done = True
            elif data.strip() == "[DONE]":
                self.done = True
                self.ending.said_end = True
            elif data.strip():
                events.extend(self._json_text(data))
        return events

    def _json_text(self, text: str) -> list[Event]:
        try:
            payload = loads(text)
        except TooDeep:
            return [TOO_DEEP]
        except ValueError:
            preview = text if len(text) <= 60 else text[:57] + "..."
            return [StreamWarning(f"skipped a malformed chunk: {preview!r}")]
        return self.payload(payload)

    def payload(self, payload: Any) -> list[Event]:
        """Events of one decoded JSON object, whichever provider's shape it has."""
        if isinstance(payload, list):
            return [event for item in payload for event in self.payload(item)]
        if not isinstance(payload, dict):
            return [StreamWarning(f"skipped a chunk that is not an object: {str(payload)[:40]!r}")]
        if is_responses(payload):
            events = self._responses.event(payload)
        elif is_anthropic(payload):
            events = self._anthropic.event(payload)
            if payload.get("type") == "message_stop":
                self.ending.said_end = True
        elif is_gemini(payload):
            events = self._gemini.chunk(payload)
        elif is_ollama(payload):
            events = self._ollama.line(payload)
        else:
            events = self._openai.chunk(payload)
        if is_error_payload(payload):
            self.done = True
        return events

    def _whole_body(self, body: bytes) -> list[Event]:
        text = body.decode("utf-8", "replace")
        if not text.strip():
            return []
        try:
            document = loads(text)
        except TooDeep:
            return [StreamWarning(f"skipped the response body: nested more than {MAX_DEPTH} levels deep")]
        except ValueError:
            pass
        else:
            self.ending.said_end = True  # a whole document: nothing of it is missing
            return self.payload(document)
        # Not one JSON document: perhaps an SSE or NDJSON body sent with the wrong Content-Type.
        self.kind = SSE if body_kind(None, body) == SSE else NDJSON
        events = self._lines_to_events(self._lines.feed(text) + self._lines.flush(), end=True)
        return events or self._fail(UNREADABLE, "unreadable")

    def _feed_frames(self, data: bytes) -> list[Event]:
        try:
            frames = self._frames.feed(data)
        except (EventStreamError, struct.error, IndexError) as exc:
            return self._fail(str(exc) if isinstance(exc, EventStreamError) else "a malformed event-stream frame")
        events: list[Event] = []
        for frame in frames:
            exception = frame.headers.get(":message-type") == "exception"
            try:
                payload = _loads_or_text(frame.payload.decode("utf-8", "replace"))
                if not exception and isinstance(payload, dict) and isinstance(payload.get("bytes"), str):
                    payload = loads(base64.b64decode(payload["bytes"]))
            except TooDeep:
                if not exception:
                    events.append(TOO_DEEP)
                    continue
                payload = None
            except ValueError:
                events.append(StreamWarning("skipped an event-stream frame that is not base64 JSON"))
                continue
            if exception:
                kind = frame.headers.get(":exception-type", "exception")
                events.append(stream_error({"error": {"type": kind, "message": _words(payload) or kind}}))
                self.done = True
                continue
            events.extend(self.payload(payload))
        return events


def _loads_or_text(text: str) -> Any:
    """The JSON in `text`, or `text` when it is not JSON; TooDeep when it is nested too deeply to be read."""
    try:
        return loads(text)
    except TooDeep:
        raise
    except ValueError:
        return text


def _words(payload: Any) -> str | None:
    if isinstance(payload, dict) and isinstance(payload.get("message"), str):
        return str(payload["message"])
    return payload if isinstance(payload, str) else None


def decode_all(body: bytes, kind: str, think_tags: bool = True) -> list[Event]:
    """Every event of a whole body."""
    decoder = BodyDecoder(kind, think_tags=think_tags)
    return [*decoder.feed(body), *decoder.close()]
