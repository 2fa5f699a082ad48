"""A recording's turns as the conversation shows them (`ExportTurn`): for the export, and for turns put back on
screen after they left it.

Each turn keeps what its request adds to the one before it (its prompt, the tool results it sends back, calls only its
history holds) and its answer with the answer's tool calls, so that a result can go under the call it answers wherever
the turn is drawn or written again.
"""

from __future__ import annotations

from typing import Any

from chatterm.cassette.branches import active_turns
from chatterm.cassette.model import Interaction, Recording, Response
from chatterm.cassette.summary import reply_of
from chatterm.cassette.timing import thinking_time
from chatterm.conversation.continuation import joined
from chatterm.conversation.export import ExportTurn
from chatterm.conversation.reply import Reply
from chatterm.conversation.steps import Prompt, answer_calls, turn_steps

NO_REQUEST = "(no request recorded)"


def opened_turn(interaction: Interaction, earlier: list[Any]) -> ExportTurn:
    """A recorded turn before its answer: what its request adds to the previous turn's (`earlier`)."""
    if interaction.request is None:
        return ExportTurn(NO_REQUEST)
    steps = turn_steps(interaction.request.messages, earlier)
    prompts = [step.text for step in steps if isinstance(step, Prompt)]
    return ExportTurn("\n\n".join(prompts), opening=steps)


def answered(turn: ExportTurn, reply: Reply, response: Response | None = None) -> ExportTurn:
    """`turn` with the recorded answer: its text, reasoning and calls, what the user was told of its end, and how long
    the model reasoned (timed from `response`, the first exchange's)."""
    turn.answer, turn.reasoning, turn.calls = reply.content, reply.reasoning, answer_calls(reply)
    turn.notice = reply.error.message if reply.error else reply.finish_notice
    turn.reasoning_tokens = reply.usage.reasoning_tokens if reply.usage else None
    turn.thought = thinking_time(response) if reply.reasoning and response is not None else None
    return turn


def recorded_turns(recording: Recording) -> list[ExportTurn]:
    """Every turn of a recording's active branch, each as the attempt that answered it, a cut-short answer joined
    with its continuations."""
    turns = []
    earlier: list[Any] = []
    for exchanges in active_turns(recording):
        turns.append(answered(opened_turn(exchanges[0], earlier), turn_reply(exchanges), exchanges[0].response))
        earlier = messages_of(exchanges[0])
    return turns


def turn_reply(exchanges: list[Interaction]) -> Reply:
    """The answer of a turn's exchanges (`active_turns`): a cut-short answer joined with its continuations."""
    return joined([reply_of(interaction) for interaction in exchanges])


def messages_of(interaction: Interaction) -> list[Any]:
    return interaction.request.messages if interaction.request is not None else []
