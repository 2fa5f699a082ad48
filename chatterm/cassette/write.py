"""Write a recording in any supported format, always with secrets removed first."""

from __future__ import annotations

from collections.abc import Callable

from chatterm.cassette.govcr import write_govcr
from chatterm.cassette.model import Recording
from chatterm.cassette.redact import clean_interaction
from chatterm.cassette.ssecapture import write_sse
from chatterm.cassette.vcr_yaml import write_vcr

WRITERS: dict[str, Callable[[Recording], bytes]] = {"vcr": write_vcr, "govcr": write_govcr, "sse": write_sse}


def render(recording: Recording, fmt: str = "vcr", secrets: tuple[str, ...] = ()) -> bytes:
    """The bytes of a recording in a format; headers by allow-list, key parameters and known keys masked."""
    interactions = [clean_interaction(i, secrets) for i in recording.interactions]
    clean = Recording(format=fmt, interactions=interactions, switches=list(recording.switches))
    return WRITERS[fmt](clean)
