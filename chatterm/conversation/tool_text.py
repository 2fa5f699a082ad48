"""A turn's tool calls and results as text: one form for `show`, the Markdown export and a copied message.

A call is a line naming its tool (and the call's id) with its arguments under it as a fenced `json` block,
pretty-printed once they are whole JSON; each result follows the call it answers, a line naming the call and its text
as a fenced block. Fenced, so that neither is read as Markdown wherever the text goes, and by a fence longer than any
run of backticks inside, so that a result holding a code block cannot close it early. The label lines read the same on
a terminal and rendered, and keep `show`'s `[kind]` form.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from chatterm.conversation.steps import CallMade, CallResult

_BACKTICKS = re.compile(r"`+")


@dataclass
class ToolUse:
    """A call and the results sent back for it; `call` is None for results whose call is not at hand."""

    call: CallMade | None
    results: list[CallResult] = field(default_factory=list)


def pretty_arguments(arguments: str) -> str:
    """Arguments as shown: pretty-printed once they are whole JSON, as they came until then."""
    try:
        value = json.loads(arguments)
    except ValueError:
        return arguments
    return json.dumps(value, indent=2, ensure_ascii=False)


def attach(uses: list[ToolUse], result: CallResult) -> bool:
    """Put `result` under the call in `uses` it answers: the one its id names, or, when it or the call has no id, the
    first call of its tool not answered yet. False when none of them made it."""
    calls = [use for use in uses if use.call is not None]
    found = next((use for use in calls if result.call_id and use.call and use.call.id == result.call_id), None)
    if found is None and result.name:
        found = next((use for use in calls if _may_answer(use, result)), None)
    if found is not None:
        found.results.append(result)
    return found is not None


def _may_answer(use: ToolUse, result: CallResult) -> bool:
    call = use.call
    return call is not None and not use.results and call.name == result.name and not (result.call_id and call.id)


def tool_markdown(uses: list[ToolUse]) -> str:
    """The calls with their arguments, each result under its call."""
    lines: list[str] = []
    for use in uses:
        if use.call is not None:
            lines.append(f"[tool call] {_label(use.call.name, use.call.id)}")
            if use.call.arguments.strip():
                lines += fenced(pretty_arguments(use.call.arguments), "json")
        for result in use.results:
            name = result.name or (use.call.name if use.call else "")
            lines.append(f"[tool result] {_label(name, result.call_id or (use.call.id if use.call else ''))}")
            lines += fenced(result.text, "json" if _is_json(result.text) else "")
    return "\n".join(lines)


def fenced(text: str, info: str = "") -> list[str]:
    """`text` as a fenced code block, its fence longer than any run of backticks in it."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence + info, *text.removesuffix("\n").split("\n"), fence]


def _label(name: str, call_id: str) -> str:
    """A tool's name and the call's id, each on the one line whatever they hold."""
    name, call_id = " ".join(name.split()) or "tool", " ".join(call_id.split())
    return f"{name} · {call_id}" if call_id else name


def _is_json(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict | list)
    except ValueError:
        return False
