"""How Markdown's elements are drawn in an answer: in the theme's colours, whatever the theme, with list numbers,
task boxes, link URLs and long code lines as a reader needs them."""

from __future__ import annotations

import pytest
from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.app import App, ComposeResult
from textual.color import Color
from textual.theme import BUILTIN_THEMES, Theme

from chatterm.ui.markdown.style import markdown_theme, theme_variables
from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.themes import load_themes


class Host(App[None]):
    def compose(self) -> ComposeResult:
        yield MarkdownView()


def shipped_and_builtin() -> list[Theme]:
    shipped, problems = load_themes()
    assert not problems and len(shipped) >= 3
    return [*shipped, *BUILTIN_THEMES.values()]


async def drawn(text: str, width: int = 60, theme: str = "textual-dark") -> list[list[Segment]]:
    app = Host()
    app.theme = theme
    async with app.run_test(size=(width, 40)) as pilot:
        view = app.query_one(MarkdownView)
        view.update(text)
        await pilot.pause()
        return [list(line) for line in view.lines]


def texts(lines: list[list[Segment]]) -> list[str]:
    """The text of the lines, blank ones left out."""
    return [text for line in lines if (text := "".join(seg.text for seg in line).rstrip())]


def style_of(lines: list[list[Segment]], word: str) -> Style:
    for line in lines:
        for seg in line:
            if word in seg.text and seg.style is not None:
                return seg.style
    raise AssertionError(f"{word!r} is not drawn")


def contrast(a: RichColor | None, b: RichColor | None) -> float:
    assert a is not None and b is not None
    one, two = (Color.from_rich_color(colour) for colour in (a, b))
    return abs(one.brightness - two.brightness)


async def test_ordered_lists_keep_their_delimiter() -> None:
    assert texts(await drawn("1. first\n2. second\n"))[:2] == [" 1. first", " 2. second"]
    assert texts(await drawn("3) third\n4) fourth\n"))[:2] == [" 3) third", " 4) fourth"]


async def test_task_lists_show_boxes() -> None:
    assert texts(await drawn("- [ ] to do\n- [x] done\n- [X] also\n- plain [ ] box\n"))[:4] == [
        " • ☐ to do",
        " • ☑ done",
        " • ☑ also",
        " • plain [ ] box",
    ]


async def test_a_link_shows_its_url_dimmed_when_the_text_is_not_the_url() -> None:
    text = "See [the docs](https://example.com/docs), <https://example.org> and [x][r].\n\n[r]: /ref\n"
    lines = await drawn(text, width=100)
    assert texts(lines)[0] == "See the docs (https://example.com/docs), https://example.org and x (/ref)."
    link, url = style_of(lines, "the docs"), style_of(lines, "example.com")
    assert link.underline and link.link == "https://example.com/docs"
    assert not url.underline and url.color != link.color, "the URL is dimmed, not a second link"


async def test_a_long_code_line_wraps_under_its_indent() -> None:
    code = "```python\ndef f():\n    return some_function(argument_one, argument_two, argument_three)\n```\n"
    lines = texts(await drawn(code, width=50))
    assert lines[:3] == [" def f():", "     return some_function(argument_one,", "       argument_two, argument_three)"]
    continued = len(lines[2]) - len(lines[2].lstrip())
    assert continued == 1 + 4 + 2, "the continuation starts two columns in from the line's indent (after the padding)"
    assert (
        " ".join(line.strip() for line in lines[1:])
        == "return some_function(argument_one, argument_two, argument_three)"
    )


async def test_a_table_cell_wider_than_its_column_folds_and_loses_nothing() -> None:
    """Rich cuts a cell's word that is wider than its column short with an ellipsis: at a narrow terminal a table of
    code lost characters on screen. The cell folds onto the next lines instead."""
    code = "sorted(itertools.chain(first_list,second_list))"
    table = f"| approach | code |\n|---|---|\n| merge | `{code}` |\n"
    for width in (30, 50, 60):
        lines = texts(await drawn(table, width=width))
        assert not any("…" in line for line in lines), (width, lines)
        cells = [line.split()[-1] for line in lines[2:] if line.split()]
        assert "".join(cells) == code, (width, lines)


@pytest.mark.parametrize("theme", shipped_and_builtin(), ids=lambda theme: theme.name)
def test_every_markdown_colour_comes_from_the_theme(theme: Theme) -> None:
    """Inline code and code blocks on the theme's surface (no black boxes in light themes), readable; headings not
    underlined like links; quotes not in the error colour."""
    styles = markdown_theme(theme).styles
    variables = theme_variables(theme)
    terminal = variables["foreground"].startswith("ansi_")  # (the terminal's own colours: it decides contrast)
    surface = Color.parse(variables["surface"])
    for name in ("markdown.code", "markdown.code_block"):
        style = styles[name]
        assert style.bgcolor is not None, name
        if terminal:
            assert style.bgcolor.is_default or style.bgcolor.number is not None
            continue
        assert Color.from_rich_color(style.bgcolor).hex6 == surface.hex6, name
        assert contrast(style.color, style.bgcolor) > 0.25, f"{name} is readable on its background"
    for level in range(1, 7):
        assert not styles[f"markdown.h{level}"].underline
    assert styles["markdown.link_url"].underline
    quote = styles["markdown.block_quote"].color
    assert quote is not None and quote != RichColor.parse(str(Color.parse(variables["error"]).rich_color.name))
    named = [style.color for name, style in styles.items() if name.startswith("markdown.") and style.color is not None]
    assert terminal or all(colour.triplet is not None for colour in named), "no fixed ANSI colours: the theme's"


async def test_a_theme_change_redraws_an_answer_in_its_colours() -> None:
    app = Host()
    app.theme = "textual-dark"
    async with app.run_test(size=(60, 20)) as pilot:
        view = app.query_one(MarkdownView)
        view.update("Some `code` here.")
        await pilot.pause()
        dark = style_of([list(view.render_line(0))], "code").bgcolor
        app.theme = "textual-light"
        await pilot.pause()
        await pilot.pause()
        light = style_of([list(view.render_line(0))], "code").bgcolor
        assert light is not None and light.triplet is not None
        assert dark != light
        assert (
            light.triplet.hex.upper() == Color.parse(theme_variables(BUILTIN_THEMES["textual-light"])["surface"]).hex6
        )
