"""The streaming Markdown widget renders the same lines however the text arrives."""

from __future__ import annotations

import random
from collections.abc import Iterator

from textual.app import App, ComposeResult
from textual.strip import Strip
from textual.widget import Widget

from chatterm.ui.markdown.text import TextView
from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.render.support import custom_rendering

DOCUMENT = (
    "# Heading\n\nA paragraph with **bold**, `code` and a [link](http://x).\n\n"
    "1. first\n2. second\n\n   still the second item\n\n3. third\n\n"
    "```python\ndef f(x):\n\n    return x * 2\n```\n\n> a quote\n> on two lines\n\n"
    "| a | b |\n|---|---|\n| 1 | 2 |\n\nThe end, without a final newline"
)


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield MarkdownView(id="whole")
        yield MarkdownView(id="pieces")


async def test_any_split_renders_like_the_whole() -> None:
    app = Host()
    async with app.run_test(size=(80, 80)) as pilot:
        whole, pieces = app.query_one("#whole", MarkdownView), app.query_one("#pieces", MarkdownView)
        whole.append(DOCUMENT)
        rng = random.Random(5)
        at = 0
        while at < len(DOCUMENT):
            step = rng.randint(1, 12)
            pieces.append(DOCUMENT[at : at + step])
            at += step
            if rng.random() < 0.2:
                await pilot.pause()
        await pilot.pause()
        assert pieces.source == whole.source == DOCUMENT

        def content(view: MarkdownView) -> list[str]:
            return [s.text.rstrip() for s in view.lines if s.text.strip()]

        assert content(pieces) == content(whole)
        text = "\n".join(s.text for s in pieces.lines)
        assert "Heading" in text and "def f(x):" in text and "The end" in text
        assert len(pieces._frozen) >= 3, "settled blocks were frozen along the way"


async def test_update_and_resize() -> None:
    app = Host()
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one("#whole", MarkdownView)
        view.append("word " * 40)
        await pilot.pause()
        narrow = len(view.lines)
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        assert len(view.lines) < narrow, "re-wrapped at the new width"
        view.update("just this")
        await pilot.pause()
        assert view.source == "just this" and [s.text.strip() for s in view.lines] == ["just this"]


async def test_streamed_lines_match_one_plain_render() -> None:
    """Chunking is invisible: the non-blank lines are those of rendering the whole document at once."""
    from chatterm.ui.markdown.blocks import markdown

    app = Host()
    async with app.run_test(size=(80, 80)) as pilot:
        view = app.query_one("#pieces", MarkdownView)
        for at in range(0, len(DOCUMENT), 7):
            view.append(DOCUMENT[at : at + 7])
        await pilot.pause()
        options = app.console.options.update(width=view._width, height=None)
        plain = app.console.render_lines(markdown(DOCUMENT, "monokai"), options, pad=True)
        expected = ["".join(s.text for s in line).rstrip() for line in plain]
        assert [s.text.rstrip() for s in view.lines if s.text.strip()] == [e for e in expected if e.strip()]


async def test_finished_blocks_freeze_while_a_list_stays_open() -> None:
    """Blocks that nothing after them can continue are frozen at once, several per append included, in one piece
    (else the tail, re-rendered at every append, grows with the answer); a list stays in the tail while the next line
    may continue it (indented, or another item), and is frozen as soon as a line shows it cannot."""
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one("#pieces", MarkdownView)
        view.append("- item\n\n## One\n\n paragraph one\n\n## Two\n\n paragraph two\n\n")
        view.append("last")
        await pilot.pause()
        assert view._frozen == ["- item\n\n## One\n\n paragraph one\n\n## Two\n\n paragraph two\n\n"]
        assert view._tail == "last"
        view.update("")
        view.append("1. first\n\n   more of the first\n\n2. second\n\n")
        view.append("   more of the second")
        assert view._frozen == [] and view._tail == view.source
        view.append("\n\n")
        assert view._frozen == [], "(an indented line or another item may still come)"
        view.append("T")
        assert view._frozen == [view.source[:-1]] and view._tail == "T"


