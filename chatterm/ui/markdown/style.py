"""The colours of drawn Markdown, taken from the app's theme.

Rich's Markdown looks its styles up by name (`markdown.h2`, `markdown.code`, ...) in the console's theme, whose
defaults are fixed ANSI colours: bold cyan on black inline code, magenta headings and quotes, whatever the app's
theme. Here every one of those names is given a colour from the Textual theme's variables ($primary, $accent,
$foreground-muted, $surface, the theme's own `markdown-h*-color`, ...), and text is drawn with them pushed on the
console (`render_lines`): the view and anything that draws a text to compare with it (the tests' one render of the
whole text) go through the same function, so they draw the same.
"""

from __future__ import annotations

from rich.console import Console, RenderableType
from rich.segment import Segment
from rich.style import Style
from rich.theme import Theme as RichTheme
from textual.color import Color, ColorParseError
from textual.theme import Theme

_CACHE: dict[tuple[str, int], RichTheme] = {}
"""The Rich theme made for each Textual theme (by name and identity: a theme registered again is new)."""


def theme_variables(theme: Theme) -> dict[str, str]:
    """The CSS variables a theme gives (Textual's colour system, then the theme's own variables)."""
    return {**theme.to_color_system().generate(), **theme.variables}


def _colour(variables: dict[str, str], name: str, fallback: str = "foreground") -> str:
    """The colour of variable `name` as Rich takes it: a translucent colour is blended onto the background, a
    terminal's own colour (an ANSI theme's) stays one, and a value that is not a colour ("auto 87%") gives way to
    `fallback`'s."""
    background = _parsed(variables.get("background", "")) or Color(0, 0, 0)
    for candidate in (name, fallback, "foreground"):
        colour = _parsed(variables.get(candidate, ""))
        if colour is None:
            continue
        if colour.ansi is not None:
            return str(colour.rich_color.name)
        if colour.a == 0:
            return "default"
        if colour.a < 1 and background.ansi is None:
            return (background + colour).hex6
        return colour.hex6
    return "default"


def _parsed(value: str) -> Color | None:
    try:
        return Color.parse(value)
    except ColorParseError:
        return None


def markdown_styles(variables: dict[str, str]) -> dict[str, str]:
    """Rich's Markdown style names, each with a style made of the theme's colours."""

    def colour(name: str, fallback: str = "foreground") -> str:
        return _colour(variables, name, fallback)

    surface, muted = colour("surface", "background"), colour("foreground-muted")
    return {
        "markdown.paragraph": "none",
        "markdown.text": "none",
        "markdown.em": "italic",
        "markdown.emph": "italic",
        "markdown.strong": "bold",
        "markdown.s": "strike",
        "markdown.code": f"{colour('text-accent', 'accent')} on {surface}",
        "markdown.code_block": f"{colour('foreground')} on {surface}",
        "markdown.block_quote": f"italic {muted}",
        "markdown.block_quote.border": colour("primary"),
        "markdown.list": colour("text-secondary", "secondary"),
        "markdown.item": "none",
        "markdown.item.bullet": f"bold {colour('text-secondary', 'secondary')}",
        "markdown.item.number": colour("text-secondary", "secondary"),
        "markdown.item.checked": colour("text-success", "success"),
        "markdown.hr": muted,
        "markdown.h1.border": "none",
        "markdown.h1": f"bold {colour('markdown-h1-color', 'primary')}",
        "markdown.h2": f"bold {colour('markdown-h2-color', 'primary')}",
        "markdown.h3": f"bold {colour('markdown-h3-color', 'primary')}",
        "markdown.h4": f"bold italic {colour('markdown-h4-color')}",
        "markdown.h5": f"italic {colour('markdown-h5-color')}",
        "markdown.h6": f"italic {colour('markdown-h6-color', 'foreground-muted')}",
        "markdown.h7": f"italic {muted}",
        "markdown.link": f"underline {colour('text-primary', 'primary')}",
        "markdown.link_url": f"underline {colour('text-primary', 'primary')}",
        "markdown.url": muted,
        "markdown.table.border": muted,
        "markdown.table.header": f"bold {colour('foreground')}",
        "markdown.kbd": f"bold {colour('text-accent', 'accent')}",
        "markdown.code_number": muted,
    }


def markdown_theme(theme: Theme) -> RichTheme:
    """The Rich theme that draws Markdown in `theme`'s colours."""
    key = (theme.name, id(theme))
    made = _CACHE.get(key)
    if made is None:
        if len(_CACHE) > 32:
            _CACHE.clear()
        made = _CACHE[key] = RichTheme(markdown_styles(theme_variables(theme)), inherit=True)
    return made


def code_label_style(theme: Theme) -> Style:
    """The style of a code block's number (`codes.labelled`), over the block's background."""
    return markdown_theme(theme).styles["markdown.code_number"]


def code_theme(theme: Theme) -> str:
    """The Pygments theme of code blocks' tokens (their background is the theme's: `markdown.code_block`)."""
    return "monokai" if theme.dark else "default"


def render_lines(console: Console, theme: Theme, renderable: RenderableType, width: int) -> list[list[Segment]]:
    """The lines of `renderable` at `width`, padded to it, with Markdown drawn in `theme`'s colours."""
    options = console.options.update(width=max(width, 1), height=None)
    with console.use_theme(markdown_theme(theme)):
        return console.render_lines(renderable, options, pad=True)
