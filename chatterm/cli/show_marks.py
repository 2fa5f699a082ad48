"""Which of its alternatives a turn of `chatterm show` is, marked as the app marks it: `prompt 1/2 · answer 2/2`.

A turn's siblings are the turns with the same parent. Its prompt is counted among the distinct prompts they asked, in
the order first asked (an edited prompt is another), its answer among the siblings that asked the same prompt (a
regenerated answer is another); a part with one alternative only is not marked. The app keeps this rule with its
screen, where Left/Right move between those alternatives; `show` reads it over the entries of the `show --json`
document, so that the command line needs no UI. Which of the turns that asked one prompt Left/Right brings back is the
app's concern: it changes neither the count nor the place.
"""

from __future__ import annotations

from typing import Any

from chatterm.conversation.history import turn_prompt
from chatterm.conversation.tree import ConversationTree

Entry = dict[str, Any]


def prompt_of(entry: Entry) -> str:
    """What the user sent for a turn, read as the app reads it (`turn_prompt`), so that two prompts are one here when
    they are one on screen."""
    request = entry["request"]
    return turn_prompt(request["messages"] if request is not None else None)


def marks(tree: ConversationTree, entries: dict[str, Entry], node_id: str) -> list[str]:
    """`prompt 1/2`, `answer 2/2`: which of its alternatives a turn's prompt and answer are, where there are some."""
    siblings = tree.siblings(node_id)
    if len(siblings) == 1:
        return []
    prompts = {sibling: prompt_of(entries[sibling]) for sibling in siblings}
    own = prompts[node_id]
    asked = list(dict.fromkeys(prompts.values()))
    answers = [sibling for sibling in siblings if prompts[sibling] == own]
    out = []
    for part, found, place in (("prompt", asked, own), ("answer", answers, node_id)):
        if len(found) > 1:
            out.append(f"{part} {found.index(place) + 1}/{len(found)}")
    return out
