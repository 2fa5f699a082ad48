"""Leaving the process for sure once the app has ended on a signal.

A signal that ends the app (SIGHUP when its terminal window is closed, SIGTERM, SIGINT) ends it as Ctrl+Q does: the
answer streaming is kept and the session saved (the app's unmount). Textual then stops its output thread by queueing
a last write and waiting for it; with the terminal gone while a stream was being drawn, that wait can last forever,
and the process would stay behind its closed window. So once the session is saved, a timer ends the process after a
grace period if it is still there: by then nothing is left to lose, and a terminal that is still there has had its
modes given back (a normal exit takes milliseconds). A longer one, from the signal itself, ends a process that never
gets as far as saving (LAST_RESORT).

A terminal that hangs up sends SIGCONT with its SIGHUP, and Textual resumes its application mode on a SIGCONT (for
Ctrl+Z): on a terminal that is gone, that starts a second output thread, which dies at its first write, and the app's
next writes wait for it forever, the event loop held, deaf to SIGTERM. A SIGCONT resumes the app only while it still
has a terminal (`resume_only_with_a_terminal`).
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from types import FrameType

GRACE = 1.0
"""Seconds the process has, after the app ended on a signal and saved, to end by itself."""
LAST_RESORT = 10.0
"""Seconds the process has, after a signal that ends the app, to end by itself (a save takes milliseconds)."""


def leave_after(code: int, grace: float = GRACE) -> threading.Timer:
    """End the process with exit status `code` in `grace` seconds unless it has ended by then."""
    timer = threading.Timer(grace, os._exit, (code,))
    timer.daemon = True  # (a process that ends by itself does not wait for it)
    timer.start()
    return timer


def resume_only_with_a_terminal() -> None:
    """Keep the SIGCONT handler in place (Textual's) for a process that still has a terminal, and ignore the signal
    otherwise (see the module)."""
    previous = signal.getsignal(signal.SIGCONT)
    if not callable(previous):
        return

    def on_continue(number: int, frame: FrameType | None) -> None:
        if _has_a_terminal():
            previous(number, frame)

    signal.signal(signal.SIGCONT, on_continue)


def _has_a_terminal() -> bool:
    """Whether the standard streams reach a terminal still there (a hung-up one answers no terminal request)."""
    for stream in (sys.__stdin__, sys.__stdout__, sys.__stderr__):
        try:
            if stream is not None and os.isatty(stream.fileno()):
                return True
        except (OSError, ValueError):  # (closed, or no file behind it)
            continue
    return False
