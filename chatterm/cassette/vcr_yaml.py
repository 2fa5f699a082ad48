"""vcrpy cassettes written as YAML (format 1), loadable by vcrpy and replayable through httpx in any test suite.

chatterm's own fields (the time offset of each event, the error an answer ended with, the profile and model that
answered, its place in the conversation tree) go under `x_chatterm` in each response, which vcrpy ignores; a
session's branch switches go in a top-level `x_chatterm` after the items, one short line each. A session being
streamed is written again every second, so one interaction's item is rendered incrementally (`ItemWriter`) and a
cassette is assembled from items (`assemble_vcr`): a new exchange or a branch switch adds to what was rendered,
it never renders the items before it again, and a saver writes the parts (`vcr_parts`) without joining them.
"""

from __future__ import annotations

import re
from typing import Any

import yaml

from chatterm.cassette.dataio import SafeDumper
from chatterm.cassette.model import Interaction, Recording, Request, Response, Switch, reason_phrase
from chatterm.cassette.vcr import EXTRA


class _FlowList(list[Any]):
    """A list written on one line (the per-event offsets)."""


class _Dumper(SafeDumper):  # type: ignore[misc, valid-type]
    pass


def _represent_str(dumper: yaml.SafeDumper, text: str) -> yaml.ScalarNode:
    style = "|" if "\n" in text and "\r" not in text else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", text, style=style)


def _represent_flow(dumper: yaml.SafeDumper, items: _FlowList) -> yaml.SequenceNode:
    return dumper.represent_sequence("tag:yaml.org,2002:seq", items, flow_style=True)


_Dumper.add_representer(str, _represent_str)
_Dumper.add_representer(_FlowList, _represent_flow)


def dump_yaml(data: Any) -> bytes:
    text: str = yaml.dump(data, Dumper=_Dumper, allow_unicode=True, sort_keys=False, width=1 << 20)
    return text.encode("utf-8")


_UNSAFE_IN_YAML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ufeff\u2028\u2029]")


def text_or_bytes(body: bytes) -> str | bytes:
    """Bodies are written as text when they are UTF-8 that YAML carries exactly, else as `!!binary`."""
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError:
        return body
    if _UNSAFE_IN_YAML.search(text):
        return body  # YAML would normalise or escape these unreliably across loaders
    return text


def _offsets_list(offsets: list[tuple[float, int]]) -> _FlowList:
    return _FlowList(_FlowList([round(at, 4), end]) for at, end in offsets)


def extra_of(interaction: Interaction, offsets: object = None) -> dict[str, Any]:
    """chatterm's own fields of an interaction; `offsets`, when given, stands in for its event offsets."""
    response = interaction.response
    extra: dict[str, Any] = dict(interaction.meta)
    if response.offsets:
        extra["offsets"] = offsets if offsets is not None else _offsets_list(response.offsets)
    if response.error:
        extra["error"] = response.error
    return extra


def vcr_item(interaction: Interaction, body: object = None, offsets: object = None) -> dict[str, Any]:
    """One interaction as vcrpy stores it; `body` and `offsets`, when given, stand in for the response's."""
    request = interaction.request or Request(method="POST", url="")
    response = interaction.response
    item: dict[str, Any] = {
        "request": {
            "body": text_or_bytes(request.body) if request.body else None,
            "headers": request.headers,
            "method": request.method,
            "uri": request.url,
        },
        "response": {
            "body": {"string": text_or_bytes(response.body) if body is None else body},
            "headers": response.headers,
            "status": _status(response),
        },
    }
    extra = extra_of(interaction, offsets)
    if extra:
        item["response"][EXTRA] = extra
    return item


def _status(response: Response) -> dict[str, Any]:
    """The status as vcrpy keeps it; none at all (`code: null`) for a request that got no answer."""
    if response.status is None and not response.body and response.error:
        return {"code": None, "message": ""}
    return {"code": response.status or 200, "message": response.reason or reason_phrase(response.status)}


_BODY = "chatterm-body-placeholder-7f3e"
_OFFSETS = "chatterm-offsets-placeholder-7f3e"