async def test_blocks_freeze_as_soon_as_nothing_can_change_them() -> None:
    """A heading, a closed fence and a rule are final at the end of their line; a fence that shows other fences, or an
    HTML comment, with blank lines in them, are not final until they close."""
    app = Host()
    async with app.run_test(size=(80, 40)) as pilot:
        view = app.query_one("#pieces", MarkdownView)
        await pilot.pause()
        steps = [
            ("# Title\n", ["# Title\n"], ""),
            ("````\n```\n\n", ["# Title\n"], "````\n```\n\n"),
            ("x\n```\n\n", ["# Title\n"], "````\n```\n\nx\n```\n\n"),
            ("````\n", ["# Title\n", "````\n```\n\nx\n```\n\n````\n"], ""),
            ("<!--\n\n", ["# Title\n", "````\n```\n\nx\n```\n\n````\n"], "<!--\n\n"),
            ("-->\n\n---\n", ["# Title\n", "````\n```\n\nx\n```\n\n````\n", "<!--\n\n-->\n\n---\n"], ""),
        ]
        for text, frozen, tail in steps:
            view.append(text)
            assert (view._frozen, view._tail) == (frozen, tail), text


async def test_grows_with_room_ahead_and_fits_when_done() -> None:
    """Each growth relayouts the whole screen, so a streaming text grows two screens' height at a time (the view
    follows the text, not the widget: tests/ui/test_following.py); at the end its height is exactly its lines."""
    from chatterm.ui.markdown.view import GROWTH_ROOM, GROWTH_SCREENS

    app = Host()
    async with app.run_test(size=(40, 30)) as pilot:
        view = app.query_one("#pieces", MarkdownView)
        heights = set()
        for n in range(40):
            view.append(f"line {n} of the answer\n\n")
            await pilot.pause()
            assert view.line_count <= view.size.height <= view.line_count + max(GROWTH_ROOM, GROWTH_SCREENS * 30)
            heights.add(view.size.height)
        assert len(heights) <= 3, "a relayout per screenful, not per line"
        view.fit_height()
        await pilot.pause()
        assert view.size.height == view.line_count


def test_the_shared_parser_draws_exactly_as_rich_does() -> None:
    """Blocks are parsed by one shared markdown-it parser (Rich builds one per Markdown): same segments, styles
    included, strikethrough and tables too, and one text never leaks into another."""
    from rich.console import Console

    from chatterm.ui.markdown.blocks import markdown as _markdown
    from chatterm.ui.markdown.elements import ChatMarkdown, tasks_and_urls

    console = Console(width=70, color_system="truecolor")
    options = console.options.update(height=None)
    text = DOCUMENT + "\n\n~~struck~~ and *emphasis*"
    for theme in ("monokai", "default"):
        ours = console.render_lines(_markdown(text, theme), options)
        assert _markdown("other", theme) is not _markdown("other", theme)
        own = ChatMarkdown(text, code_theme=theme)
        tasks_and_urls(own.parsed)
        assert ours == console.render_lines(own, options)


async def test_a_fit_right_after_a_growth_is_not_lost() -> None:
    """Textual caches a widget's box model until the widget's layout counter moves, and a second request for a
    relayout before the first is handled does not move it: when the screen lays out in between (another widget
    asked), the view kept its grown height after the answer ended, and a whole answer arriving at once was
    shown as blank room."""
    app = Host()
    async with app.run_test(size=(80, 30)) as pilot:
        view = app.query_one("#pieces", MarkdownView)
        app.query_one("#whole", MarkdownView).append("earlier\n\n" * 40)  # taller than the screen: a scrollbar
        await pilot.pause()
        view.append("".join(f"line {n}\n\n" for n in range(100)))  # grows: a relayout is asked for
        for node in view.ancestors:  # another widget asked for a layout (as a sibling's request clears these)
            if isinstance(node, Widget):
                node._clear_arrangement_cache()
        app.screen._refresh_layout()  # and the screen lays out before the view's own request is handled
        assert view.size.height > view.line_count, "laid out with room to grow"
        view.fit_height()
        await pilot.pause()
        await pilot.pause()
        assert view.size.height == view.line_count


