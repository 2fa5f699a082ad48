"""A chat session's conversation tree with what each exchange asked and answered, and the messages of a branch.

`Branches` keeps, for each exchange of the tree, the recorded interaction, the messages its request was built from
(the system prompt aside: it is the session's) and its answer. The history a request continues from is built from
the branch, not kept apart from it: after an exchange comes what it asked and its answer (a cut-short answer joined
with its continuations), so switching branch, editing, regenerating and continuing each need only say which
exchange they start from. Exchanges read from a recording get their messages and answers from it when first asked.
"""

from __future__ import annotations

from typing import Any

from chatterm.cassette.branches import RecordedTree, note
from chatterm.cassette.model import Interaction
from chatterm.cassette.native_api import turn_api
from chatterm.cassette.summary import reply_of
from chatterm.conversation.continuation import joined
from chatterm.conversation.native_history import History, history_of
from chatterm.conversation.reply import Reply
from chatterm.conversation.tree import ConversationTree, Node, Turn


class Branches:
    """The tree of a session's exchanges (`tree`), and their messages and answers."""

    def __init__(self) -> None:
        self.tree = ConversationTree()
        self.exchanges: dict[str, Interaction] = {}
        self._sent: dict[str, list[dict[str, Any]]] = {}
        self._answers: dict[str, Reply] = {}
        self._top = 0
        """The highest number used as an id: a new exchange gets the next."""

    def new_id(self) -> str:
        self._top += 1
        return str(self._top)

    def add(self, interaction: Interaction, node: Node, sent: list[dict[str, Any]]) -> None:
        """A new exchange, noted in its interaction and made the active leaf; `sent`: the messages it asked."""
        note(interaction, node)
        self.tree.add(node)
        self.exchanges[node.id] = interaction
        self._sent[node.id] = list(sent)

    def drop(self, node_id: str) -> None:
        """Take out an exchange that was replaced before anything hung under it (an attempt that was retried)."""
        self.tree.remove(node_id)
        del self.exchanges[node_id]
        self._sent.pop(node_id, None)
        self._answers.pop(node_id, None)

    def answered(self, node_id: str, reply: Reply) -> None:
        self._answers[node_id] = reply

    def adopt(self, recorded: RecordedTree) -> None:
        """Take a recording's tree as this session's (which has none yet); each exchange's place is noted in it, so
        the session file keeps the tree even where the recording only implied it."""
        self.tree = recorded.tree
        self.exchanges = dict(recorded.exchanges)
        for node_id, interaction in self.exchanges.items():
            note(interaction, self.tree.nodes[node_id])
            if node_id.isdigit():
                self._top = max(self._top, int(node_id))

    def sent(self, node_id: str) -> list[dict[str, Any]]:
        """The messages (no system prompt) exchange `node_id` asked with."""
        if node_id not in self._sent:
            self._sent[node_id] = recorded_messages(self.exchanges[node_id])
        return list(self._sent[node_id])

    def reply(self, node_id: str) -> Reply:
        """The answer of exchange `node_id` alone."""
        if node_id not in self._answers:
            self._answers[node_id] = reply_of(self.exchanges[node_id])
        return self._answers[node_id]

    def chain(self, node_id: str) -> list[str]:
        """The exchanges whose answers read as one up to `node_id`: the one that asked, then its continuations."""
        chain = [node_id]
        while (continues := self.tree.nodes[chain[0]].continues) is not None:
            chain.insert(0, continues)
        return chain

    def answer(self, node_id: str) -> Reply:
        """The answer as read up to `node_id`: a cut-short answer joined with its continuations."""
        return joined([self.reply(part) for part in self.chain(node_id)])

    def turn_answer(self, turn: Turn) -> Reply:
        return self.answer(turn.last)

    def history(self, node_id: str | None, include_reasoning: bool = False) -> list[dict[str, Any]]:
        """The messages (no system prompt) a prompt after exchange `node_id` follows (None: a first prompt)."""
        if node_id is None:
            return []
        asked = self.sent(self.chain(node_id)[0])
        reply = self.answer(node_id)
        if reply.content or reply.tool_calls:  # (error notices never reach the history; a partial answer does)
            asked.append(reply.as_message(include_reasoning))
        return asked


def recorded_messages(interaction: Interaction) -> list[dict[str, Any]]:
    """The messages of a recorded request but its system prompt, read in the words of its API (`native_history`);
    an empty list when it holds none."""
    history = _history(interaction)
    return [m for m in history[1] if m.get("role") != "system"] if history is not None else []


def recorded_system(interaction: Interaction) -> str | None:
    """The system prompt of a recorded request, None when it has none."""
    history = _history(interaction)
    if history is None:
        return None
    system, messages = history
    said = [m for m in messages if m.get("role") == "system"]
    return system or (str(said[0].get("content")) if said else None)


def _history(interaction: Interaction) -> History | None:
    return history_of(turn_api(interaction), interaction.request.json() if interaction.request else None)
