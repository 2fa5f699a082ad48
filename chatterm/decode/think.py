"""Separate inline `<think>...</think>` reasoning from answer text, however the tags are split.

Models served without a reasoning parser (vLLM, llama.cpp, some Ollama builds) put their thinking inline
in `content`. The splitter is incremental: tags may arrive split across any number of chunks, and the
joined reasoning and answer are the same for every way of splitting the input.

Only a `<think>` that comes before any answer text opens a reasoning block, so an answer that talks about
the tag is left alone. Whitespace between `</think>` and the answer is dropped.
"""

from __future__ import annotations

from chatterm.events import Content, Event, Reasoning

OPEN = "<think>"
CLOSE = "</think>"

_START, _INSIDE, _AFTER, _ANSWER = range(4)


def _partial_suffix(text: str, tag: str) -> int:
    """Length of the longest suffix of `text` that is a proper prefix of `tag`."""
    for size in range(min(len(text), len(tag) - 1), 0, -1):
        if tag.startswith(text[-size:]):
            return size
    return 0


class ThinkSplitter:
    """Feed answer text in; get (reasoning, content) pieces out."""

    def __init__(self) -> None:
        self._state = _START
        self._buffer = ""

    def feed(self, text: str) -> tuple[str, str]:
        """Return the reasoning and content that `text` completes (either may be empty)."""
        if self._state == _ANSWER:
            return "", text
        self._buffer += text
        reasoning: list[str] = []
        content: list[str] = []
        while self._buffer:
            if self._state == _START:
                stripped = self._buffer.lstrip()
                if stripped.startswith(OPEN):
                    self._buffer = stripped[len(OPEN) :]
                    self._state = _INSIDE
                    continue
                if not stripped or OPEN.startswith(stripped):
                    break  # still could be the opening tag
                self._state = _ANSWER
                content.append(self._buffer)
                self._buffer = ""
            elif self._state == _INSIDE:
                end = self._buffer.find(CLOSE)
                if end >= 0:
                    reasoning.append(self._buffer[:end])
                    self._buffer = self._buffer[end + len(CLOSE) :]
                    self._state = _AFTER
                    continue
                keep = _partial_suffix(self._buffer, CLOSE)
                reasoning.append(self._buffer[: len(self._buffer) - keep])
                self._buffer = self._buffer[len(self._buffer) - keep :]
                break
            elif self._state == _AFTER:
                stripped = self._buffer.lstrip()
                self._buffer = ""
                if stripped:
                    self._state = _ANSWER
                    content.append(stripped)
            else:
                content.append(self._buffer)
                self._buffer = ""
        return "".join(reasoning), "".join(content)

    def flush(self) -> tuple[str, str]:
        """End of the answer: whatever is held back is released."""
        held, self._buffer = self._buffer, ""
        if self._state == _INSIDE:
            return held, ""
        if self._state == _START:
            return "", held
        return "", ""


def split_events(pieces: tuple[str, str]) -> list[Event]:
    """The (reasoning, content) pair a splitter returns, as events (empty pieces dropped)."""
    reasoning, content = pieces
    events: list[Event] = []
    if reasoning:
        events.append(Reasoning(reasoning))
    if content:
        events.append(Content(content))
    return events
