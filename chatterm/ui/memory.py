"""Keeping garbage collection out of the way of the stream.

A streaming frame creates many short-lived objects (strips and their caches). With the default thresholds, full
collections walk everything built at start-up and, later, a long conversation's widgets, and pause the event loop
while the answer draws (bench H1 measures the pauses).

So: start-up runs with collection off (the command line turns it off: start-up frees almost nothing); objects that
live for the whole run are moved out of the collector's way once, after start-up, and collection is turned on
again; young collections run as usual; full collections are left to quiet moments (`collect_when_idle`, a moment
after an answer ends) and only forced, rarely, by the collector itself.
"""

from __future__ import annotations

import gc

YOUNG = 5_000
"""Allocations between young collections (Python's default is 700)."""
FULL_EVERY = 100
"""Middle-generation collections between automatic full ones (Python's default is 10)."""
IDLE_FULL_EVERY = 10
"""Middle-generation collections before a quiet moment is used for a full one: Python's own rhythm, moved."""


def tune_garbage_collector() -> None:
    """Once, when start-up is done (the command line switches collection off for the app's start-up)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(YOUNG, 10, FULL_EVERY)
    gc.enable()


def collect_when_idle() -> None:
    """At a moment nobody is waiting for the screen: the full collection Python would have run by now."""
    if gc.get_count()[2] >= IDLE_FULL_EVERY:
        gc.collect()
