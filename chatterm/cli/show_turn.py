"""One turn of `chatterm show`'s text: the messages, tool calls and results its request adds, and its answer.

A conversation sends its whole history every turn: a turn prints what its request adds to the one before it on its
branch, less that turn's answer sent back (printed under that turn already, its calls too). Calls and results take
the form the export and a copied message share (`chatterm.conversation.tool_text`); a result follows the call it
answers when that call is in the same request, else stands on its own, naming the call. An answer the provider ended
early (the token limit, a filter) has a note under it, as it has on screen.

`show` heads its turns and branches with Markdown headings, so the headings an answer or its reasoning holds are
printed below the turn's (`below`): the shallowest one level under it, the others as far under that as written (to
the sixth level at most). Left as written, a model's `## Handling the Request` reads as a section of `show`'s output.
What a code block holds is no heading and stays as it is.
"""

from __future__ import annotations

import re
from typing import Any

from chatterm.conversation.history import message_text
from chatterm.conversation.steps import (
    ASSISTANT_ROLES,
    CallMade,
    CallResult,
    Prompt,
    added_messages,
    message_steps,
    sent_back,
    with_name,
)
from chatterm.conversation.tool_text import ToolUse, attach, tool_markdown
from chatterm.events import FINISH_NOTICES

Item = str | list[ToolUse]
"""A line, or a group of calls and results printed together."""

_HEADING = re.compile(r"( {0,3})(#{1,6})(?=[ \t]|$)")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def answer_lines(response: dict[str, Any], level: str, label: str = "[assistant]") -> list[str]:
    """An answer under a turn headed at `level` (`##`): its reasoning, text (after `label`), calls, a note when it
    ended early, usage and error."""
    out = []
    if response["reasoning"]:
        out.append(f"[reasoning] {below(response['reasoning'], level)}")
    if response["content"]:
        out.append(f"{label} {below(response['content'], level)}")
    if response["tool_calls"]:
        calls = [CallMade(call["id"], call["name"], call["arguments"]) for call in response["tool_calls"]]
        out.append(tool_markdown([ToolUse(call) for call in calls]))
    notice = FINISH_NOTICES.get(response["finish_reason"] or "")
    if notice and not response["error"]:
        out.append(f"[note] {notice}")
    if response["usage"]:
        usage = response["usage"]
        out.append(
            f"[usage] prompt {usage['prompt_tokens']}, completion {usage['completion_tokens']}"
            + (f", reasoning {usage['reasoning_tokens']}" if usage["reasoning_tokens"] is not None else "")
        )
    if response["error"]:
        out.append(f"[error] {response['error']['message']}")
    return out


def below(text: str, level: str) -> str:
    """`text` with its Markdown headings moved under a heading at `level`, their order of levels kept (see the
    module); lines in a code block are left alone."""
    lines = text.split("\n")
    headings: dict[int, re.Match[str]] = {}
    fence = ""
    for number, line in enumerate(lines):
        found = _FENCE.match(line)
        run, after = (found.group(1), line[found.end() :]) if found is not None else ("", "")
        if fence:  # (closed by a run of its character at least as long, alone on its line)
            if run[:1] == fence[0] and len(run) >= len(fence) and line.strip() == run:
                fence = ""
        elif run and not (run[0] == "`" and "`" in after):  # (a backtick fence's info holds no backtick)
            fence = run
        elif (heading := _HEADING.match(line)) is not None:
            headings[number] = heading
    if not headings:
        return text
    shift = len(level) + 1 - min(len(heading.group(2)) for heading in headings.values())
    if shift <= 0:
        return text
    for number, heading in headings.items():
        marks = "#" * min(len(heading.group(2)) + shift, 6)
        lines[number] = heading.group(1) + marks + lines[number][heading.end() :]
    return "\n".join(lines)


def request_lines(messages: list[Any], earlier: list[Any], answered: list[CallMade]) -> list[str]:
    """What a request adds to `earlier` (the request before it on its branch): its messages, and the calls and results
    in them; the answer before it (`answered`: its calls), sent back at the start of what it adds, is left out."""
    known = [step for message in messages for step in message_steps(message) if isinstance(step, CallMade)]
    items: list[Item] = []
    uses: list[ToolUse] = []
    leading = bool(earlier) and messages[: len(earlier)] == earlier
    for message in added_messages(messages, earlier):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        leading = leading and (role in ASSISTANT_ROLES or _answer_item(message))
        if role == "system" or (role in ASSISTANT_ROLES and not leading and message_text(message)):
            items.append(f"[{role}] {message_text(message)}")
        for step in message_steps(message):
            if isinstance(step, Prompt):
                items.append(f"[{role or 'user'}] {step.text}")
            elif isinstance(step, CallMade) and not sent_back(step, answered):
                use = ToolUse(step)
                _group(items).append(use)
                uses.append(use)
            elif isinstance(step, CallResult):
                result = with_name(step, [*known, *answered])
                if not attach(uses, result):
                    _group(items).append(ToolUse(None, [result]))
    return [item if isinstance(item, str) else tool_markdown(item) for item in items]


def _answer_item(message: dict[str, Any]) -> bool:
    """A Responses input item of an answer sent back (its calls, its reasoning)."""
    return "role" not in message and message.get("type") in ("function_call", "reasoning")


def _group(items: list[Item]) -> list[ToolUse]:
    """The group of calls and results being gathered, a new one after a line."""
    if not items or isinstance(items[-1], str):
        items.append([])
    group = items[-1]
    assert isinstance(group, list)
    return group