class WholeTail(MarkdownView):
    """Renders the block being written whole each time: what the incremental renders are compared with."""

    def _render_tail(self) -> list[Strip]:
        return self._render_text(self._tail)


class WholeTextView(WholeTail, TextView):
    """The reasoning view drawing its last paragraph whole each time."""


class WholeTailView(WholeTail):
    """The Markdown view rendering its tail whole each time, a list included."""


class Pair(App[None]):
    """A view (#ours) and the same kind of view rendering its tail whole (#whole)."""

    def __init__(self, ours: type[MarkdownView], whole: type[MarkdownView]) -> None:
        super().__init__()
        self.views = (ours, whole)

    def compose(self) -> ComposeResult:
        yield self.views[0](id="ours")
        yield self.views[1](id="whole")


def restart(width: int, *views: MarkdownView) -> None:
    for view in views:
        view.update("")
        view._set_width(width)


def pieces(text: str, rng: random.Random, longest: int) -> Iterator[tuple[str, int]]:
    """`text` cut at random as it streams: each piece, and how far into the text the pieces reach after it."""
    at = 0
    while at < len(text):
        step = rng.randint(1, longest)
        yield text[at : at + step], at + step
        at += step


def random_text(rng: random.Random) -> str:
    pieces = ["word", "a", "reasoning", " ", " ", " ", "  ", "\n", "\n\n", "\t", "漢字のテキスト"]
    pieces.append("x" * rng.randint(20, 70))
    return "".join(rng.choice(pieces) if rng.random() < 0.5 else rng.choice(pieces[:3]) + " " for _ in range(60))


def drawn(view: MarkdownView) -> list[Strip]:
    """The lines as the terminal shows them (Rich may cut a run of same-styled text into segments differently)."""
    return [line.simplify() for line in view.lines]


async def test_reasoning_is_wrapped_a_line_at_a_time_exactly_as_a_whole_render() -> None:
    """The reasoning view keeps the lines of its last paragraph but the last one (word wrapping is greedy): at every
    step, whatever the pieces and the width, its lines are those of wrapping the whole text again."""
    app = Pair(TextView, WholeTextView)
    async with app.run_test(size=(100, 20)) as pilot:
        ours, whole = app.query_one("#ours", TextView), app.query_one("#whole", TextView)
        rng = random.Random(3)
        for case in range(60):
            text, width = random_text(rng), rng.choice([5, 12, 31, 80])
            restart(width, ours, whole)
            for piece, at in pieces(text, rng, 25):
                ours.append(piece)
                whole.update(text[:at])
                assert drawn(ours) == drawn(whole), f"case {case} at {at}: {text[:at]!r}"
        for view in (ours, whole):
            view.update("")
            view._set_width(view.size.width)
        for n in range(300):
            ours.append(f"thought{n} ")
        if custom_rendering():  # (the stock path wraps the last paragraph whole)
            assert len(ours._kept) == len(ours.lines) - 1 > 20, "only the last line of a paragraph is wrapped again"
        whole.update(ours.source)
        app.theme = "textual-light" if app.current_theme.dark else "textual-dark"
        await pilot.pause()
        assert drawn(ours) == drawn(whole), "drawn again in the new theme's colours"


