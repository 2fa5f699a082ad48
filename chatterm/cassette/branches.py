"""The conversation tree a recording holds, and its active branch.

A turn of the tree is the exchange that answered it (the attempts a retry superseded go with it, as in
`exchange.turns`). chatterm notes each exchange's place in `meta` (`x_chatterm` in a cassette): its `id`, its
`parent` (the exchange whose answer its prompt followed, None for a first prompt) and, for the continuation of a
cut-short answer, `continues`. A recording that does not say (another tool's, or an exchange noted before this was
kept) gets its place from its requests (`lineage`), and an id from its place in the file (the first interaction
is "1"). The active branch is the newest exchange's, unless a switch recorded after it (`Recording.switches`)
chose another: the exchanges and switches, taken in order, make the tree exactly as the session left it, down to
which branch each switch brings back.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chatterm.cassette.decoded import reply_of
from chatterm.cassette.exchange import turns
from chatterm.cassette.lineage import Lineage
from chatterm.cassette.model import Interaction, Recording
from chatterm.conversation.tree import ConversationTree, Node

ID = "id"
PARENT = "parent"
CONTINUES = "continues"


@dataclass
class RecordedTree:
    """A recording's tree: the tree of ids, and the exchanges that answered each turn (with the attempts retried
    before it)."""

    tree: ConversationTree = field(default_factory=ConversationTree)
    exchanges: dict[str, Interaction] = field(default_factory=dict)
    attempts: dict[str, list[Interaction]] = field(default_factory=dict)
    """Each turn's attempts, the answering one last."""

    def active(self) -> list[Interaction]:
        """The exchanges of the active branch, root first (a continuation after the exchange it continues)."""
        return [self.exchanges[node_id] for node_id in self.tree.branch()]

    def active_turns(self) -> list[list[Interaction]]:
        """The active branch as its turns show: each the exchange that asked, then those that continued its answer."""
        return [[self.exchanges[node_id] for node_id in turn.ids] for turn in self.tree.turns()]


def note(interaction: Interaction, node: Node) -> None:
    """Write an exchange's place in the tree into its notes (first among them, as a session file shows them)."""
    place: dict[str, Any] = {ID: node.id, PARENT: node.parent}
    if node.continues is not None:
        place[CONTINUES] = node.continues
    rest = {key: value for key, value in interaction.meta.items() if key not in (ID, PARENT, CONTINUES)}
    interaction.meta.clear()
    interaction.meta.update({**place, **rest})


def recorded_tree(recording: Recording) -> RecordedTree:
    """The tree of a recording, its active branch as the recording left it."""
    result = RecordedTree()
    position = {id(interaction): number for number, interaction in enumerate(recording.interactions, start=1)}
    grouped = turns(recording.interactions)
    lineage = None  # (told from the requests only when an exchange does not say where it hangs)
    if any(PARENT not in attempts[-1].meta for attempts in grouped):
        lineage = Lineage(lambda node_id: reply_of(result.exchanges[node_id]).content)
    switches = sorted(recording.switches, key=lambda switch: switch.after)
    pending = 0
    for attempts in grouped:
        answered = attempts[-1]
        at = position[id(answered)]
        while pending < len(switches) and switches[pending].after < at:
            _switch(result.tree, switches[pending].to)
            pending += 1
        node_id = _id_of(answered.meta, at, result.tree)
        derived = None
        if lineage is not None:
            derived = lineage.parent(node_id, answered.request.messages if answered.request is not None else [])
        parent = answered.meta.get(PARENT, derived)
        if parent is not None and (not isinstance(parent, str) or parent not in result.tree):
            parent = derived
        continues = answered.meta.get(CONTINUES)
        result.tree.add(Node(node_id, parent, continues if continues == parent and parent is not None else None))
        result.exchanges[node_id] = answered
        result.attempts[node_id] = attempts
    for switch in switches[pending:]:
        _switch(result.tree, switch.to)
    return result


def _id_of(meta: dict[str, Any], at: int, tree: ConversationTree) -> str:
    """The exchange's recorded id when it has one no other has, else its place in the file."""
    recorded = meta.get(ID)
    if isinstance(recorded, (str, int)) and not isinstance(recorded, bool) and str(recorded) not in tree:
        return str(recorded)
    candidate = str(at)
    while candidate in tree:
        candidate = f"{candidate}'"
    return candidate


def _switch(tree: ConversationTree, to: str) -> None:
    if to in tree:
        tree.switch(to)


def active_turns(recording: Recording) -> list[list[Interaction]]:
    """The exchanges of a recording's active branch by turn: a cut-short answer's exchange with those that continued
    it, which read as one answer."""
    return recorded_tree(recording).active_turns()


def active_answers(recording: Recording) -> Recording:
    """The recording with only the exchanges of its active branch, root first (what a replay plays)."""
    return Recording(format=recording.format, interactions=recorded_tree(recording).active())
