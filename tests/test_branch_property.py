"""Any sequence of sends, edits, regenerations, continuations and branch switches asks each time with the branch's
history, and the session file gives back the same tree, the same active branch and the same branch below every
exchange; vcrpy still loads it."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path
from typing import Any

import vcr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatterm.cassette.branches import recorded_tree
from chatterm.cassette.load import load_recording
from chatterm.chat.session import ChatSession
from chatterm.conversation.continuation import CONTINUE_PROMPT
from chatterm.conversation.tree import ConversationTree
from tests.branching_fake import FakeProvider, answer, fake_session

OPERATIONS = st.lists(
    st.tuples(st.sampled_from(["send", "edit", "regenerate", "continue", "switch"]), st.integers(0, 20), st.booleans()),
    min_size=1,
    max_size=10,
)


class Expected:
    """What each request should carry, worked out apart from the session: an exchange's history is what it asked
    and its answer (joined with those that continued it)."""

    def __init__(self, tree: ConversationTree) -> None:
        self.tree = tree
        self.sent: dict[str, list[dict[str, str]]] = {}
        self.text: dict[str, str] = {}

    def head(self, node_id: str) -> str:
        while (continues := self.tree.nodes[node_id].continues) is not None:
            node_id = continues
        return node_id

    def joined(self, node_id: str) -> str:
        node = self.tree.nodes[node_id]
        earlier = self.joined(node.continues) if node.continues is not None else ""
        return earlier + self.text[node_id]

    def history(self, node_id: str | None) -> list[dict[str, str]]:
        if node_id is None:
            return []
        return [*self.sent[self.head(node_id)], {"role": "assistant", "content": self.joined(node_id)}]


async def play(session: ChatSession, provider: FakeProvider, operations: list[tuple[str, int, bool]]) -> None:
    tree = session.tree
    expected = Expected(tree)
    for number, (operation, pick, cut) in enumerate(operations):
        turns = tree.turns()
        turn = turns[pick % len(turns)] if turns else None
        if operation == "switch" and turn is not None:
            session.switch_branch(tree.sibling(turn.id, 1 if cut else -1) or turn.id)
            continue
        if turn is None or operation in ("send", "switch"):
            wanted = [*expected.history(tree.active), {"role": "user", "content": f"prompt {number}"}]
            session.add_prompt(f"prompt {number}")
        elif operation == "edit":
            wanted = [*expected.history(tree.nodes[turn.id].parent), {"role": "user", "content": f"edit {number}"}]
            session.edit(turn.id, f"edit {number}")
        elif operation == "regenerate":
            wanted = expected.sent[turn.id]
            session.regenerate(turn.id)
        else:
            partial = {"role": "assistant", "content": expected.joined(turn.last)}
            wanted = [*expected.sent[turn.id], partial, {"role": "user", "content": CONTINUE_PROMPT}]
            session.continue_answer(turn.last)
        provider.cut_next = cut
        text = await answer(session)
        assert provider.requests[-1] == wanted
        assert tree.active is not None
        expected.sent[tree.active], expected.text[tree.active] = wanted, text


def shape(tree: ConversationTree) -> dict[str, Any]:
    """All a user can reach of a tree: its exchanges, their order, the active branch and the branch below each."""
    return {
        "nodes": list(tree.nodes.values()),
        "children": {node_id: tree.children(node_id) for node_id in [None, *tree.nodes]},
        "branch": tree.branch(),
        "below": {node_id: tree.leaf_below(node_id) for node_id in tree.nodes},
    }


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(operations=OPERATIONS)
def test_any_sequence_of_branching_saves_and_loads_back_the_same_tree(operations: list[tuple[str, int, bool]]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "session.yaml"
        provider = FakeProvider()

        async def run() -> ChatSession:
            session = fake_session(provider, path)
            try:
                await play(session, provider, operations)
            finally:
                await session.aclose()
            return session

        session = asyncio.run(run())
        recording = load_recording(path)
        assert shape(recorded_tree(recording).tree) == shape(session.tree)

        opened = fake_session(provider, None)
        opened.load_history(recording)
        assert shape(opened.tree) == shape(session.tree)
        assert opened.conversation.messages == session.conversation.messages
        with vcr.use_cassette(str(path), record_mode="none") as cassette:
            assert len(cassette) == len(recording.interactions)
