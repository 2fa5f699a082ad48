"""A recorded answer as it is played to a client of any API: its events at the times they were recorded, the whole
answer as `show --json` reports it, and how it ended.

`serve` answers in the shape the client asked for, whatever API the recording holds. So the recorded body is decoded
piece by piece, each piece at the time it arrived (`timing.schedule`), into chatterm's events, which a writer puts in
the words of the API asked for (`openai_shape` for chat completions; a writer for another API sits beside it and
reads the same timeline). The events are those `show` folds into the answer, decoded by the same decoder, so every
client receives what `show --json` reports.

How the answer ended decides how the client's answer ends:

- ANSWERED: whole (a token limit or a filter is a finish reason, not an error);
- HTTP_ERROR: the provider answered with an error status;
- ERROR: the body ended in an error: one the provider sent inside it, or one chatterm found in it (an HTML page, no
  answer at all, a document that is not one);
- CUT: the body stopped before the provider said it was done (the connection lost, a read timeout, a stop);
- NO_ANSWER: the request got no response at all (refused, no headers before the timeout).
"""

from __future__ import annotations

from dataclasses import dataclass

from chatterm.cassette.model import Interaction
from chatterm.cassette.summary import reply_of
from chatterm.cassette.timing import schedule
from chatterm.conversation.reply import Reply
from chatterm.decode.body import BodyDecoder, body_kind
from chatterm.events import Event, StreamError, StreamWarning

ANSWERED, HTTP_ERROR, ERROR, CUT, NO_ANSWER = "answered", "http-error", "error", "cut", "no-answer"
FOUND = frozenset({"empty", "unreadable", "unsupported", "html"})
"""Kinds of error chatterm finds in a body that is no answer, rather than one the provider said."""


@dataclass
class Timeline:
    steps: list[tuple[float, list[Event]]]
    """The answer's events (no warnings, no errors: `ending` says how it ended), each batch at its recorded time in
    seconds from the request."""
    reply: Reply
    """The whole answer, as `show --json` reports it."""
    ending: str
    end: float
    """When the recorded body ended, in seconds from the request."""

    @property
    def error(self) -> StreamError | None:
        return self.reply.error


def timeline(interaction: Interaction) -> Timeline:
    """The recorded answer of `interaction`, ready to be played in any API's shape."""
    response = interaction.response
    reply = reply_of(interaction)
    pieces = schedule(response)
    end = pieces[-1][0] if pieces else 0.0
    if response.status is None and not response.body and response.error is not None:
        return Timeline([], reply, NO_ANSWER, end)
    if (response.status or 200) >= 400:
        return Timeline([], reply, HTTP_ERROR, end)
    decoder = BodyDecoder(body_kind(response.content_type, response.body[:64]))
    decoded = [(at, decoder.feed(piece)) for at, piece in pieces] or [(end, [])]
    decoded[-1][1].extend(decoder.close())
    sent_error = any(isinstance(event, StreamError) for _, events in decoded for event in events)
    verdict = decoder.verdict()
    steps: list[tuple[float, list[Event]]] = [
        (at, [e for e in events if not isinstance(e, (StreamError, StreamWarning))]) for at, events in decoded
    ]
    if reply.error is None:
        ending = ANSWERED
    elif sent_error or reply.error.kind in FOUND or (verdict is not None and verdict.kind in FOUND):
        ending = ERROR
    else:
        ending = CUT
    return Timeline(steps, reply, ending, end)