class ItemWriter:
    """Writes one interaction as the YAML of one cassette item, again at each save while its response grows.

    A streaming answer is saved every second. The body is written as a literal block directly rather than through
    the YAML emitter (whose character-by-character analysis would hold the interpreter), and the lines of the body
    and the offsets of the events written at one save are kept for the next: a save costs what the answer added
    since the last one, not its whole length again.
    """

    def __init__(self) -> None:
        self._body = b""
        """The start of the body, complete lines that YAML carries exactly, whose text `_lines` holds."""
        self._lines: list[str] = []
        self._padded: list[str] = []
        """The first of `_lines` as lines of the block at `_indent`."""
        self._indent = 0
        self._offsets: list[tuple[float, int]] = []
        self._offset_texts: list[str] = []

    def render(self, interaction: Interaction) -> bytes:
        response = interaction.response
        rest = self._text_lines(response.body)  # (None: not a literal block)
        offsets = response.offsets
        item = vcr_item(interaction, body=None if rest is None else _BODY, offsets=_OFFSETS if offsets else None)
        text = dump_yaml([item]).decode("utf-8")
        if rest is not None:
            head, _, tail = text.partition(f"string: {_BODY}\n")
            indent = len(head) - len(head.rstrip(" ")) + 2  # the key's column, plus two
            text = head + "string: " + self._block(rest, indent) + tail
        if offsets:
            text = text.replace(_OFFSETS, self._offsets_text(offsets), 1)
        # A document ending in a `|+` block gets an explicit end marker; between items it must not stand.
        return text.encode("utf-8").removesuffix(b"...\n")

    def _text_lines(self, body: bytes) -> str | None:
        """Takes in the body's new complete lines; returns the text after the last one, or None if the body cannot
        be a literal block (empty, not UTF-8, or holding characters YAML would not carry exactly)."""
        if not body.startswith(self._body):
            self._body, self._lines, self._padded = b"", [], []
        cut = body.rfind(b"\n") + 1
        if cut > len(self._body):
            text = _block_text(body[len(self._body) : cut])
            if text is None:
                return None
            self._lines.extend(text.split("\n")[:-1])
            self._body = body[:cut]
        return _block_text(body[cut:]) if body else None

    def _block(self, rest: str, indent: int) -> str:
        """The body as a literal block scalar at `indent`, exact to the byte."""
        if indent != self._indent:
            self._padded, self._indent = [], indent
        pad = " " * indent
        self._padded.extend(f"{pad}{line}\n" if line else "\n" for line in self._lines[len(self._padded) :])
        last = f"{pad}{rest}\n" if rest else ""
        return f"|2{'-' if rest else '+'}\n" + "".join(self._padded) + last

    def _offsets_text(self, offsets: list[tuple[float, int]]) -> str:
        """The offsets as JSON (a YAML flow sequence); those of the last save but its last are reused if unchanged."""
        keep = len(self._offsets)
        if offsets[:keep] != self._offsets:
            keep = 0
        texts = self._offset_texts[:keep]
        texts.extend(f"[{round(at, 4)!r},{end}]" for at, end in offsets[keep:])  # (as JSON writes them, faster)
        self._offsets, self._offset_texts = offsets[:-1], texts[:-1]  # (the last event may still grow)
        return "[" + ",".join(texts) + "]"


def _block_text(data: bytes) -> str | None:
    """`data` as text a literal block carries exactly, or None."""
    text = text_or_bytes(data)
    return text if isinstance(text, str) and "\r" not in text else None


def vcr_item_yaml(interaction: Interaction) -> bytes:
    """One interaction as the YAML of one list item; a cassette is these joined (see `assemble_vcr`)."""
    return ItemWriter().render(interaction)


def switches_yaml(switches: list[Switch]) -> bytes:
    """The top-level notes that hold a session's branch switches (nothing when it has none)."""
    if not switches:
        return b""
    return dump_yaml({EXTRA: {"switches": [_FlowList([switch.to, switch.after]) for switch in switches]}})


def vcr_parts(items: list[bytes], switches: list[Switch] | None = None) -> list[bytes]:
    """A vcrpy cassette from rendered items, as the parts a file is written from one after another: saving a long
    session re-renders only what changed, and never holds a joined copy of the whole."""
    if not items:
        return [dump_yaml({"interactions": [], "version": 1})]
    return [b"interactions:\n", *items, switches_yaml(switches or []), b"version: 1\n"]


def assemble_vcr(items: list[bytes], switches: list[Switch] | None = None) -> bytes:
    """A vcrpy cassette from rendered items, in one piece (`vcr_parts` joined)."""
    return b"".join(vcr_parts(items, switches))


def write_vcr(recording: Recording) -> bytes:
    return assemble_vcr([vcr_item_yaml(i) for i in recording.interactions], recording.switches)
