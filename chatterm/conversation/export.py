"""A conversation as Markdown: each message opens with a horizontal rule and a bold role line.

The export has no heading of its own (its title is a bold line too): an answer's headings, at whatever level the model
wrote them, are then the only headings in the file, and no turn of the export can be mistaken for a section of an
answer. Answers are kept as written, except that one cut short inside a code block has the block closed, so that the
rest of the export is not read as code. Reasoning goes in a collapsible `<details>` block. Tool calls and results take
the form `show` and a copied message share (`tool_text`); a turn that only sends results back (no prompt) carries on
the answer before it, each result under the call it answers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from chatterm.conversation.steps import CallMade, CallResult, Prompt, Step, sent_back
from chatterm.conversation.tool_text import ToolUse, attach, tool_markdown

YOU, ASSISTANT = "You", "Assistant"
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


@dataclass
class ExportTurn:
    """One turn of a conversation as shown: what came before the answer, and the answer."""

    prompt: str
    answer: str = ""
    reasoning: str = ""
    notice: str | None = None
    opening: list[Step] | None = None
    """What a recorded turn's request adds before its answer (prompts, tool calls, results); None: the prompt alone."""
    calls: list[CallMade] = field(default_factory=list)
    """The answer's tool calls."""
    thought: float | None = None
    """Seconds the model reasoned before it answered, as timed live or recorded (None: no reasoning, or not timed):
    the reasoning pane's title whenever the answer is drawn again."""
    reasoning_tokens: int | None = None

    def steps(self) -> list[Step]:
        return self.opening if self.opening is not None else [Prompt(self.prompt)]


@dataclass
class _Message:
    role: str
    parts: list[str | list[ToolUse]] = field(default_factory=list)
    """Markdown, or a group of calls (their results are added under them until the export is written)."""

    def tools(self) -> list[ToolUse]:
        if not self.parts or isinstance(self.parts[-1], str):
            self.parts.append([])
        group = self.parts[-1]
        assert isinstance(group, list)
        return group

    def uses(self) -> list[ToolUse]:
        return [use for part in self.parts if isinstance(part, list) for use in part]


def to_markdown(turns: list[ExportTurn], title: str = "chatterm conversation") -> str:
    return "\n".join([f"**{title}**", *body(turns)]) + "\n"


def body(turns: list[ExportTurn]) -> list[str]:
    """The lines that write `turns` (each message after a blank line, a rule and its role line)."""
    out: list[str] = []
    for message in _messages(turns):
        out += ["", "---", "", f"**{message.role}**"]
        for part in message.parts:
            out += ["", part if isinstance(part, str) else tool_markdown(part)]
    return out


def _messages(turns: list[ExportTurn]) -> list[_Message]:
    said: list[_Message] = []

    def assistant() -> _Message:
        if not said or said[-1].role != ASSISTANT:
            said.append(_Message(ASSISTANT))
        return said[-1]

    for turn in turns:
        for step in turn.steps():
            if isinstance(step, Prompt):
                if step.text.strip():
                    said.append(_Message(YOU, [step.text.rstrip()]))
            elif isinstance(step, CallMade):
                made = [use.call for use in assistant().uses() if use.call is not None]
                if not sent_back(step, made):
                    assistant().tools().append(ToolUse(step))
            else:
                _put(assistant(), step)
        message = assistant()
        if turn.reasoning.strip():
            message.parts.append(f"<details><summary>Reasoning</summary>\n\n{turn.reasoning.strip()}\n\n</details>")
        if turn.answer.strip():
            message.parts.append(closed(turn.answer.rstrip()))
        if turn.calls:
            message.tools().extend(ToolUse(call) for call in turn.calls)
        if turn.notice:
            message.parts.append(f"> {turn.notice}")
    return said


def _put(message: _Message, result: CallResult) -> None:
    if not attach(message.uses(), result):
        message.tools().append(ToolUse(None, [result]))


def closed(text: str) -> str:
    """`text` with a code block it leaves open closed."""
    fence = ""
    for line in text.split("\n"):
        match = _FENCE.match(line)
        if match is None:
            continue
        run = match.group(1)
        if not fence:
            fence = run
        elif run[0] == fence[0] and len(run) >= len(fence) and line.strip() == run:
            fence = ""
    return f"{text}\n{fence}" if fence else text
