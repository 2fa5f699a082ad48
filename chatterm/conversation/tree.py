"""A conversation as a tree of exchanges, and the branch of it that is active.

Each node is one exchange (a request and its answer, one interaction of the session file) named by its `id`. Its
`parent` is the exchange whose answer its prompt followed (None for a first prompt), so exchanges with the same
parent are siblings: an edited prompt, a regenerated answer, a test suite's retries. An exchange may continue the
answer of its parent when that answer was cut short (`continues`): the two read as one answer, so a `Turn` of a
branch holds the exchange that asked and each one that continued it.

The active branch runs from a root to the active leaf. Every node remembers which of its children was last on the
active branch, so switching to a sibling brings the branch below it back as it was last seen (the newest child,
where none was ever active). The tree only holds ids: what an exchange asked and answered stays with its owner (a
recording, a chat session), which builds the messages of a branch from it.

The API a UI uses:
- `turns()`: the active branch as turns, root first; `branch()`: the same as exchange ids;
- `siblings(id)`, `position(id)`: the alternatives at a turn and which one it is (`‹ 2/3 ›`);
- `switch(id)` / `sibling(id, step)`: make another alternative active; the branch below follows; `seen(id)`: which
  of some alternatives was on the active branch last;
- `add(node)`: a new exchange, active at once (a send, an edit, a regeneration, a continuation).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass


class TreeError(ValueError):
    """An exchange that cannot go into the tree (an id taken, an unknown parent); the message says which."""


@dataclass(frozen=True)
class Node:
    id: str
    parent: str | None = None
    """The exchange whose answer this one's prompt followed; None for a first prompt."""
    continues: str | None = None
    """The exchange (the parent) whose cut-short answer this one continues, else None."""


@dataclass(frozen=True)
class Turn:
    """A turn of a branch as a user sees it: the exchange that asked, then each exchange that continued its answer."""

    ids: tuple[str, ...]

    @property
    def id(self) -> str:
        """The exchange that asked: where the turn's siblings are counted and a switch is made."""
        return self.ids[0]

    @property
    def last(self) -> str:
        """The exchange whose answer ends the turn: a prompt after this turn hangs under it."""
        return self.ids[-1]


