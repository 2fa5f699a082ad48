"""Server-sent events: text in, events out, by the parsing rules of the WHATWG HTML standard
("Server-sent events", "Interpreting an event stream").

Two incremental parts, so that any split of a stream into chunks gives the same lines and the same events:

- `LineSplitter` cuts text into lines. A line ends at CRLF, LF or CR, and nowhere else: U+2028, U+0085 and the
  other breaks `str.splitlines` knows are text inside a line. A CR that ends one chunk ends its line at once, and
  an LF that starts the next chunk is then the rest of that line end, not an empty line.
- `EventAssembler` turns lines into events: `event`, `data` (several joined with "\\n"), `id` and `retry` fields,
  comments ignored, a field without a colon has an empty value, one space after the colon is dropped, and an event
  is dispatched at a blank line if it has data.

Decoding the bytes (UTF-8, a leading byte order mark dropped) is left to the caller, which shares it with the
other line-based framing (NDJSON).

The events are httpx-sse's public `ServerSentEvent`, the type the rest of the httpx world reads; the parsing is
chatterm's own because it must be incremental over raw bytes whose arrival times are kept (a recording's pace),
which httpx-sse's `EventSource` (reading a response's text) does not offer.

One rule is relaxed on purpose: the standard drops an event whose blank line never came when the stream ends;
`EventAssembler.close` dispatches it, since a stream cut just before its last blank line still carries a whole
last chunk of the answer.
"""

from __future__ import annotations

from collections.abc import Iterable

from httpx_sse import ServerSentEvent


class LineSplitter:
    """Cuts incrementally arriving text into lines, without their line ends."""

    def __init__(self) -> None:
        self._head: list[str] = []
        """The line begun and not yet ended, in the pieces it came in."""
        self._after_cr = False
        """The last text ended with CR: an LF at the start of the next is part of that line end."""

    def feed(self, text: str) -> list[str]:
        """The lines that `text` ends."""
        if self._after_cr:
            self._after_cr = False
            if text[:1] == "\n":
                text = text[1:]
        if "\r" in text:
            self._after_cr = text[-1] == "\r"
            text = text.replace("\r\n", "\n").replace("\r", "\n")
        if "\n" not in text:
            if text:
                self._head.append(text)
            return []
        lines = text.split("\n")
        if self._head:
            self._head.append(lines[0])
            lines[0] = "".join(self._head)
            self._head.clear()
        last = lines.pop()
        if last:
            self._head.append(last)
        return lines

    def flush(self) -> list[str]:
        """The text ended: its last line, if it had no line end."""
        self._after_cr = False
        if not self._head:
            return []
        line = "".join(self._head)
        self._head.clear()
        return [line]


class EventAssembler:
    """Builds events from the lines of an event stream."""

    def __init__(self) -> None:
        self._event = ""
        self._data: list[str] = []
        self._id = ""
        self._retry: int | None = None

    def feed(self, lines: Iterable[str]) -> list[ServerSentEvent]:
        """The events that `lines` complete."""
        events: list[ServerSentEvent] = []
        for line in lines:
            if not line:
                if self._data:
                    events.append(self._dispatch())
                else:
                    self._event = ""
                continue
            name, colon, value = line.partition(":")
            if colon and value[:1] == " ":
                value = value[1:]
            if name == "data":
                self._data.append(value)
            elif name == "event":
                self._event = value
            elif name == "id":
                if "\0" not in value:
                    self._id = value
            elif name == "retry" and value.isascii() and value.isdigit():
                self._retry = int(value)
            # Anything else, a comment (an empty name) included, is ignored.
        return events

    def close(self) -> list[ServerSentEvent]:
        """The stream ended: the last event, if its blank line never came."""
        return [self._dispatch()] if self._data else []

    def _dispatch(self) -> ServerSentEvent:
        data = self._data[0] if len(self._data) == 1 else "\n".join(self._data)
        event = ServerSentEvent(self._event or "message", data, self._id, self._retry)
        self._event = ""
        self._data = []
        return event
