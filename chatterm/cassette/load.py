"""Open any supported recording: the format is found from the content, not the file name."""

from __future__ import annotations

from pathlib import Path

from chatterm.cassette.dataio import load_json, load_yaml, read_bytes
from chatterm.cassette.govcr import is_govcr, read_govcr
from chatterm.cassette.llamastack import is_llamastack, read_llamastack
from chatterm.cassette.model import Recording, RecordingError
from chatterm.cassette.ssecapture import looks_like_sse, read_sse
from chatterm.cassette.vcr import is_vcr, read_vcr


def load_recording(path: str | Path) -> Recording:
    """Read a recording; raises RecordingError with one line for the user when it cannot be read safely."""
    path = Path(path)
    return parse_recording(read_bytes(path), str(path))


_ITEM = b"\n- request:"
_TRAILER = b"version: 1\n"


def load_tail(path: str | Path, count: int) -> tuple[Recording, int]:
    """The last `count` interactions of a recording and how many it holds in all.

    A vcrpy cassette as chatterm (and vcrpy) writes it, `interactions:` then items each starting with
    `- request:` at the start of a line, then `version: 1`, is cut at those lines and only its tail is parsed:
    opening a long session does not wait for its whole history. Anything else is parsed whole.
    """
    path = Path(path)
    data = read_bytes(path)
    if data.startswith(b"interactions:\n- request:") and data.endswith(_TRAILER):
        total = data.count(_ITEM)  # (bytes.count and rfind, not a regex: a long session is cut in milliseconds)
        if total > count:
            start = len(data)
            for _ in range(count):
                start = data.rfind(_ITEM, 0, start)
            tail = b"interactions:\n" + data[start + 1 :]
            return parse_recording(tail, str(path)), total
    recording = parse_recording(data, str(path))
    kept = recording.interactions[-count:] if count else []
    return Recording(format=recording.format, interactions=kept), len(recording.interactions)


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
    parsed = load_json(text, name) if text.lstrip()[:1] in ("{", "[") else load_yaml(text, name)
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
    raise RecordingError(f"{name}: not a recording chatterm reads (vcrpy, go-vcr, llama-stack or a raw SSE capture)")
