"""Open any supported recording: the format is found from the content, not the file name."""

from __future__ import annotations

import re
from pathlib import Path

from chatterm.cassette.branch_tail import branch_items
from chatterm.cassette.dataio import load_json, load_yaml, read_bytes
from chatterm.cassette.govcr import is_govcr, read_govcr
from chatterm.cassette.llamastack import is_llamastack, read_llamastack
from chatterm.cassette.model import Recording, RecordingError, mapping
from chatterm.cassette.ssecapture import looks_like_sse, read_sse
from chatterm.cassette.torn import mended
from chatterm.cassette.vcr import EXTRA, is_vcr, read_vcr, switches_from


def load_recording(path: str | Path) -> Recording:
    """Read a recording (a session a save did not finish, as far as it got: `torn`); raises RecordingError with one
    line for the user when it cannot be read safely."""
    path = Path(path)
    return parse_recording(mended(read_bytes(path)), str(path))


_VCR_HEAD = b"interactions:\n"
_ITEM = b"\n- request:"
_TRAILER = b"version: 1\n"
_GOVCR_HEADS = (b"---\nversion: 2\ninteractions:\n", b"version: 2\ninteractions:\n")
_GOVCR_ITEM = b"\n- id: "
_TOP_LEVEL = re.compile(rb"\n[^ \n#-]")
"""A line at the top level of a YAML document (a key): after go-vcr's items, there must be none."""


def load_tail(path: str | Path, count: int) -> tuple[Recording, int]:
    """The last `count` interactions of a recording's active branch, and how many they were taken from: the
    branch's interactions when the recording was cut there, else all the recording's (what was not taken from them
    is not on screen at first).

    A cassette laid out as chatterm, vcrpy and go-vcr write them (a vcrpy cassette: `interactions:`, items each
    starting with `- request:` at the start of a line, `version: 1`; a go-vcr one: `version: 2`, `interactions:`,
    items each starting with `- id:`) is cut at those lines and only its tail is parsed: opening a long session does
    not wait for its whole history. Of a session chatterm saved as a tree, only the items of the active branch's
    tail are parsed (`branch_tail`). Anything else is parsed whole.

    Two calls in a row for the same file, unchanged, and the same count read it once: the replay command and the
    sessions list check a file before the app is given it, and the app opens it with the same call. The second call
    gets what the first read (the first only checks, it keeps nothing).
    """
    global _last
    path = Path(path)
    key = (*_stamp(path), count)
    last, _last = _last, None
    if last is not None and last[0] == key and key[1] >= 0:
        return last[1]
    data = mended(read_bytes(path))
    head, marker, end = _layout(data)
    # (find, count and rfind: a file is cut in milliseconds)
    starts = _starts(data, marker, len(head) - 1, end) if head == _VCR_HEAD else []
    total = len(starts) if starts else data.count(marker, len(head) - 1, end) if marker else 0
    branch = _branch_tail(data, starts, end, count, str(path)) if starts and total > count else None
    if branch is not None:
        tail = branch
    elif total > count:
        start = end
        for _ in range(count):
            start = data.rfind(marker, 0, start)
        tail = (parse_recording(head + data[start + 1 :], str(path)), total)
    else:
        recording = parse_recording(data, str(path))
        kept = recording.interactions[-count:] if count else []
        tail = (Recording(recording.format, kept, recording.switches), len(recording.interactions))
    _last = (key, tail)
    return tail


def _branch_tail(data: bytes, starts: list[int], end: int, count: int, name: str) -> tuple[Recording, int] | None:
    """`load_tail` of a vcrpy cassette (its items at `starts`) whose items note their place in a tree: the items of
    the active branch's tail, then the top-level notes; None for any other file."""
    notes = data.rfind(b"\n" + EXTRA.encode() + b":\n", 0, end)
    items_end = notes + 1 if notes >= 0 else end
    top = load_yaml(data[items_end:end].decode("utf-8"), name) if notes >= 0 else None
    branch = branch_items(data, starts, items_end, switches_from(mapping(top).get(EXTRA)))
    if branch is None:
        return None
    bounds = [*starts, items_end]
    kept = b"".join(data[bounds[item] : bounds[item + 1]] for item in branch[-count:] if count)
    return parse_recording(_VCR_HEAD + kept + data[items_end:], name), len(branch)


def _starts(data: bytes, marker: bytes, start: int, end: int) -> list[int]:
    """Where each item begins (after the newline of `marker`)."""
    found = []
    at = data.find(marker, start, end)
    while at >= 0:
        found.append(at + 1)
        at = data.find(marker, at + 1, end)
    return found


def _layout(data: bytes) -> tuple[bytes, bytes, int]:
    """The head before the first item, the start of an item, and where the items end, of a cassette in a layout
    that can be cut; (b"", b"", 0) for any other file."""
    if data.startswith(b"interactions:\n- request:") and data.endswith(_TRAILER):
        return _VCR_HEAD, _ITEM, len(data) - len(_TRAILER)
    end = len(data) - 4 if data.endswith(b"\n...\n") else len(data)  # (the end of the document, marked)
    for head in _GOVCR_HEADS:
        if data.startswith(head + _GOVCR_ITEM[1:]) and not _TOP_LEVEL.search(data, len(head), end):
            return head, _GOVCR_ITEM, end
    return b"", b"", 0


_last: tuple[tuple[str, int, int, int, int], tuple[Recording, int]] | None = None
"""What the last call of `load_tail` gave, for the next one with the same file, unchanged, and count (once: from
then on it is that caller's to change)."""


def _stamp(path: Path) -> tuple[str, int, int, int]:
    try:
        info = path.stat()
    except OSError:
        return (str(path), -1, -1, -1)
    return (str(path), info.st_ino, info.st_size, info.st_mtime_ns)


NOT_A_RECORDING = "not a recording chatterm reads (vcrpy, go-vcr, llama-stack or a raw SSE capture)"
RECORDING_SUFFIXES = (".yaml", ".yml", ".json")
"""Names a recording is saved under: a file so named that does not parse is a damaged recording, and the parser's
complaint says where; any other (a config file or a README opened by mistake) is simply not a recording."""


def parse_recording(data: bytes, name: str = "<recording>") -> Recording:
    if looks_like_sse(data):
        return read_sse(data)
    if b"\x00" in data[:4096]:
        raise RecordingError(f"{name}: binary data, not a recording chatterm reads")
    try:
        text = data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        raise RecordingError(f"{name}: not UTF-8 text, not a recording chatterm reads") from None
    if not text.strip():
        raise RecordingError(f"{name}: the file is empty")
    try:
        parsed = load_json(text, name) if text.lstrip()[:1] in ("{", "[") else load_yaml(text, name)
    except RecordingError:
        if name.lower().endswith(RECORDING_SUFFIXES):
            raise  # (a recording damaged: what the parser found is the news)
        raise RecordingError(f"{name}: {NOT_A_RECORDING}") from None
    try:
        if is_llamastack(parsed):
            return read_llamastack(parsed, name)
        if is_vcr(parsed):
            return read_vcr(parsed, name)
        if is_govcr(parsed):
            return read_govcr(parsed, name)
    except RecordingError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError, IndexError) as exc:
        raise RecordingError(f"{name}: a malformed recording ({type(exc).__name__}: {exc})") from None
    if isinstance(parsed, dict) and isinstance(parsed.get("interactions"), list) and not parsed["interactions"]:
        return Recording(format="vcr" if "version" not in parsed or parsed["version"] == 1 else "govcr")
    raise RecordingError(f"{name}: {NOT_A_RECORDING}")
