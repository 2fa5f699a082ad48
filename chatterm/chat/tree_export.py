"""A session's whole conversation tree as Markdown (`export_tree`): every branch, each turn as the active branch's
export writes it (`ExportTurn`, from the turn's recorded request and answer)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatterm.cassette.transcript import answered, messages_of, opened_turn
from chatterm.conversation.export import ExportTurn
from chatterm.conversation.export_tree import tree_to_markdown
from chatterm.conversation.tree import Turn

if TYPE_CHECKING:
    from chatterm.chat.session import ChatSession

TITLE = "chatterm conversation tree"


def tree_markdown(session: ChatSession) -> str:
    """Every branch of the session's conversation, the active one open (`export_tree`)."""

    def write(turn: Turn, above: Turn | None) -> ExportTurn:
        earlier = messages_of(session.exchange(above.id)) if above is not None else []
        shown = opened_turn(session.exchange(turn.id), earlier)
        shown.prompt = session.prompt_of(turn)
        return answered(shown, session.answer_of(turn))

    return tree_to_markdown(session.tree, write, TITLE)
