"""Streamed Markdown is drawn exactly as the same text rendered at once: the view's lines (blank ones and styles
included) are compared after every append, at several widths and after a width change, with one Rich render of the
whole source (`one_render`), for generated documents cut at any character boundary (tests/strategies.py).

The suite's Hypothesis profile (tests/conftest.py) says how many documents: `CHATTERM_HYPOTHESIS_PROFILE=soak` runs
many more."""

from __future__ import annotations

import os
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from textual.app import App, ComposeResult
from textual.strip import Strip

from chatterm.ui.markdown.cuts import settled
from chatterm.ui.markdown.view import MarkdownView
from tests.strategies import documents, streamed
from tests.ui.helpers import one_render

SOAK = os.environ.get("CHATTERM_HYPOTHESIS_PROFILE") == "soak"
WIDTHS = [9, 23, 47, 80]


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield MarkdownView()


def drawn(view: MarkdownView) -> list[Strip]:
    return [line.simplify() for line in view.lines]


def difference(view: MarkdownView) -> str:
    """Empty when the view draws what one render draws; else the rows that differ."""
    ours, whole = drawn(view), one_render(view)
    if ours == whole:
        return ""
    rows = []
    for y in range(max(len(ours), len(whole))):
        a = ours[y] if y < len(ours) else None
        b = whole[y] if y < len(whole) else None
        if a != b:
            text_a = "-" if a is None else repr(a.text)
            text_b = "-" if b is None else repr(b.text)
            rows.append(f"  row {y}: drawn {text_a}\n  {' ' * len(str(y))}  whole {text_b}")
    return f"width {view._width}, source {view.source!r}:\n" + "\n".join(rows[:12])


def feed(view: MarkdownView, width: int, pieces: list[str], then: int | None = None, at: int = -1) -> None:
    """Stream `pieces` into a fresh view at `width`, comparing after each (and checking that what can be frozen is:
    the tail is what is drawn again at every append); if `then`, change to that width after piece `at` (after the
    last by default) and compare again."""
    view.update("")
    view._set_width(width)
    assert not view.lines
    for index, piece in enumerate(pieces):
        view.append(piece)
        assert not (problem := difference(view)), problem
        assert not settled(view._tail)[0], f"blocks that could be frozen stay in the tail: {view._tail!r}"
        if then is not None and index == at % len(pieces):
            view._set_width(then)
            assert not (problem := difference(view)), problem


async def run(check: Callable[[MarkdownView], None]) -> None:
    app = Host()
    async with app.run_test(size=(100, 30)):
        check(app.query_one(MarkdownView))


FENCES = [
    ["````\n```\nshown\n\n", "more\n```\n````\n\nafter"],
    ["~~~\n```\n\n", "x\n```\n~~~\n\nafter"],
    ["```\n~~~\n\n", "x\n~~~\n```\n\nafter"],
    ["```python\ncode\n```x\n\n", "still code\n```\n\nafter"],
]


async def test_a_fence_showing_another_fence_stays_one_block() -> None:
    """A fence closes only with a line of its own character, at least as long, with nothing after it: an append
    between a blank line and the closing fence kept toggling fences on every fence-like line."""

    def check(view: MarkdownView) -> None:
        for pieces in FENCES:
            for width in WIDTHS:
                feed(view, width, pieces)
                feed(view, width, list("".join(pieces)))

    await run(check)


REFERENCES = [
    ["See [docs][1] and [the docs] and [Docs][].\n\n", "[1]: https://docs.example/one\n\n", "[the docs]: /two\n"],
    ["[1]: https://docs.example/one\n\n", "Then [docs][1].\n\n", "And more."],
    ["[docs]\n\n- item with [docs]\n\n> [docs]\n\n", "[docs]: ", "https://d.example\n\n", "end"],
    ["[x]: /first\n\n", "[x]\n\n", "[x]: /second\n\nafter [x]"],
]


async def test_reference_links_resolve_wherever_their_definitions_are() -> None:
    def check(view: MarkdownView) -> None:
        for pieces in REFERENCES:
            for width in WIDTHS:
                feed(view, width, ["".join(pieces)])
                feed(view, width, pieces, then=31)
                feed(view, width, list("".join(pieces)))

    await run(check)


FOUND = {
    "a list item's indented paragraph": ["- a\n\n", "  b"],
    "indented code with a blank line": ["    a\n\n", "    b\n\nafter"],
    "an HTML comment with a blank line": ["<!--\na\n\n", "b\n-->\n\nafter"],
    "a table after a paragraph": ["word\n\n| a |\n|---|"],
    "an HTML block, drawn as nothing but a blank line": ["para\n\n<div>\n\n", "para\n\n<div>"],
    "a rule, which draws its own blank line": ["---\n\n", "<div>\n\nafter\n\n---"],
    "a quote whose last block is a rule": ["para\n\n> ---\n\n", "after"],
    "an image in the last item of a list": ["- a\n- b ", "![i](x) c\n- d"],
    "an image before a list": ["![i](x)\n\n- a\n- b"],
    "markdown-it fails on this text without a line end": ["> - <!--\n>", "  -->"],
    "a closing kbd tag with no opening one": ["a </kbd> b\n\nc"],
    "an opening kbd tag never closed": ["## a <kbd>x\n\nb\n\n- c"],
    "lines ended by CR alone": ["a\r\rb\r\r", "- c\r  d"],
    "white space that is not blank to Markdown": ["a\n\u3000\nb\n\u00a0\n\nc"],
    "an ordered list gaining a digit": ["8. a\n9. b\n\n", "10. c\n\n11. d"],
    "a fence closing inside an item, items after it": ["1) a\n2) `", "``\n   ```\n\n1) b\n2) c\n3) d\n4) e"],
    "items numbered alike, the next one empty a moment": ["* a\n* b\n2) `c` d", " e\n  continued\n2)", " **f** g"],
    "nine items become ten": ["".join(f"{n}. item {n}\n" for n in range(1, 10)), "10. item", " 10\n11. x"],
    "two items in one piece, the first widening the numbers": [
        *(f"{n}. item {n}\n" for n in range(1, 8)),
        "8. item 8\n",
        "9. item 9\n10. item 10\n",
        "11. x",
    ],
    "two items in one piece, the next one empty a moment": [
        *(f"{n}. item {n}\n" for n in range(1, 9)),
        "9. item 9\n10. ",
        "item 10\n11. x",
    ],
}


@pytest.mark.parametrize("name", FOUND)
async def test_found_cases_draw_as_one_render(name: str) -> None:
    """Cases the generated documents found, kept: in their pieces and a character at a time, at every width."""

    def check(view: MarkdownView) -> None:
        for width in WIDTHS:
            feed(view, width, FOUND[name], then=WIDTHS[0] + WIDTHS[-1] - width, at=0)
            feed(view, width, list("".join(FOUND[name])))

    await run(check)


@pytest.mark.timeout(0 if SOAK else 120)
async def test_streamed_markdown_draws_as_one_render() -> None:
    def check(view: MarkdownView) -> None:
        @settings(deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
        @given(streamed(documents()), st.sampled_from(WIDTHS), st.sampled_from([None, *WIDTHS]), st.integers(-1, 30))
        def each(stream: tuple[str, list[str]], width: int, then: int | None, at: int) -> None:
            feed(view, width, stream[1], then, at)

        each()

    await run(check)
