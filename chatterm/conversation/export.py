"""Export a conversation as Markdown, reasoning included in collapsible `<details>` blocks."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class ExportTurn:
    prompt: str
    answer: str = ""
    reasoning: str = ""
    notice: str | None = None


def to_markdown(turns: list[ExportTurn], title: str = "chatterm conversation") -> str:
    out = [f"# {title}", ""]
    for turn in turns:
        out += ["## You", "", turn.prompt.rstrip(), "", "## Assistant", ""]
        if turn.reasoning.strip():
            out += ["<details><summary>Reasoning</summary>", "", turn.reasoning.strip(), "", "</details>", ""]
        if turn.answer:
            out += [turn.answer.rstrip(), ""]
        if turn.notice:
            out += [f"> {turn.notice}", ""]
    return "\n".join(out)
