"""The recordings shipped with chatterm, which the offline `demo` profile serves in-process."""

from __future__ import annotations

from pathlib import Path

from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Recording

DEMO_DIR = Path(__file__).resolve().parents[1] / "demo"


def demo_recording() -> Recording:
    """Every shipped recording's turns, in one recording."""
    recording = Recording(format="vcr")
    for path in sorted(DEMO_DIR.glob("*.yaml")):
        recording.interactions.extend(load_recording(path).interactions)
    return recording
