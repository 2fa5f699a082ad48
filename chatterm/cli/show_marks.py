"""Which of its alternatives a turn of `chatterm show` is, marked as the app marks it: `prompt 1/2 · answer 2/2`.

A turn's siblings are the turns with the same parent. Its prompt counts the distinct prompts they asked (an edited
prompt is another: one per prompt, itself for its own, else the newest that asked it), its answer the siblings that
asked the same prompt (a regenerated answer is another); a part with one alternative only is not marked. The app
keeps this rule with its screen (`Left`/`Right` move between those alternatives); `show` reads the same rule over the
entries of the `show --json` document, so that the command line needs no UI.
"""

from __future__ import annotations

from typing import Any

from chatterm.conversation.history import message_text
from chatterm.conversation.tree import ConversationTree

Entry = dict[str, Any]


def prompt_of(entry: Entry) -> str:
    """What the user typed for a turn: the last user message of its request, or the tool result it sent (read as
    the app reads a turn's prompt, so that two prompts are one here when they are one on screen)."""
    request = entry["request"]
    if request is None:
        return "(no request recorded)"
    for message in reversed(request["messages"]):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool" and isinstance(message.get("content"), str):
            return f"[tool result] {message['content']}"
        if message.get("role") == "user" or isinstance(message.get("parts"), list):  # Gemini has parts
            return message_text(message)
    return "(no user message)"


def alternatives(tree: ConversationTree, entries: dict[str, Entry], node_id: str, of_prompt: bool) -> list[str]:
    """The turns a turn's prompt (`of_prompt`) or answer has as alternatives, itself among them, oldest first."""
    siblings = tree.siblings(node_id)
    if len(siblings) == 1:
        return siblings
    prompts = {sibling: prompt_of(entries[sibling]) for sibling in siblings}
    own = prompts[node_id]
    if not of_prompt:
        return [sibling for sibling in siblings if prompts[sibling] == own]
    newest: dict[str, str] = {}
    for sibling in siblings:
        newest[prompts[sibling]] = sibling
    newest[own] = node_id
    return list(newest.values())


def marks(tree: ConversationTree, entries: dict[str, Entry], node_id: str) -> list[str]:
    """`prompt 1/2`, `answer 2/2`: which of its alternatives a turn's prompt and answer are, where there are some."""
    out = []
    for part, of_prompt in (("prompt", True), ("answer", False)):
        found = alternatives(tree, entries, node_id, of_prompt)
        if len(found) > 1:
            out.append(f"{part} {found.index(node_id) + 1}/{len(found)}")
    return out
