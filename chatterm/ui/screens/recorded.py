"""What a recorded turn puts on screen beside its answer, and its answer drawn whole: its prompts and tool results
(each under the call it answers), its calls as a live answer shows them, the model that gave its answer. Kept apart
from the chat screen, which plays turns, not reads them.

A recording shown at once and the turns "Load earlier turns" puts back are drawn by the same functions, from the
turns the screen keeps (`ExportTurn`: what each request added, the answer and its calls), so both look alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from textual.widget import Widget

from chatterm.conversation.export import ExportTurn
from chatterm.conversation.reply import Reply
from chatterm.events import ToolCallDelta
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage
from chatterm.ui.widgets.tools import ToolCallBlock, place

if TYPE_CHECKING:
    from chatterm.cassette.model import Interaction, Recording


def messages_of(interaction: Interaction) -> list[Any]:
    return interaction.request.messages if interaction.request is not None else []


def opening(turn: ExportTurn, shown: list[ToolCallBlock]) -> list[Widget]:
    """The widgets a turn opens with: its prompts, and calls not on screen yet; its results go under the calls `shown`
    (those of the answer above) where they answer one (`place`)."""
    return [UserMessage(item) if isinstance(item, str) else item for item in place(turn.steps(), shown)]


def recorded_answer(turn: ExportTurn, show_reasoning: bool) -> AssistantMessage:
    """A turn's answer, whole: reasoning (titled with how long it took), text and calls; its notice and reasoning
    tokens are given when it is finished."""
    message = AssistantMessage(show_reasoning=show_reasoning, timed=False)
    if turn.reasoning:
        message.recorded_thinking = turn.thought
        message.add_reasoning(turn.reasoning)
    message.add_answer(turn.answer)
    for index, call in enumerate(turn.calls):
        message.add_tool_call(ToolCallDelta(index, call.id, call.name, call.arguments))
    return message


def rebuilt(turns: list[ExportTurn], show_reasoning: bool) -> tuple[list[Widget], list[AssistantMessage]]:
    """The widgets of consecutive turns, each result under its call, and their answers (to finish once mounted)."""
    widgets: list[Widget] = []
    answers: list[AssistantMessage] = []
    shown: list[ToolCallBlock] = []
    for turn in turns:
        widgets += opening(turn, shown)
        message = recorded_answer(turn, show_reasoning)
        widgets.append(message)
        answers.append(message)
        shown = message.tools.blocks
    return widgets, answers


def answered_by(interaction: Interaction, reply: Reply | None) -> str | None:
    """The model a recorded answer came from: the provider's word, else chatterm's note, else the one asked for."""
    noted = interaction.meta.get("model")
    asked = interaction.request.model if interaction.request else None
    return (reply.model if reply else None) or (noted if isinstance(noted, str) else None) or asked


def export_turns(recording: Recording) -> list[ExportTurn]:
    """The turns of a recording's active branch, for the export and for "Load earlier turns"."""
    from chatterm.cassette.transcript import recorded_turns

    return recorded_turns(recording)
