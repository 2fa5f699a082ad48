"""`chatterm show` of answers that hold Markdown headings: the answer's and its reasoning's headings print below the
turn they are in (one level deeper than its heading at least), never at the level of `show`'s own headings, so that
they do not read as turns or branches of the output; what is in a code block stays as it is."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.write import render
from chatterm.cli.main import main
from chatterm.cli.show_turn import below

REASONING = "# Plan\nThe user asks for a greeting.\n## Handling the Request\nSay hello."
ANSWER = (
    "Hello.\n\n## Handling the Request\n\nI said hello.\n\n   ### Details\n\n```bash\n# not a heading\n```\n#nor this"
)


def recording(path: Path) -> Path:
    """One turn whose reasoning and answer hold headings (the answer also a code block with a `#` comment)."""
    chunks = [
        {"choices": [{"index": 0, "delta": {"reasoning_content": REASONING}, "finish_reason": None}]},
        {"choices": [{"index": 0, "delta": {"content": ANSWER}, "finish_reason": "stop"}]},
    ]
    stream = "".join(f"data: {json.dumps(chunk)}\n\n" for chunk in chunks) + "data: [DONE]\n\n"
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "Say hello"}]}).encode()
    interaction = Interaction(
        Request("POST", "http://127.0.0.1/v1/chat/completions", body=body),
        Response(200, {"content-type": ["text/event-stream"]}, stream.encode()),
    )
    path.write_bytes(render(Recording("vcr", [interaction])))
    return path


def show(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["show", *args]) == 0
    return capsys.readouterr().out


@pytest.mark.parametrize(("args", "turn"), [((), "##"), (("--all",), "###")])
def test_an_answers_headings_print_below_its_turn(
    args: tuple[str, ...], turn: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`## Handling the Request` printed as written, at the level of `show`'s `## Turn 1`: a section of the output."""
    out = show(capsys, str(recording(tmp_path / "s.yaml")), *args)
    deeper = turn + "#"
    assert f"[reasoning] {deeper} Plan\nThe user asks for a greeting.\n{deeper}# Handling the Request\n" in out
    assert f"[assistant] Hello.\n\n{deeper} Handling the Request\n\nI said hello.\n\n   {deeper}# Details\n" in out
    assert "```bash\n# not a heading\n```\n#nor this\n" in out, "a code block and a line that is no heading stay"
    own = [line for line in out.splitlines() if re.match(r"#{2,6} ", line) and not line.startswith(deeper)]
    assert own == (["## Turn 1 · m"] if turn == "##" else ["## Branch 1 of 1: turns 1 (active)", "### Turn 1 · m"])


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        ("#### Deep\n##### Deeper", "#### Deep\n##### Deeper"),  # below the turn already
        ("# Top\n###### Sixth", "### Top\n###### Sixth"),  # no deeper than the sixth level
        ("~~~\n## in a block\n~~~~\n# Out", "~~~\n## in a block\n~~~~\n### Out"),
        ("```\n## in a block\n``` not closed\n## still in it", "```\n## in a block\n``` not closed\n## still in it"),
        ("``` a`b\n## Out", "``` a`b\n### Out"),  # (no fence: a backtick in its info)
        ("#Out\n    ## indented code", "#Out\n    ## indented code"),
    ],
)
def test_headings_move_below_the_turn_as_far_as_needed(text: str, shown: str) -> None:
    assert below(text, "##") == shown
