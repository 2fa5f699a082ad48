"""Code blocks by number: each code block of the conversation shows a number (`[3]`) at the end of its top line, and
the command palette copies any of them by that number.

The number is drawn over the view's lines when a line is shown (`labelled`), not rendered into them: the lines stay
what one render of the text draws, whatever pieces the text came in, and the number of a block depends on the
answers above it, which its own text does not know. Code blocks are numbered on through the conversation, in the
order of the answers (`MarkdownView.code_base`).
"""

from __future__ import annotations

from dataclasses import dataclass

from rich.segment import Segment
from rich.style import Style
from textual.strip import Strip

from chatterm.ui.markdown.cuts import block_parser, ended


@dataclass(frozen=True)
class CodeBlock:
    language: str
    code: str


def code_blocks(text: str) -> list[CodeBlock]:
    """The code blocks of a Markdown text (fenced or indented, in lists and quotes too), in order: one for each a
    view draws."""
    if "```" not in text and "~~~" not in text and "    " not in text and "\t" not in text:
        return []
    return [
        CodeBlock(token.info.partition(" ")[0], token.content)
        for token in block_parser().parse(ended(text))
        if token.type in ("fence", "code_block")
    ]


def is_code_top(line: Strip) -> bool:
    """Whether a drawn line is the top line of a code block (marked by `elements.Code`)."""
    return any(seg.style is not None and "code" in seg.style.meta for seg in line)


def labelled(line: Strip, label: str, style: Style) -> Strip:
    """`line` with `label` written in `style` (over the line's own) one column before its right end, if it fits."""
    width = line.cell_length
    at = width - len(label) - 1
    if at < 1:
        return line
    left, under, right = line.divide([at, at + len(label), width])
    below = next((seg.style for seg in under if seg.style is not None), None)
    mark = Strip([Segment(label, below + style if below else style)], len(label))
    return Strip.join([left, mark, right])
