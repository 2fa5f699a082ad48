"""The Markdown export's own structure cannot be mistaken for an answer's: a horizontal rule and a bold role line
open each message, the export itself has no heading, and an answer's text (headings included) is kept as written."""

from __future__ import annotations

from markdown_it import MarkdownIt

from chatterm.conversation.export import ExportTurn, to_markdown

FIRST = "# Title\n\nSome text.\n\n## Part\n\nMore."
SECOND = "### Deep\n\n---\n\nAfter a rule of the answer's own."


def headings(markdown: str) -> list[str]:
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [tokens[n + 1].content for n, token in enumerate(tokens) if token.type == "heading_open"]


def roles(markdown: str) -> list[str]:
    """The bold line after each of the export's rules."""
    tokens = MarkdownIt("commonmark").parse(markdown)
    return [tokens[n + 2].content for n, token in enumerate(tokens) if token.type == "hr" and n + 2 < len(tokens)]


def test_the_only_headings_are_the_answers_own() -> None:
    """The export's turns were `## You` / `## Assistant`, at the level of an answer's `## Part`, under a `#` title at
    the level of an answer's `# Title`."""
    turns = [ExportTurn("Explain", FIRST, reasoning="Thinking it over."), ExportTurn("Deeper", SECOND)]
    exported = to_markdown(turns)
    assert headings(exported) == ["Title", "Part", "Deep"]
    assert FIRST in exported and SECOND in exported, "each answer as written"
    assert [role for role in roles(exported) if role.startswith("**")] == ["**You**", "**Assistant**"] * 2
    assert exported.count("\n---\n\n**") == 4, "a rule and a role line before each message"


def test_an_answer_cut_inside_a_code_block_leaves_the_rest_of_the_export_outside_it() -> None:
    turns = [ExportTurn("Write code", "```python\nprint(", notice="Stopped."), ExportTurn("Go on", "Done.")]
    exported = to_markdown(turns)
    assert [role for role in roles(exported) if role.startswith("**")] == ["**You**", "**Assistant**"] * 2
    fences = [token for token in MarkdownIt("commonmark").parse(exported) if token.type == "fence"]
    assert [fence.content for fence in fences] == ["print(\n"]
