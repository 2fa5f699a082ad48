"""Fixtures shared by the whole suite.

- Every test gets fresh config/data dirs, and no provider keys, proxies or `CHATTERM_*` settings from the
  developer's environment.
- Keyring code runs against an in-memory backend.
- Servers (chatterm's own replay server, the fault-injecting one) run for real on 127.0.0.1, each on an
  event loop in a background thread, so both in-process and subprocess tests can talk to them.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import keyring
import pytest
import textual.constants
from hypothesis import settings
from keyring.backend import KeyringBackend

from chatterm.settings.presets import PRESETS
from tests.scripted import ScriptedServer

# Every app in the suite draws in truecolor, as the SVG snapshots do: Rich keeps a style's escape codes from the
# first console that draws it, so apps of two colour systems in one run would share codes meant for the other.
textual.constants.COLOR_SYSTEM = "truecolor"  # type: ignore[misc]

# Examples per property test that does not set its own count (the heaviest, tests/ui/test_markdown_stream.py, draws a
# whole generated document at several widths per example): enough for CI to mean something in seconds; a soak
# (`CHATTERM_HYPOTHESIS_PROFILE=soak`) runs many more.
settings.register_profile("ci", max_examples=200)
settings.register_profile("soak", max_examples=3000)
settings.load_profile(os.environ.get("CHATTERM_HYPOTHESIS_PROFILE", "ci"))

DATA = Path(__file__).resolve().parent / "data"
"""Real recordings kept with the suite (their origin and licences: data/NOTICE.md)."""
SEEDS = DATA / "seeds"
CORPUS = DATA / "corpus"
TEST_KEY = "sk-test-SECRET-4f9a8b7c6d5e"
"""The API key tests use; no file chatterm writes may ever contain it."""


def recordings() -> list[Path]:
    files = sorted(p for p in [*SEEDS.iterdir(), *CORPUS.iterdir()] if p.suffix in (".sse", ".json", ".yaml"))
    assert len(files) == 34, f"expected the 3 seeds and 31 corpus recordings under {DATA}, found {len(files)}"
    return files


class MemoryKeyring(KeyringBackend):
    """An in-memory keyring backend, set for every test."""

    priority = 1  # type: ignore[assignment]

    def __init__(self) -> None:
        super().__init__()  # type: ignore[no-untyped-call]
        self.store: dict[tuple[str, str], str] = {}

    def get_password(self, service: str, username: str) -> str | None:
        return self.store.get((service, username))

    def set_password(self, service: str, username: str, password: str) -> None:
        self.store[(service, username)] = password

    def delete_password(self, service: str, username: str) -> None:
        from keyring.errors import PasswordDeleteError

        if (service, username) not in self.store:
            raise PasswordDeleteError("no such password")
        del self.store[(service, username)]


PROVIDER_KEYS = [p.api_key_env for p in PRESETS.values() if p.api_key_env]


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--stock-render",
        action="store_true",
        help="draw the app with Textual's and Rich's stock parts (chatterm.ui.render off), as CHATTERM_STOCK_RENDER=1",
    )


@pytest.fixture(autouse=True)
def render_path(request: pytest.FixtureRequest, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The render path of this run: chatterm's own parts, or the stock ones with `--stock-render` (the app started
    in a subprocess or in tmux gets the switch through the environment)."""
    from chatterm.ui.render import support

    stock = bool(request.config.getoption("--stock-render"))
    if stock:
        monkeypatch.setenv(support.ENVIRONMENT_SWITCH, "1")
    support.force_stock(stock)
    yield "stock" if stock else "custom"
    support.force_stock(None)


@pytest.fixture(autouse=True)
def isolated(
    tmp_path_factory: pytest.TempPathFactory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Path]:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("PYTHON_KEYRING_BACKEND", "keyring.backends.null.Keyring")  # subprocesses: no keyring
    for name in PROVIDER_KEYS:
        monkeypatch.delenv(name, raising=False)
    for name in list(os.environ):
        if name.startswith("CHATTERM_") or name.lower().endswith("_proxy"):  # no proxy between tests and 127.0.0.1
            monkeypatch.delenv(name, raising=False)
    previous = keyring.get_keyring()
    keyring.set_keyring(MemoryKeyring())
    yield home
    keyring.set_keyring(previous)
    leaked = [str(p) for p in [*_files(home), *_files(tmp_path)] if TEST_KEY.encode() in p.read_bytes()]
    assert not leaked, f"the test API key reached a file chatterm wrote: {leaked}"


def _files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]


