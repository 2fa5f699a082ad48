"""Which exchange a request followed, told from the request alone, for recordings that do not say (those other
tools make: a test suite's cassettes).

A chat client sends the whole history with every request, so a request that carries another's messages and more
follows it: it hangs under the exchange whose request is the longest proper prefix of its own (the next message
being that exchange's answer, sent back). Requests with the same messages are siblings: a test suite's retries, a
question asked again. When several exchanges asked the same, the one whose answer the request carries is chosen,
else the latest. A request with no messages to compare (a raw SSE capture holds no request) follows the exchange
before it, as the recording lists them.

Prefixes are looked up by a hash of each message chained along the list, so a recording costs what parsing its
messages once does, whatever its length.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from chatterm.conversation.history import message_text


@dataclass
class _Asked:
    id: str
    messages: list[Any]


class Lineage:
    """The exchanges seen so far, by the hash of their request's messages. `answer_of` gives an exchange's answer
    text (asked only to choose between exchanges that asked the same)."""

    def __init__(self, answer_of: Callable[[str], str]) -> None:
        self._by_prefix: dict[int, list[_Asked]] = {}
        self._answer_of = answer_of
        self._previous: str | None = None

    def parent(self, node_id: str, messages: list[Any]) -> str | None:
        """The exchange `node_id` (asking `messages`) followed; it is then remembered for those after it."""
        if not messages:
            found = self._previous
        else:
            keys = _prefix_keys(messages)
            found = None
            for length in range(len(messages) - 1, 0, -1):
                asked = [a for a in self._by_prefix.get(keys[length - 1], []) if a.messages == messages[:length]]
                if asked:
                    found = self._choose(asked, messages[length])
                    break
            self._by_prefix.setdefault(keys[-1], []).append(_Asked(node_id, messages))
        self._previous = node_id
        return found

    def _choose(self, asked: list[_Asked], answer: Any) -> str:
        if len(asked) > 1:
            text = message_text(answer)
            for candidate in reversed(asked):
                if text and self._answer_of(candidate.id) == text:
                    return candidate.id
        return asked[-1].id


def _prefix_keys(messages: list[Any]) -> list[int]:
    """For each length from 1, a hash of the messages up to it."""
    keys = []
    key = 0
    for message in messages:
        key = hash((key, json.dumps(message, sort_keys=True, ensure_ascii=False, default=str)))
        keys.append(key)
    return keys