class ConversationTree:
    """Exchanges by id, their children in the order they were added, and the active branch."""

    def __init__(self) -> None:
        self.nodes: dict[str, Node] = {}
        self._children: dict[str | None, list[str]] = {None: []}
        self._chosen: dict[str | None, str] = {}
        """For each node (None: the roots), its child that was last on the active branch."""
        self._seen: dict[str, int] = {}
        """When each node was last on the active branch (`_clock` then; absent: never)."""
        self._clock = 0
        """Activations so far."""
        self.active: str | None = None
        """The active leaf: the last exchange of the active branch (None while the tree is empty)."""

    def __len__(self) -> int:
        return len(self.nodes)

    def __contains__(self, node_id: object) -> bool:
        return node_id in self.nodes

    def add(self, node: Node, activate: bool = True) -> Node:
        """Put an exchange under its parent (after its siblings); it becomes the active leaf unless told not to."""
        if node.id in self.nodes:
            raise TreeError(f"exchange {node.id!r} is in the conversation already")
        if node.parent is not None and node.parent not in self.nodes:
            raise TreeError(f"exchange {node.id!r} follows {node.parent!r}, which is not in the conversation")
        if node.continues is not None and node.continues != node.parent:
            raise TreeError(f"exchange {node.id!r} continues {node.continues!r}, which is not the one it follows")
        self.nodes[node.id] = node
        self._children[node.id] = []
        self._children[node.parent].append(node.id)
        if activate or self.active is None:
            self._activate(node.id)
        return node

    def remove(self, node_id: str) -> None:
        """Take a leaf out (an attempt that a retry replaced); the active branch goes back to its parent's."""
        node = self.nodes[node_id]
        if self._children[node_id]:
            raise TreeError(f"exchange {node_id!r} has exchanges below it; only a leaf can be taken out")
        del self.nodes[node_id], self._children[node_id]
        self._children[node.parent].remove(node_id)
        if self._chosen.get(node.parent) == node_id:
            del self._chosen[node.parent]
        if self.active == node_id:
            self.active = None
            if node.parent is not None:
                self._activate(self.leaf_below(node.parent))
            elif self._children[None]:
                self._activate(self.leaf_below(self._children[None][-1]))

    def children(self, node_id: str | None) -> list[str]:
        """The exchanges under `node_id` (None: the roots), oldest first."""
        return list(self._children[node_id])

    def siblings(self, node_id: str) -> list[str]:
        """The exchanges that share `node_id`'s parent, itself included, oldest first."""
        return self.children(self.nodes[node_id].parent)

    def position(self, node_id: str) -> tuple[int, int]:
        """Which of its siblings `node_id` is (from 1) and how many there are: (2, 3) shows as `‹ 2/3 ›`."""
        siblings = self._children[self.nodes[node_id].parent]
        return siblings.index(node_id) + 1, len(siblings)

    def sibling(self, node_id: str, step: int) -> str | None:
        """The sibling `step` places after (before, when negative) `node_id`, None past either end."""
        siblings = self._children[self.nodes[node_id].parent]
        index = siblings.index(node_id) + step
        return siblings[index] if 0 <= index < len(siblings) else None

    def path(self, node_id: str) -> list[str]:
        """The ids from a root down to `node_id`."""
        path = []
        current: str | None = node_id
        while current is not None:
            path.append(current)
            current = self.nodes[current].parent
        return path[::-1]

    def branch(self) -> list[str]:
        """The active branch as exchange ids, root first."""
        return self.path(self.active) if self.active is not None else []

    def turns(self, node_id: str | None = None) -> list[Turn]:
        """The branch down to `node_id` (the active leaf by default) as turns: continuations joined to the turn
        they continue."""
        ids = self.path(node_id) if node_id is not None else self.branch()
        grouped: list[list[str]] = []
        for exchange in ids:
            if grouped and self.nodes[exchange].continues == grouped[-1][-1]:
                grouped[-1].append(exchange)
            else:
                grouped.append([exchange])
        return [Turn(tuple(group)) for group in grouped]

    def leaf_below(self, node_id: str) -> str:
        """The leaf reached from `node_id` by the children last active (the newest where none was)."""
        current = node_id
        while self._children[current]:
            current = self._chosen.get(current) or self._children[current][-1]
        return current

    def switch(self, node_id: str) -> str:
        """Make the branch through `node_id` active, the branch below it as it was last seen; returns the new
        active leaf."""
        if node_id not in self.nodes:
            raise TreeError(f"no exchange {node_id!r} in the conversation")
        self._activate(self.leaf_below(node_id))
        assert self.active is not None
        return self.active

    def _activate(self, leaf: str) -> None:
        parent = self.nodes[leaf].parent
        self._clock += 1
        stamp = self._clock
        if parent is not None and parent == self.active:  # the branch grows: above, each node chose its way already
            self._chosen[parent] = self.active = leaf
            self._seen[leaf] = stamp
            return
        self.active = leaf
        current: str | None = leaf
        while current is not None:
            parent = self.nodes[current].parent
            self._chosen[parent] = current
            self._seen[current] = stamp
            current = parent

    def seen(self, node_id: str) -> int:
        """When `node_id` was last on the active branch, as an order (0: never): of alternatives, the one seen last."""
        return self._seen.get(node_id, 0)

    def leaves(self) -> Iterator[str]:
        """Every leaf, depth first, children oldest first: one per branch."""
        stack = list(reversed(self._children[None]))
        while stack:
            current = stack.pop()
            below = self._children[current]
            if not below:
                yield current
            stack.extend(reversed(below))

    def branches(self) -> list[list[str]]:
        """Every branch, root first, in the order of `leaves`."""
        return [self.path(leaf) for leaf in self.leaves()]
