"""Hypothesis strategies for what a model streams: Markdown documents full of the constructs that make an incremental
renderer go wrong, and the pieces a stream cuts a text into.

A document is built from blocks (`blocks`), containers holding blocks in turn (list items, quotes), joined by
blank lines or not; inline text mixes wide and combining characters, emoji sequences, very long words, links of
every form, tabs and trailing spaces. `streamed` cuts a text at any character boundary: a piece may end in the
middle of a fence, a CRLF, a ZWJ sequence or a word.
"""

from __future__ import annotations

import itertools

from hypothesis import strategies as st

WORDS = [
    "word",
    "a",
    "longer-word",
    "**bold**",
    "*em*",
    "~~struck~~",
    "`code`",
    "``a ` tick``",
    "漢字のテキスト",
    "한국어",
    "😀",
    "👩‍💻",
    "👨‍👩‍👧",
    "🇫🇷",
    "e\u0301",
    "x\u0308\u0323",
    "\t",
    "x" * 45,
    "[link](http://x.example/a)",
    "![image](http://x.example/i.png)",
    "<http://auto.example>",
    "<kbd>k</kbd>",
    "<span>",
    "[docs][1]",
    "[Docs][]",
    "[docs]",
    "[two words]",
    "[undefined][nope]",
    "![pic][1]",
    "\\*",
    "&amp;",
    "1.",
    "-",
    "#",
    "*",
    "|",
    "`",
    "```",
    "~~~",
    "[",
    "]:",
]
"""Words, with marks that mean something only at the start of a line (a lazy line may start with them)."""

LABELS = ["1", "docs", "Docs", "two  words", "pic", "nope"]


