"""Every line the commands print goes through here, shown harmlessly.

A line may carry text from outside: a provider's error message, a model id a server listed, a profile's settings,
a file's name. Its control characters are made visible (`chatterm.terminal_text`), so that an error body cannot
clear the screen, write to the clipboard (OSC 52) or hide a link (OSC 8):

- chatterm's own lines (errors, warnings, notices, the profile tables) always, on a terminal or not: they are
  messages, not data, and one line each;
- model text (`ask`'s answer and reasoning, `show`'s conversation) only on a terminal: piped, it is kept exactly;
- `show --json` on a terminal writes the control characters JSON allows raw as `\\u` escapes: the same JSON.
"""

from __future__ import annotations

import json
import re
import sys
from typing import Any, TextIO

from chatterm.terminal_text import MESSAGE, neutralize, shortened

_RAW_IN_JSON = re.compile(r"[\x7f-\x9f\u2028\u2029]")
"""What `json.dumps(ensure_ascii=False)` leaves raw that a terminal may obey (C1 controls, DEL) or break a line on."""


def is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except ValueError:  # (closed)
        return False


def line(text: str) -> str:
    """One of chatterm's own lines as printed: control characters visible, a newline inside it shown as ␤."""
    return neutralize(text.replace("\r\n", "\n")).replace("\n", "\u2424")


def say(text: str = "", *, stderr: bool = False, flush: bool = False) -> None:
    """Print one of chatterm's own lines (stdout, or stderr for what is not the command's output)."""
    stream = sys.stderr if stderr else sys.stdout
    stream.write(line(text) + "\n")
    if flush:
        stream.flush()


def error(message: str) -> None:
    """An error line, at most MESSAGE characters: a value from a file or a server is named, not printed whole."""
    say(shortened(f"chatterm: {message}", MESSAGE), stderr=True)


def warning(message: str) -> None:
    say(shortened(f"chatterm: warning: {message}", MESSAGE), stderr=True)


def shown(text: str, terminal: bool) -> str:
    """Model text as written to a terminal (neutralised) or not (exact); `terminal` from `is_terminal`, asked once
    per stream, not per token."""
    return neutralize(text) if terminal else text


def json_text(data: Any, stream: TextIO) -> str:
    """`data` as indented JSON for `stream`; on a terminal, characters it could obey are `\\u` escapes."""
    text = json.dumps(data, ensure_ascii=False, indent=2)
    if is_terminal(stream):
        text = _RAW_IN_JSON.sub(lambda match: f"\\u{ord(match.group()):04x}", text)
    return text
