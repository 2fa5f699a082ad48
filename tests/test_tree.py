"""The conversation tree: siblings, the active branch, switching, continuations joined into one turn."""

from __future__ import annotations

import pytest

from chatterm.conversation.tree import ConversationTree, Node, TreeError, Turn


def grown() -> ConversationTree:
    """1 > 2 > 3, then 4 beside 2 (an edit of the second prompt), then 5 under 4."""
    tree = ConversationTree()
    for node in (Node("1"), Node("2", "1"), Node("3", "2"), Node("4", "1"), Node("5", "4")):
        tree.add(node)
    return tree


def test_the_newest_exchange_is_the_active_leaf_and_its_branch_the_active_branch() -> None:
    tree = grown()
    assert tree.active == "5"
    assert tree.branch() == ["1", "4", "5"]
    assert [turn.id for turn in tree.turns()] == ["1", "4", "5"]


def test_siblings_and_position_give_the_branch_counter() -> None:
    tree = grown()
    assert tree.siblings("4") == ["2", "4"]
    assert tree.position("4") == (2, 2)
    assert tree.position("2") == (1, 2)
    assert tree.position("1") == (1, 1)
    assert tree.sibling("4", -1) == "2"
    assert tree.sibling("4", 1) is None


def test_switching_to_a_sibling_brings_back_the_branch_last_seen_below_it() -> None:
    tree = grown()
    tree.add(Node("6", "2"))  # a regenerated answer under 2: the branch 1 > 2 > 6 was the last seen below 2
    tree.switch("4")
    assert tree.branch() == ["1", "4", "5"]
    assert tree.switch("2") == "6"
    tree.switch("3")
    tree.switch("4")
    assert tree.switch("2") == "3", "below 2, the branch last active (3), not the newest (6)"


def test_a_continuation_is_joined_to_the_turn_it_continues() -> None:
    tree = ConversationTree()
    tree.add(Node("1"))
    tree.add(Node("2", "1", continues="1"))
    tree.add(Node("3", "2", continues="2"))
    tree.add(Node("4", "3"))
    assert tree.turns() == [Turn(("1", "2", "3")), Turn(("4",))]
    assert tree.turns()[0].last == "3"


def test_every_branch_is_listed_once() -> None:
    assert grown().branches() == [["1", "2", "3"], ["1", "4", "5"]]


def test_a_retried_leaf_is_taken_out_and_the_branch_goes_back_to_its_parent() -> None:
    tree = grown()
    tree.remove("5")
    assert tree.branch() == ["1", "4"]
    with pytest.raises(TreeError):
        tree.remove("1")


@pytest.mark.parametrize(
    "node",
    [Node("1"), Node("9", "8"), Node("9", "2", continues="1")],
    ids=["id taken", "unknown parent", "continues another"],
)
def test_exchanges_that_cannot_be_placed_are_refused(node: Node) -> None:
    with pytest.raises(TreeError):
        grown().add(node)