@st.composite
def inline(draw: st.DrawFn, most: int = 8) -> str:
    """A line of inline text, at least one word; sometimes ending in spaces (two make a hard break)."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=1, max_size=most))
    text = " ".join(words)
    if text[0] in "\t ":
        text = "w" + text
    return text + draw(st.sampled_from(["", "", "", " ", "  ", "\\"]))


@st.composite
def paragraph(draw: st.DrawFn) -> str:
    lines = draw(st.lists(inline(), min_size=1, max_size=3))
    return "\n".join(lines)


@st.composite
def heading(draw: st.DrawFn) -> str:
    text = draw(inline(4))
    kind = draw(st.integers(0, 7))
    if kind < 6:
        return f"{'#' * (kind + 1)} {text}" + draw(st.sampled_from(["", " ##", " #"]))
    return f"{text}\n{draw(st.sampled_from(['===', '---', '=', '-- ']))}"


@st.composite
def fence(draw: st.DrawFn, depth: int = 0) -> str:
    """A fenced code block: backticks or tildes, 3 to 5 long, holding blank lines, other fences (shorter, of the
    other kind, with text after them) and sometimes left open (it runs to the end of its container)."""
    mark = draw(st.sampled_from("`~"))
    length = draw(st.integers(3, 5))
    info = draw(st.sampled_from(["", "python", " json", "js extra words", "~", "rust,ignore"]))
    opener = mark * length + info
    other = "~" if mark == "`" else "`"
    inner = [
        "code line",
        "    indented code",
        "",
        "",
        "  ",
        other * 3,
        other * 4 + "python",
        mark * 3 + ("" if length > 3 else "x"),
        mark * (length - 1),
        mark * length + " not a close",
        "# not a heading",
        "- not an item",
        "> not a quote",
        "[1]: http://not.a.definition",
        "漢字 👩‍💻 e\u0301",
        "\tx = 1",
    ]
    body = draw(st.lists(st.sampled_from(inner), max_size=7))
    closer = draw(
        st.sampled_from([mark * length, mark * (length + 1), "  " + mark * length, mark * length + "  ", None])
    )
    lines = [opener, *body]
    if closer is not None:
        lines.append(closer)
    return "\n".join(lines)


@st.composite
def indented_code(draw: st.DrawFn) -> str:
    lines = draw(
        st.lists(st.sampled_from(["    code", "    ", "", "        deeper", "\tx = 1", "    ```"]), max_size=5)
    )
    return "\n".join(["    first code line", *lines, "    last"])


@st.composite
def table(draw: st.DrawFn) -> str:
    columns = draw(st.integers(1, 3))
    rows = draw(st.integers(0, 3))
    cell = st.sampled_from(["a", "**b**", "`c`", "漢字", "😀", "x" * 20, "", "[docs][1]"])

    def row() -> str:
        return "| " + " | ".join(draw(cell) for _ in range(columns)) + " |"

    align = "|" + "|".join(draw(st.sampled_from(["---", ":--", "--:", ":-:"])) for _ in range(columns)) + "|"
    return "\n".join([row(), align, *(row() for _ in range(rows))])


RULES = ["---", "***", "___", "- - -", "* * *", "-----", " ---"]
HTML = [
    "<div>\nhtml text\n</div>",
    "<div>\n\n*markdown inside*\n\n</div>",
    "<!-- a comment -->",
    "<!--\na comment\n\nwith a blank line\n-->",
    "<pre>\npre\n\nformatted\n</pre>",
    "<details>\n<summary>more</summary>\n\ntext\n</details>",
    "<img src=x>",
    "<custom-tag>\n",
    "<?php echo 1; ?>",
]
DEFINITIONS = [
    "[1]: https://docs.example/one",
    "[docs]: https://docs.example/two 'a title'",
    '[DOCS]: <https://docs.example/three> "title"',
    "[two words]:\n  https://docs.example/four",
    "[pic]: http://x.example/p.png",
    "[1]: https://docs.example/later-duplicate",
    "[nope]: not a definition because of this",
]


@st.composite
def definition(draw: st.DrawFn) -> str:
    return draw(st.sampled_from(DEFINITIONS))


def leaf() -> st.SearchStrategy[str]:
    """A block that holds no other blocks."""
    return st.one_of(
        paragraph(),
        paragraph(),
        heading(),
        fence(),
        indented_code(),
        table(),
        st.sampled_from(RULES),
        st.sampled_from(HTML),
        definition(),
    )


def indent(text: str, by: str, first: str) -> str:
    """`text` as the content of a container: its first line after `first`, the others after `by` (blank lines
    left blank, or given the indent)."""
    lines = text.split("\n")
    return "\n".join([first + lines[0], *((by + line) if line.strip() else line for line in lines[1:])])


@st.composite
def list_block(draw: st.DrawFn, inner: st.SearchStrategy[str]) -> str:
    """A list: bullets or numbers (some about to gain a digit; counted on, all the same, or any), items holding
    blocks (continued after a blank line, nested lists, code), task items, tight or loose."""
    ordered = draw(st.booleans())
    start = draw(st.sampled_from([1, 1, 7, 8, 9, 97, 98, 99, 0]))
    bullet = draw(st.sampled_from("-*+"))
    delimiter = draw(st.sampled_from(".)"))
    numbering = draw(st.sampled_from(["counted", "counted", "all the same", "any"]))
    items = []
    for index in range(draw(st.integers(1, 4))):
        number = {"counted": start + index, "all the same": start}.get(numbering) or draw(st.sampled_from([2, 9, 10]))
        marker = f"{number}{delimiter} " if ordered else f"{bullet} "
        marker += draw(st.sampled_from(["", "", "", "[ ] ", "[x] "]))
        contents = draw(st.lists(inner, min_size=1, max_size=2))
        body = draw(st.sampled_from(["\n", "\n\n"])).join(contents)
        items.append(indent(body, " " * len(marker.split("[")[0]), marker))
    return draw(st.sampled_from(["\n", "\n\n"])).join(items)


@st.composite
def quote(draw: st.DrawFn, inner: st.SearchStrategy[str]) -> str:
    """A block quote: its lines marked, or some left lazy (a paragraph's continuation needs no marker)."""
    body = "\n\n".join(draw(st.lists(inner, min_size=1, max_size=2)))
    marker = draw(st.sampled_from(["> ", ">", " > "]))
    lazy = draw(st.booleans())
    out = []
    for line in body.split("\n"):
        if not line.strip():
            out.append(">" if draw(st.booleans()) else "")
        else:
            out.append(line if lazy and out and draw(st.integers(0, 3)) == 0 else marker + line)
    return "\n".join(out)


blocks: st.SearchStrategy[str] = st.recursive(
    leaf(), lambda inner: st.one_of(list_block(inner), quote(inner)), max_leaves=6
)
"""One block, a container of blocks included."""

SEPARATORS = ["\n\n", "\n\n", "\n\n", "\n", "\n\n\n", "\n \n", "\n\t\n"]


NOISE = ["\n", "\n\n", " ", "   ", "\t", ">", "- ", "1. ", "2) ", "`", "```", "~~~", "\r\n", "[", "]", "#", "*", "|"]
"""Marks dropped into a document at random: the odd cases no block strategy writes."""


@st.composite
def documents(draw: st.DrawFn, most: int = 6) -> str:
    """A Markdown answer: blocks mostly apart, sometimes one line after another (a list interrupting a
    paragraph), sometimes with marks dropped in anywhere, CRLF line ends, leading or trailing newlines."""
    parts = draw(st.lists(blocks, min_size=1, max_size=most))
    text = draw(st.sampled_from(["", "", "", "\n", "  ", "\n\n"])) + parts[0]
    for part in parts[1:]:
        text += draw(st.sampled_from(SEPARATORS)) + part
    text += draw(st.sampled_from(["", "", "\n", "\n\n", "\n  "]))
    for _ in range(draw(st.integers(0, 4)) if draw(st.integers(0, 2)) == 0 else 0):
        at = draw(st.integers(0, len(text)))
        text = text[:at] + draw(st.sampled_from(NOISE)) + text[at:]
    if draw(st.integers(0, 9)) == 0:
        text = text.replace("\n", "\r\n")
    return text


@st.composite
def streamed(draw: st.DrawFn, texts: st.SearchStrategy[str]) -> tuple[str, list[str]]:
    """A text and the pieces it arrives in, cut at any character boundary (one character, many lines)."""
    text = draw(texts)
    cuts = sorted(set(draw(st.lists(st.integers(1, max(len(text) - 1, 1)), max_size=max(len(text) // 3, 1)))))
    bounds = [0, *(cut for cut in cuts if cut < len(text)), len(text)]
    return text, [text[a:b] for a, b in itertools.pairwise(bounds) if b > a]
