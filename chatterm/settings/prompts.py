"""The prompts the user has sent, kept between chats and runs: Up and Down in the composer walk through them.

One file per user in the data dir, a JSON object holding the prompts oldest first, bounded in count and in size so
it stays quick to read at start and to write after each prompt. It is written whole, privately and atomically, on a
thread of its own (a slow disk never holds up the prompt being sent), and the process waits for that write before
it ends. A file that cannot be parsed is ignored and replaced at the next prompt; one that cannot be read is left
as it is (the history is then kept for this run only). Neither is worth an error: it is a convenience.
"""

from __future__ import annotations

import contextlib
import json
import threading
from pathlib import Path

from chatterm import locations
from chatterm.private_files import write_private
from chatterm.regular_files import read_regular

MOST = 500
"""Prompts kept: the oldest leave first."""
MOST_BYTES = 2 * 1024 * 1024
"""The most the file may hold; older prompts leave to make room (the newest is always kept)."""


def history_file() -> Path:
    return locations.data_dir() / "prompts.json"


def _read(path: Path) -> tuple[list[str], bool]:
    """The prompts in `path`, and whether the file may be written (False when it is there but cannot be read)."""
    try:
        data = json.loads(read_regular(path, 4 * MOST_BYTES))
    except FileNotFoundError:
        return [], True
    except OSError:
        return [], False
    except ValueError:  # (not JSON, or not UTF-8)
        return [], True
    prompts = data.get("prompts") if isinstance(data, dict) else None
    if not isinstance(prompts, list):
        return [], True
    return [prompt for prompt in prompts if isinstance(prompt, str)][-MOST:], True


def _encoded(prompts: list[str]) -> bytes:
    """The file's bytes for `prompts`, less the oldest ones that do not fit in MOST_BYTES."""
    kept = prompts[-MOST:]
    sizes = [len(json.dumps(prompt, ensure_ascii=False).encode()) + 1 for prompt in kept]
    total, first = sum(sizes), 0
    while total > MOST_BYTES and first < len(kept) - 1:
        total -= sizes[first]
        first += 1
    return json.dumps({"prompts": kept[first:]}, ensure_ascii=False, indent=0).encode()


class PromptHistory:
    """The prompts sent, oldest first; `path` None keeps them in memory only."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path
        self._prompts: list[str] | None = None
        self._writable = path is not None
        self._lock = threading.Lock()
        self._writers: list[threading.Thread] = []

    @property
    def prompts(self) -> list[str]:
        """Read from the file the first time they are needed (never before the first frame)."""
        if self._prompts is None:
            self._prompts, readable = _read(self.path) if self.path is not None else ([], False)
            self._writable = self._writable and readable
        return self._prompts

    def add(self, prompt: str) -> None:
        """Remember a prompt sent (the same one twice in a row is kept once) and write the file soon."""
        prompts = self.prompts
        if not prompts or prompts[-1] != prompt:
            prompts.append(prompt)
            del prompts[:-MOST]
        if self._writable:
            self._writers = [writer for writer in self._writers if writer.is_alive()]
            writer = threading.Thread(target=self.save, name="chatterm-prompts")  # (not a daemon: it is waited for)
            self._writers.append(writer)
            writer.start()

    def save(self) -> None:
        """Write the prompts as they are when the write starts: of two writes racing, the later one holds both."""
        if self.path is None or not self._writable:
            return
        with self._lock:
            data = _encoded(list(self.prompts))
            with contextlib.suppress(OSError):
                write_private(self.path, data)

    def settle(self) -> None:
        """Wait for the writes under way."""
        for writer in list(self._writers):
            writer.join()
