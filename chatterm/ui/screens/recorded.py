"""What a recorded turn puts on screen and in the export beside its answer: its prompt and tool results, its
export entry, the model that gave its answer. Kept apart from the chat screen, which plays turns, not reads them."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from chatterm.conversation.export import ExportTurn
from chatterm.conversation.reply import Reply
from chatterm.ui.widgets.messages import UserMessage
from chatterm.ui.widgets.tools import ToolCallBlock, place

if TYPE_CHECKING:
    from chatterm.cassette.model import Interaction, Recording


def messages_of(interaction: Interaction) -> list[Any]:
    return interaction.request.messages if interaction.request is not None else []


def opening(interaction: Interaction, earlier: list[Any], shown: list[ToolCallBlock]) -> list[Widget]:
    """The widgets a recorded turn opens with (its prompt, calls not on screen yet); its results go under the calls
    `shown` (those of the answer above) where they answer one (`place`)."""
    from chatterm.conversation.steps import turn_steps

    if interaction.request is None:
        return [UserMessage("(no request recorded)")]
    placed = place(turn_steps(messages_of(interaction), earlier), shown)
    return [UserMessage(item) if isinstance(item, str) else item for item in placed]


def export_turn(interaction: Interaction, reply: Reply) -> ExportTurn:
    from chatterm.chat.session import user_text

    notice = reply.error.message if reply.error else reply.finish_notice
    return ExportTurn(user_text(interaction), reply.content, reply.reasoning, notice)


def answered_by(interaction: Interaction, reply: Reply | None) -> str | None:
    """The model a recorded answer came from: the provider's word, else chatterm's note, else the one asked for."""
    noted = interaction.meta.get("model")
    asked = interaction.request.model if interaction.request else None
    return (reply.model if reply else None) or (noted if isinstance(noted, str) else None) or asked


def export_turns(recording: Recording) -> list[ExportTurn]:
    from chatterm.cassette.branches import active_answers
    from chatterm.cassette.summary import reply_of

    return [export_turn(interaction, reply_of(interaction)) for interaction in active_answers(recording).interactions]