def random_lists(rng: random.Random) -> str:
    """Markdown full of lists: bullets, numbers about to gain a digit, nested and continued items, and lines that
    look like items but are not (thematic breaks, code, numbers that cannot interrupt a paragraph)."""
    words = ["word", "**bold**", "`code`", "[link](http://x)", "a", "longer-word", "*em*", "x" * 30, "<!-- c -->"]
    lines: list[str] = []
    number = 1
    for _ in range(rng.randint(4, 16)):
        roll = rng.random()
        text = " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
        if roll < 0.3:
            lines.append(f"{rng.choice('-*+')} {text}")
        elif roll < 0.5:
            number = rng.choice([number + 1, number + 1, number + 1, number, 1, 9, 99, 0])
            lines.append(f"{number}{rng.choice('..)')} {text}")
        elif roll < 0.6:
            lines.append(f"  {rng.choice(['- ', '1. ', '', '  '])}{text}")
        elif roll < 0.68:
            lines.append(
                rng.choice(
                    ["- - -", "* * *", "---", "- -", "-", "# Heading", "> quote", "| a | b |", "- [r]: http://r"]
                )
            )
        elif roll < 0.74:
            lines += ["```", f"- {text}", "1. not an item", "```"]
        elif roll < 0.8:
            lines.append("")
        else:
            lines.append(text)
    return "\n".join(lines)


async def test_a_list_renders_its_last_item_alone_exactly_as_the_whole_tail() -> None:
    """The block being written, in a list, renders only its last item again: at every step, whatever the pieces and
    the width, the lines are those of rendering the whole block (items that turn out to be drawn as nothing, numbers
    that gain a digit, lines that look like items and are not included)."""
    app = Pair(MarkdownView, WholeTailView)
    async with app.run_test(size=(100, 20)) as pilot:
        ours, whole = app.query_one("#ours", MarkdownView), app.query_one("#whole", MarkdownView)
        await pilot.pause()
        rng = random.Random(11)
        split = 0
        for case in range(50):
            text, width = random_lists(rng), rng.choice([20, 47, 80])
            restart(width, ours, whole)
            for piece, at in pieces(text, rng, 30):
                for view in (ours, whole):
                    view.append(piece)
                split += ours._items.kept is not None
                assert drawn(ours) == drawn(whole), f"case {case} at {at}: {text[:at]!r}"
        assert split > 500, "the last item was rendered alone often"


class Freezing(MarkdownView):
    """Counts the blocks frozen with the lines of their list kept from the tail, but those of its last item."""

    def __init__(self, *, id: str | None = None) -> None:
        self.rendered: list[str] = []
        """The texts rendered for the last block."""
        super().__init__(id=id)
        self.freezing = False
        self.kept = 0

    def _freeze(self, end: int) -> None:
        self.freezing = True
        try:
            super()._freeze(end)
        finally:
            self.freezing = False

    def _render_block(self, block: str, start: int) -> list[Strip]:
        self.rendered = []
        lines = super()._render_block(block, start)
        self.kept += self.freezing and block not in self.rendered  # (its last item alone was rendered)
        return lines

    def _render_text(self, text: str) -> list[Strip]:
        self.rendered.append(text)
        return super()._render_text(text)


def random_answer(rng: random.Random) -> str:
    """Paragraphs that lists interrupt (as models write them), lists that end in a blank line, headings, code."""
    words = ["word", "**bold**", "`code`", "a", "longer-word", "*em*", "x" * 30, "[link](http://x)"]
    blocks: list[str] = []
    for _ in range(rng.randint(3, 8)):
        text = " ".join(rng.choice(words) for _ in range(rng.randint(1, 12)))
        roll = rng.random()
        if roll < 0.6:
            marks = ["-", "*", "1.", "2)"]
            endings = ["", "", "\n  continued on", "\n\n  a second paragraph"]
            items = [
                f"{rng.choice(marks)} "
                + " ".join(rng.choice(words) for _ in range(rng.randint(0, 12)))
                + rng.choice(endings)
                for _ in range(rng.randint(1, 4))
            ]
            blocks.append("\n".join([text, *items] if rng.random() < 0.6 else items))
        elif roll < 0.75:
            blocks.append(f"## {text}")
        elif roll < 0.85:
            blocks.append(f"```\n{text}\n```")
        else:
            blocks.append(text)
    return "\n\n".join(blocks) + rng.choice(["", "\n\n", "\n\nThe end."])


