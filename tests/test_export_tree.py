"""The export of a whole conversation tree: every branch, as nested `<details>` blocks where turns have alternatives
(each saying which alternative it is, the active one open), the turns they share written once."""

from __future__ import annotations

from markdown_it import MarkdownIt

from chatterm.conversation.export import ExportTurn, to_markdown
from chatterm.conversation.export_tree import tree_to_markdown
from chatterm.conversation.tree import ConversationTree, Node, Turn


def tree_of(*nodes: tuple[str, str | None], active: str) -> ConversationTree:
    tree = ConversationTree()
    for node_id, parent in nodes:
        tree.add(Node(node_id, parent))
    tree.switch(active)
    return tree


def turn(turn: Turn, above: Turn | None) -> ExportTurn:
    """Each exchange asks `prompt <id>` and is answered `answer <id>`."""
    return ExportTurn(f"prompt {turn.id}", f"answer {turn.id}")


def test_every_branch_is_written_each_alternative_in_a_details_block_the_active_one_open() -> None:
    # a: first prompt; b: its answer regenerated (a sibling of a); c under a; d, e: two prompts after b
    tree = tree_of(("a", None), ("b", None), ("c", "a"), ("d", "b"), ("e", "b"), active="d")
    exported = tree_to_markdown(tree, turn, "chatterm conversation tree")
    assert exported.startswith("**chatterm conversation tree**")
    for node in "abcde":
        assert exported.count(f"answer {node}") == 1, node
    assert exported.count("<details") == exported.count("</details>") == 4
    assert "<details>\n<summary>Branch 1 of 2</summary>" in exported
    assert "<details open>\n<summary>Branch 2 of 2</summary>" in exported
    first, second = exported.index("answer a"), exported.index("answer b")
    assert first < exported.index("answer c") < second < exported.index("answer d") < exported.index("answer e")
    d_block = exported[exported.index("answer b") :]
    assert d_block.index("<details open>") < d_block.index("answer d") < d_block.index("<details>"), "d is active"
    html = MarkdownIt("commonmark").parse(exported)
    assert [token.type for token in html if token.type == "html_block"], "the blocks are HTML a viewer folds"


def test_a_conversation_without_branches_is_written_as_the_export_of_its_branch() -> None:
    tree = tree_of(("a", None), ("b", "a"), active="b")
    exported = tree_to_markdown(tree, turn, "t")
    assert exported == to_markdown([turn(Turn(("a",)), None), turn(Turn(("b",)), Turn(("a",)))], "t")
