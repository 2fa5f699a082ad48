"""Content codings undone: gzip and deflate bodies inflated as they arrive, and as far as a truncated body goes.

The recorder keeps what the client read, not what the wire carried: a compressed body cut short by a lost
connection or a killed process is not readable as a whole, but every byte that arrived inflates to its text.
"""

from __future__ import annotations

import zlib

CODINGS = ("gzip", "x-gzip", "deflate")
MAX_INFLATED = 256 * 1024 * 1024
"""The most a body inflates to; past it (a compression bomb) inflating stops."""


class Inflater:
    """Inflates one body fed in pieces. Never raises: bytes that are not of the coding end the output there."""

    def __init__(self, coding: str, limit: int = MAX_INFLATED) -> None:
        self.coding = coding.strip().lower()
        self.limit = limit
        self.broken = False
        """The input stopped being of its coding (or grew past the limit): nothing more comes out."""
        self.size = 0
        self._raw = False
        """deflate: raw RFC 1951 data, as some servers send, rather than the zlib-wrapped RFC 1950 of the standard."""
        self._head: bytes | None = b"" if self.coding == "deflate" else None
        """deflate: the input until its first two bytes told which of the two it is."""
        self._inflater = self._new()

    @staticmethod
    def handles(coding: str) -> bool:
        return coding.strip().lower() in CODINGS

    def _new(self) -> zlib._Decompress:
        if self.coding == "deflate":
            return zlib.decompressobj(-zlib.MAX_WBITS if self._raw else zlib.MAX_WBITS)
        return zlib.decompressobj(16 + zlib.MAX_WBITS)

    def feed(self, data: bytes) -> bytes:
        """The text `data` adds."""
        if self.broken or not data:
            return b""
        if self._head is not None:
            self._head += data
        try:
            out = self._inflate(data)
        except zlib.error:
            head, self._head = self._head, None
            if head is None or self._raw:
                self.broken = True
                return b""
            self._raw = True  # not zlib-wrapped: raw deflate, from its first byte
            self._inflater = self._new()
            return self.feed(head)
        if self._head is not None and len(self._head) >= 2:
            self._head = None  # (a zlib header is two bytes: past them, the kind is known)
        return out

    def _inflate(self, data: bytes) -> bytes:
        out = self._inflater.decompress(data, max(self.limit - self.size, 0) + 1)
        while self._inflater.eof and self._inflater.unused_data and self.coding != "deflate":
            rest = self._inflater.unused_data  # another gzip member follows
            self._inflater = self._new()
            out += self._inflater.decompress(rest, max(self.limit - self.size - len(out), 0) + 1)
        self.size += len(out)
        if self.size > self.limit:
            self.broken = True
            out = out[: max(self.limit - (self.size - len(out)), 0)]
        return out

    def flush(self) -> bytes:
        """What the inflater still holds once the body has ended."""
        if self.broken:
            return b""
        try:
            return self._inflater.flush()
        except zlib.error:
            return b""


def inflate(body: bytes, coding: str, limit: int = MAX_INFLATED) -> bytes | None:
    """A whole body inflated, as far as it is of its coding; None when not even its start is."""
    inflater = Inflater(coding, limit)
    text = inflater.feed(body) + inflater.flush()
    return None if inflater.broken and not text else text
