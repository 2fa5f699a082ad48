"""A recorded answer decoded exactly as the live client decoded it when it streamed."""

from __future__ import annotations

from chatterm.cassette.exchange import not_an_answer
from chatterm.cassette.model import Interaction
from chatterm.conversation.reply import Reply
from chatterm.decode.body import BodyDecoder, body_kind
from chatterm.decode.errors import http_error
from chatterm.events import StreamError


def reply_of(interaction: Interaction, think_tags: bool = True) -> Reply:
    """Decode a recorded response exactly as the live client would have."""
    response = interaction.response
    reply = Reply(status=response.status)
    decoder = None
    if response.status is not None and response.status >= 400:
        reply.add(http_error(response.status, response.body, response.reason))
    else:
        decoder = BodyDecoder(body_kind(response.content_type, response.body[:64]), think_tags=think_tags)
        reply.extend([*decoder.feed(response.body), *decoder.close()])
    if response.error and reply.error is None:
        status = response.error.get("status")
        reply.add(
            StreamError(
                status=status if isinstance(status, int) else None, message=str(response.error.get("message") or "")
            )
        )
    if interaction.note and reply.error is None and not reply.content and not reply.reasoning:
        reply.add(StreamError(status=None, message=interaction.note, kind="unsupported"))
    verdict = decoder.verdict() if decoder is not None and reply.error is None else None
    if verdict is not None and verdict.kind in ("empty", "unreadable"):
        what = not_an_answer(response)
        if what is not None:
            verdict = StreamError(status=None, message=f"the response is {what}, not a chat answer", kind="unsupported")
    if verdict is not None:
        reply.add(verdict)  # (after the recorded error: what the live client knew when it ended is more precise)
    if reply.model is None and interaction.request is not None:
        reply.model = interaction.request.model
    return reply
