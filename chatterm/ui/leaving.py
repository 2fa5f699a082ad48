"""Leaving the process for sure once the app has ended on a signal.

A signal that ends the app (SIGHUP when its terminal window is closed, SIGTERM, SIGINT) ends it as Ctrl+Q does: the
answer streaming is kept and the session saved (the app's unmount). Textual then stops its output thread by queueing
a last write and waiting for it; with the terminal gone while a stream was being drawn, that wait can last forever,
and the process would stay behind its closed window. So once the session is saved, a timer ends the process after a
grace period if it is still there: by then nothing is left to lose, and a terminal that is still there has had its
modes given back (a normal exit takes milliseconds).
"""

from __future__ import annotations

import os
import threading

GRACE = 1.0
"""Seconds the process has, after the app ended on a signal and saved, to end by itself."""


def leave_after(code: int, grace: float = GRACE) -> threading.Timer:
    """End the process with exit status `code` in `grace` seconds unless it has ended by then."""
    timer = threading.Timer(grace, os._exit, (code,))
    timer.daemon = True  # (a process that ends by itself does not wait for it)
    timer.start()
    return timer