class LoopThread:
    """An asyncio loop running in a daemon thread, for servers that outlive one test step."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine: Any, timeout: float = 30) -> Any:
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self) -> None:
        async def cancel_the_rest() -> None:
            tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)

        self.run(cancel_the_rest())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)
        self.loop.close()


@pytest.fixture(params=["asyncio", "stock"])
def network(request: pytest.FixtureRequest, isolated: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The network layer clients made in the test use: chatterm's asyncio backend, or httpx's stock transport
    (`CHATTERM_STOCK_NETWORK`). Client test modules use it for every test, so each runs on both."""
    if request.param == "stock":
        monkeypatch.setenv("CHATTERM_STOCK_NETWORK", "1")
    return str(request.param)


@pytest.fixture
def loop_thread() -> Iterator[LoopThread]:
    runner = LoopThread()
    yield runner
    runner.close()


@pytest.fixture
def serve_recording(loop_thread: LoopThread) -> Iterator[Callable[..., str]]:
    """Start chatterm's replay server on 127.0.0.1 for a recording; returns its base URL."""
    from chatterm.cassette.load import load_recording
    from chatterm.cassette.serve import ReplayServer

    servers: list[ReplayServer] = []

    def start(path: Path, speed: float = 1.0, instant: bool = True) -> str:
        server = ReplayServer(load_recording(path), speed=speed, instant=instant)
        servers.append(server)
        return str(loop_thread.run(server.start()))

    yield start
    for server in servers:
        loop_thread.run(server.stop())


class Served:
    """The real `chatterm serve` command in a subprocess: its base URL, and what it printed on stderr once stopped."""

    def __init__(self, path: Path, *options: str) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "chatterm", "serve", str(path), *options],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            stdin=subprocess.DEVNULL,
            text=True,
        )
        assert self.process.stdout is not None
        self.base_url = self.process.stdout.readline().strip()
        assert self.base_url.startswith("http://127.0.0.1:") and self.base_url.endswith("/v1"), self.base_url
        self.stderr = ""

    @property
    def address(self) -> tuple[str, int]:
        host, port = self.base_url.removeprefix("http://").removesuffix("/v1").rsplit(":", 1)
        return host, int(port)

    def stop(self) -> str:
        if self.process.poll() is None:
            self.process.terminate()
        _, self.stderr = self.process.communicate(timeout=10)
        return self.stderr


@pytest.fixture
def served() -> Iterator[Callable[..., Served]]:
    """Start `chatterm serve PATH [OPTIONS]` (the real command); every one started is stopped after the test."""
    started: list[Served] = []

    def start(path: Path, *options: str) -> Served:
        started.append(Served(path, *options))
        return started[-1]

    yield start
    for server in started:
        server.stop()


@pytest.fixture
async def faults() -> Any:
    """The fault-injecting server on the test's own event loop (for in-process async tests)."""
    from tests.faultserver import FaultServer

    server = FaultServer(stall=3.0)
    await server.start()
    yield server
    await server.stop()


@pytest.fixture
def fault_server(loop_thread: LoopThread) -> Iterator[Any]:
    from tests.faultserver import FaultServer

    server = FaultServer()
    loop_thread.run(server.start())
    yield server
    loop_thread.run(server.stop())


def sse_capture(path: Path, content: str) -> Path:
    """A raw SSE capture of one answer holding `content` (for serving hostile or odd text)."""
    chunk = {"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": "stop"}]}
    path.write_text(f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n")
    return path


@dataclass
class Result:
    code: int
    stdout: str
    stderr: str


def run_chatterm(
    *args: str, input: str | None = None, env: dict[str, str] | None = None, timeout: float = 60
) -> Result:
    """Run the real `chatterm` command (as `python -m chatterm`) in a subprocess."""
    merged = {**os.environ, **(env or {})}
    done = subprocess.run(
        [sys.executable, "-m", "chatterm", *args],
        input=input,
        capture_output=True,
        text=True,
        env=merged,
        timeout=timeout,
        stdin=None if input is not None else subprocess.DEVNULL,
    )
    return Result(done.returncode, done.stdout, done.stderr)


def ask_faults(base_url: str, *extra: str, model: str = "fault-model") -> Result:
    """`chatterm ask "hi"` of a fault server's scenario (`base_url`), with the test key as its key."""
    options = ["--api-key-env", "FAULT_KEY", "--model", model]
    return run_chatterm("ask", "--base-url", base_url, *options, *extra, "hi", env={"FAULT_KEY": TEST_KEY})


def show_json(path: Path) -> dict[str, Any]:
    """What `chatterm show PATH --json` prints, read."""
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0, result.stderr
    data: dict[str, Any] = json.loads(result.stdout)
    return data


def assert_one_line_error(result: Result) -> None:
    """An error is one clear line on stderr, never a traceback."""
    assert "Traceback" not in result.stderr, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert lines, "expected an error message on stderr"
    assert lines[-1].startswith("chatterm: "), result.stderr


@pytest.fixture
async def scripted() -> AsyncIterator[ScriptedServer]:
    """A loopback server answering each request with the next script it is given (`tests/scripted.py`)."""
    server = ScriptedServer()
    await server.start()
    yield server
    await server.stop()
