"""AWS's binary event-stream framing (`application/vnd.amazon.eventstream`), as Bedrock streams it.

A frame is: total length (u32), headers length (u32), prelude CRC32, headers, payload, message CRC32,
all big-endian. Bedrock's payload is JSON `{"bytes": base64(<an Anthropic Messages event>)}`.
"""

from __future__ import annotations

import struct
import zlib
from dataclasses import dataclass

MAX_FRAME = 16 * 1024 * 1024

# Sizes of the fixed-width header value types (0 and 1 are booleans with no value bytes).
_FIXED = {0: 0, 1: 0, 2: 1, 3: 2, 4: 4, 5: 8, 8: 8, 9: 16}


class EventStreamError(ValueError):
    """The bytes are not a well-formed event stream."""


@dataclass(frozen=True, slots=True)
class Frame:
    headers: dict[str, str]
    payload: bytes


class FrameDecoder:
    """Incremental: feed bytes as they arrive, get whole frames out."""

    def __init__(self) -> None:
        self._buffer = bytearray()

    def feed(self, data: bytes) -> list[Frame]:
        self._buffer += data
        frames: list[Frame] = []
        while len(self._buffer) >= 12:
            total, header_size, prelude_crc = struct.unpack_from(">III", self._buffer)
            if zlib.crc32(bytes(self._buffer[:8])) != prelude_crc:
                raise EventStreamError("an event-stream frame has a bad prelude checksum")
            if total > MAX_FRAME or total < 16 + header_size:
                raise EventStreamError(f"an event-stream frame claims an impossible length ({total} bytes)")
            if len(self._buffer) < total:
                break
            frame = bytes(self._buffer[:total])
            del self._buffer[:total]
            (message_crc,) = struct.unpack_from(">I", frame, total - 4)
            if zlib.crc32(frame[:-4]) != message_crc:
                raise EventStreamError("an event-stream frame has a bad checksum")
            headers = _headers(frame[12 : 12 + header_size])
            frames.append(Frame(headers=headers, payload=frame[12 + header_size : total - 4]))
        return frames

    @property
    def pending(self) -> int:
        return len(self._buffer)


def _headers(data: bytes) -> dict[str, str]:
    headers: dict[str, str] = {}
    at = 0
    while at < len(data):
        size = data[at]
        name = data[at + 1 : at + 1 + size].decode("utf-8", "replace")
        at += 1 + size
        kind = data[at]
        at += 1
        if kind in (6, 7):
            (length,) = struct.unpack_from(">H", data, at)
            value = data[at + 2 : at + 2 + length]
            at += 2 + length
            if kind == 7:
                headers[name] = value.decode("utf-8", "replace")
        elif kind in _FIXED:
            at += _FIXED[kind]
        else:
            raise EventStreamError(f"an event-stream header has an unknown type ({kind})")
    return headers