async def test_a_finished_list_keeps_the_lines_of_its_items_but_the_last() -> None:
    """A list that ends (the next block cannot continue it) is frozen with the lines its tail had, but those of its
    last item: after every freeze the lines are those of rendering every block whole."""
    app = Pair(Freezing, WholeTailView)
    async with app.run_test(size=(100, 20)) as pilot:
        ours, whole = app.query_one("#ours", Freezing), app.query_one("#whole", MarkdownView)
        await pilot.pause()
        rng = random.Random(5)
        for case in range(40):
            text, width = random_answer(rng), rng.choice([20, 47, 80])
            restart(width, ours, whole)
            for piece, at in pieces(text, rng, 40):
                frozen = len(ours._frozen)
                for view in (ours, whole):
                    view.append(piece)
                if len(ours._frozen) != frozen or at >= len(text):  # (the tail alone: the test above)
                    assert drawn(ours) == drawn(whole), f"case {case} at {at}: {text[:at]!r}"
        assert ours.kept > 30, f"lists were frozen with their kept lines: {ours.kept}"


async def test_a_replaced_list_is_drawn_anew() -> None:
    app = Pair(MarkdownView, WholeTailView)
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one("#ours", MarkdownView)
        await pilot.pause()
        view.append("- a\n- b")
        view.update("- x\n- y")  # (its last item starts where the replaced one's did)
        view.append(" and z")
        assert [line.text.strip() for line in view.lines if line.text.strip()] == ["• x", "• y and z"]


async def test_blocks_that_settle_together_are_repainted() -> None:
    """Several paragraphs can come in one flush, and all but the last settle at once: every line that changed is
    repainted, not only those from the block being written on (lines were left blank on screen until the answer
    ended, found by watching one stream in tmux)."""
    app = Host()
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(MarkdownView)
        view.append("Line 0.\n\n")  # (grows the view, with room for what follows)
        await pilot.pause()
        for text in ["Line 1.\n\n", "Line 2.\n\nLine 3.\n\nLine 4.\n\n", "Line 5.\n\n- a\n- b\n\nLine 6.\n\n"]:
            before = [strip.text for strip in view.lines]
            view._repaint_regions.clear()
            view.append(text)
            assert view.line_count <= view._laid_out, "(no growth: the room is there)"
            repainted = {y for region in view._repaint_regions for y in region.line_range}
            changed = {y for y, strip in enumerate(view.lines) if y >= len(before) or strip.text != before[y]}
            assert changed and changed <= repainted, (text, sorted(changed - repainted))
            await pilot.pause()


async def test_words_added_to_a_paragraph_repaint_from_the_line_they_change() -> None:
    """A paragraph being written is drawn again at every append, but only its lines that changed are repainted: a
    word added changes the last line (and may add more), not the lines above it."""
    app = Host()
    async with app.run_test(size=(60, 40)) as pilot:
        view = app.query_one(MarkdownView)
        view.append("Before.\n\n" + " ".join(f"word{n}" for n in range(40)))
        await pilot.pause()
        for text in [" more", " and more words to wrap onto a line of their own", "\n\nNext."]:
            before = [strip.text for strip in view.lines]
            view._repaint_regions.clear()
            view.append(text)
            repainted = {y for region in view._repaint_regions for y in region.line_range}
            changed = {y for y, strip in enumerate(view.lines) if y >= len(before) or strip.text != before[y]}
            assert changed <= repainted, (text, sorted(changed - repainted))
            assert min(repainted) == min(changed), (text, min(repainted), min(changed))
            await pilot.pause()
