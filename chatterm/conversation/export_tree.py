"""A whole conversation tree as Markdown: the turns every branch shares written once, and where turns have
alternatives (an edited prompt, a regenerated answer), each alternative in a `<details>` block whose summary says
which it is ("Branch 2 of 3"), with the branch below it nested inside; the active branch's blocks are open.

The alternatives are those a reader meets: each branch is read as its turns (a continued answer is one turn with
the answer it continues), and the branches are laid over each other turn by turn (`_Level`), oldest first. A viewer
that folds `<details>` (GitHub, most Markdown previews) shows the active conversation open and the others folded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from chatterm.conversation.export import ExportTurn, body
from chatterm.conversation.tree import ConversationTree, Turn

TurnWriter = Callable[[Turn, Turn | None], ExportTurn]
"""A turn as the export writes it, given the turn above it on its branch (None for a first turn)."""


@dataclass
class _Level:
    """The turns that follow one turn (or open the conversation), on some branch or other, oldest first."""

    below: dict[Turn, _Level] = field(default_factory=dict)


def _laid_over(tree: ConversationTree) -> _Level:
    top = _Level()
    for leaf in tree.leaves():
        level = top
        for turn in tree.turns(leaf):
            level = level.below.setdefault(turn, _Level())
    return top


def tree_to_markdown(tree: ConversationTree, write: TurnWriter, title: str) -> str:
    """Every branch of `tree` (see the module); `write` gives each turn's content."""
    active = set(tree.turns())
    out = [f"**{title}**"]

    def run(level: _Level, above: Turn | None) -> list[str]:
        """The turns from `level` down: a run of single turns, then a block per alternative where they part."""
        turns: list[ExportTurn] = []
        while len(level.below) == 1:
            ((turn, level),) = level.below.items()
            turns.append(write(turn, above))
            above = turn
        lines = body(turns)
        count = len(level.below)
        for number, (turn, below) in enumerate(level.below.items(), 1):
            opened = " open" if turn in active else ""
            inner = body([write(turn, above)]) + run(below, turn)
            summary = f"<summary>Branch {number} of {count}</summary>"
            lines += ["", f"<details{opened}>", summary, *inner, "", "</details>"]
        return lines

    out += run(_laid_over(tree), None)
    return "\n".join(out) + "\n"
