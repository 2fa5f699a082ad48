"""`chatterm show` as text: the active branch of the conversation a recording holds, or (`--all`) every branch.

It reads the `show --json` document (`chatterm.cassette.summary`), whose turns carry their place in the tree. A
turn prints the messages its request adds to the turn before it on its branch, then its answer; the continuation of
a cut-short answer prints under the turn it continues. Turns are numbered along their branch, as the app counts them,
with their id beside the number where the two differ (`Turn 2 (id 4)`: the id is what `--json` and the branch
headings name), and a turn with alternatives says which it is as the app does (`prompt 1/2 · answer 2/2`,
`chatterm.cli.show_marks`). With `--all`, each branch is headed by its number among the branches and its path of turn
ids ("Branch 2 of 3: turns 1 > 3 > 4") and prints from where it leaves the branches printed before it.
"""

from __future__ import annotations

from typing import Any

from chatterm.cli.show_marks import marks
from chatterm.cli.show_turn import answer_lines, request_lines
from chatterm.conversation.steps import CallMade
from chatterm.conversation.tree import ConversationTree, Node

Entry = dict[str, Any]


def counted(number: int, thing: str, things: str | None = None) -> str:
    """`1 turn`, `2 turns` (`things` for a plural not made with an s)."""
    return f"{number} {thing if number == 1 else things or thing + 's'}"


def tree_of(summary: dict[str, Any]) -> ConversationTree:
    """The tree of a `show --json` document, its active branch as the document says."""
    tree = ConversationTree()
    for entry in summary["turns"]:
        tree.add(Node(entry["id"], entry["parent"], entry.get("continues")))
    if summary["active"]:
        tree.switch(summary["active"][-1])
    return tree


def show_text(name: str, summary: dict[str, Any], skipped: list[str], every_branch: bool = False) -> str:
    """What `show` prints for the recording `name`, its `show --json` document `summary`."""
    entries: dict[str, Entry] = {entry["id"]: entry for entry in summary["turns"]}
    tree = tree_of(summary)
    branches = tree.branches()
    many = f" in {counted(len(branches), 'branch', 'branches')}" if len(branches) > 1 else ""
    out = [f"# {name} ({summary['format']}, {counted(len(entries), 'turn')}{many})"]
    out += [f"[skipped] {call}" for call in skipped]
    if every_branch:
        printed: set[str] = set()
        for number, path in enumerate(branches, start=1):
            active = " (active)" if path == tree.branch() else ""
            out.append(f"\n## Branch {number} of {len(branches)}: turns {' > '.join(path)}{active}")
            shared = [node_id for node_id in path if node_id in printed]
            if shared:
                out.append(f"(turns {' > '.join(shared)} as above)")
            out += _branch(tree, entries, path, printed, "###")
            printed.update(path)
    else:
        out += _branch(tree, entries, tree.branch(), set(), "##")
        if len(branches) > 1:
            others = counted(len(branches) - 1, "other branch", "other branches")
            out.append(f"\n({others}: `chatterm show --all` prints every branch)")
    return "\n".join(out) + "\n"


def _branch(
    tree: ConversationTree, entries: dict[str, Entry], path: list[str], skip: set[str], level: str
) -> list[str]:
    """The lines of the turns of `path` not in `skip`, numbered along the branch, headed at `level`."""
    out: list[str] = []
    earlier: list[Any] = []
    answered: list[CallMade] = []
    number = 0
    for node_id in path:
        entry = entries[node_id]
        continued = entry.get("continues") is not None
        number += 0 if continued else 1
        messages = (entry["request"] or {}).get("messages") or []
        if node_id not in skip:
            if continued:
                out += answer_lines(entry["response"], level, "[continued]")
            else:
                out.append(_heading(tree, entries, node_id, number, level))
                out += request_lines(messages, earlier, answered) if entry["request"] is not None else []
                out += _retried(entry) + answer_lines(entry["response"], level)
        if not continued:
            earlier = messages  # (a continuation's request is the partial answer and a request to go on)
        answered = [CallMade(call["id"], call["name"], call["arguments"]) for call in entry["response"]["tool_calls"]]
    return out


def _heading(tree: ConversationTree, entries: dict[str, Entry], node_id: str, number: int, level: str) -> str:
    """`## Turn 2 (id 4) · model · prompt 1/2 · answer 2/2`: the id where it is not the number, the marks where the
    turn has alternatives."""
    model = entries[node_id]["response"]["model"]
    label = f"{number}" if node_id == str(number) else f"{number} (id {node_id})"
    return " · ".join([f"\n{level} Turn {label}", *([model] if model else []), *marks(tree, entries, node_id)])


def _retried(entry: Entry) -> list[str]:
    return [
        f"[retried] {attempt['error']['message'] if attempt['error'] else 'an attempt that was retried'}"
        for attempt in entry["retried"]
    ]
