"""Holding up over time: `ask --record` under a flood, the sessions dialog over 5,000 sessions, Ctrl+L over 200 local
profiles, and `replay --instant` of a large go-vcr cassette.

Each measure runs in a fresh HOME. Where a figure has a baseline (ask without `--record`), both run in turn, several
times, and the ratio is of their medians, so a busy machine moves both alike.
"""

from __future__ import annotations

import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

from bench.server import BenchServer, Scenario


def fresh_home() -> dict[str, str]:
    home = tempfile.mkdtemp(prefix="bench-overtime-")
    env = {"HOME": home, "XDG_CONFIG_HOME": f"{home}/c", "XDG_DATA_HOME": f"{home}/d"}
    os.environ.update(env)
    return env


def _command() -> str:
    return shutil.which("chatterm") or "chatterm"


def _timed(args: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall and CPU seconds of a command run to its end."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.monotonic()
    done = subprocess.run(args, capture_output=True, env={**os.environ, **env}, check=False)
    wall = time.monotonic() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(args[:3])} failed: {done.stderr.decode()[-500:]}")
    return wall, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)


def record_flood(events: int = 30_000, runs: int = 5) -> dict[str, Any]:
    """`ask` with and without `--record` on the same flood of small events, in turn: medians and their spread."""
    env = fresh_home()
    server = BenchServer(Scenario(answer_tokens=events, kind="plain"))
    base_url = server.start()
    record = Path(env["HOME"]) / "flood.yaml"
    ask = [_command(), "ask", "--base-url", base_url, "--model", "bench-model", "flood"]
    plain: list[float] = []
    recorded: list[float] = []
    try:
        for _ in range(runs):
            plain.append(_timed(ask, env)[0])
            recorded.append(_timed([*ask, "--record", str(record), "--force"], env)[0])
    finally:
        server.stop()
    ratios = [r / p for r, p in zip(recorded, plain, strict=True)]
    return {
        "plain": statistics.median(plain),
        "recorded": statistics.median(recorded),
        "ratio": statistics.median(recorded) / statistics.median(plain),
        "ratio_low": min(ratios),
        "ratio_high": max(ratios),
        "size_mb": record.stat().st_size / 2**20,
    }


def write_sessions(folder: Path, count: int, turns: int = 2, tokens: int = 200) -> int:
    """`count` session files as the app writes them (answers with their event offsets); returns the bytes of one."""
    from chatterm.cassette.model import Interaction, Recording, Request, Response
    from chatterm.cassette.write import render

    events = BenchServer(Scenario(answer_tokens=tokens)).events()
    offsets, end = [], 0
    for number, event in enumerate(events):
        end += len(event)
        offsets.append((number * 0.01, end))
    folder.mkdir(parents=True, exist_ok=True)
    history: list[dict[str, str]] = []
    size = 0
    for number in range(count):
        interactions = []
        history = []
        for turn in range(turns):
            history.append({"role": "user", "content": f"session {number} question {turn}"})
            body = json.dumps({"model": "bench-model", "messages": history, "stream": True}).encode()
            request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=body)
            response = Response(200, {"content-type": ["text/event-stream"]}, b"".join(events), offsets=offsets)
            meta = {"profile": "bench", "model": "bench-model", "started": 1.8e9 + number}
            interactions.append(Interaction(request, response, meta=meta))
            history.append({"role": "assistant", "content": "an answer"})
        data = render(Recording("vcr", interactions))
        path = folder / f"20260101-{number:06d}-1-bench.yaml"
        path.write_bytes(data)
        os.utime(path, (1.8e9 + number, 1.8e9 + number))
        size = len(data)
    return size


async def _open_sessions() -> dict[str, float]:
    from bench.headless import Heartbeat
    from chatterm.settings.choice import choose
    from chatterm.settings.config import load_settings
    from chatterm.ui.app import ChatApp
    from chatterm.ui.screens.sessions import SessionsScreen

    settings = load_settings()
    app = ChatApp(settings, choose(settings))
    async with app.run_test(size=(160, 50)) as pilot:
        await app.chat_screen.ready()
        await pilot.pause(0.3)
        heartbeat = Heartbeat()
        started = time.monotonic()
        app.action_open_sessions()  # (what Ctrl+O does; a pilot's key press returns only once the screen is idle)
        first = None
        while True:
            screen = app.screen
            if isinstance(screen, SessionsScreen):
                if first is None and screen.sessions:
                    first = time.monotonic() - started
                if screen.loaded:
                    full = time.monotonic() - started
                    stall = max(await heartbeat.stop())
                    return {"first": first or 0.0, "full": full, "rows": len(screen.sessions), "stall": stall}
            if time.monotonic() - started > 600:
                raise TimeoutError("the sessions list never filled")
            await asyncio.sleep(0.005)


def sessions_dialog(count: int = 5000, runs: int = 3) -> dict[str, Any]:
    """Ctrl+O over `count` sessions, `runs` times: time to the first rows and to the full list with no index (cold)
    and then with the index the cold one left (warm), and the longest the event loop was held meanwhile."""
    from chatterm import locations
    from chatterm.cassette.session_index import INDEX_NAME

    fresh_home()
    folder = locations.sessions_dir()
    size = write_sessions(folder, count)
    results: dict[str, list[dict[str, float]]] = {"cold": [], "warm": []}
    for _ in range(runs):
        (folder / INDEX_NAME).unlink(missing_ok=True)
        results["cold"].append(asyncio.run(_open_sessions()))
        results["warm"].append(asyncio.run(_open_sessions()))
    shutil.rmtree(folder)
    return {**{name: _spread(runs_of) for name, runs_of in results.items()}, "session_kb": size / 1024}


def _spread(results: list[dict[str, float]]) -> dict[str, tuple[float, float, float]]:
    """Per figure: the median, the lowest and the highest of the runs."""
    return {
        key: (statistics.median(r[key] for r in results), min(r[key] for r in results), max(r[key] for r in results))
        for key in results[0]
    }


def write_local_profiles(count: int, base_url: str) -> None:
    """`count` local profiles in a fresh config, every one at `base_url`'s host on a port of its own, most of them
    closed, as a machine with many local servers configured and few running."""
    from chatterm import locations

    host = base_url.split("//", 1)[1].split("/", 1)[0].rsplit(":", 1)[0]
    lines = []
    for number in range(count):
        url = base_url if number % 10 == 0 else f"http://{host}:{9 + number % 3}/v1"
        lines.append(f'[profiles.local{number:03d}]\nbase_url = "{url}"\nmodel = "m{number}"\nlocal = true\n')
    locations.config_dir().mkdir(parents=True, exist_ok=True)
    locations.config_file().write_text("\n".join(lines))


async def _open_profiles() -> dict[str, float]:
    from chatterm.settings.choice import choose
    from chatterm.settings.config import load_settings
    from chatterm.ui.app import ChatApp
    from chatterm.ui.screens.profiles import ProfileScreen

    settings = load_settings()
    app = ChatApp(settings, choose(settings, "demo"))
    async with app.run_test(size=(160, 50)) as pilot:
        await app.chat_screen.ready()
        await pilot.pause(0.3)
        started = time.monotonic()
        task = asyncio.ensure_future(app.run_action("switch_profile"))  # (what Ctrl+L does)
        shown = None
        while True:
            screen = app.screen
            if shown is None and isinstance(screen, ProfileScreen):
                shown = time.monotonic() - started
            if shown is not None and task.done() and getattr(screen, "probed", True):
                filled = time.monotonic() - started
                await pilot.press("escape")
                return {"dialog": shown, "filled": filled}
            if time.monotonic() - started > 120:
                raise TimeoutError("the profile switcher never showed")
            await asyncio.sleep(0.005)


def profiles_dialog(count: int = 200, runs: int = 3) -> dict[str, tuple[float, float, float]]:
    """Ctrl+L with `count` local profiles (one in ten answering), `runs` times: time to the dialog, and until every
    local server was asked."""
    fresh_home()
    server = BenchServer(Scenario(answer_tokens=10))
    base_url = server.start()
    try:
        write_local_profiles(count, base_url)
        return _spread([asyncio.run(_open_profiles()) for _ in range(runs)])
    finally:
        server.stop()


def write_govcr_cassette(path: Path, megabytes: float, turns: int, kind: str = "markdown") -> int:
    """A go-vcr cassette (format 2, as chatterm writes it) of about `megabytes`, in `turns` streamed answers of equal
    size: many small ones, or a few huge ones. Returns its size."""
    from chatterm.cassette.govcr import write_govcr
    from chatterm.cassette.model import Interaction, Recording, Request, Response

    per_turn = int(megabytes * 2**20 / turns)
    events = BenchServer(Scenario(answer_tokens=max(50, per_turn // 150), kind=kind)).events()
    body = b"".join(events)
    while len(body) < per_turn * 0.9:
        body = b"".join(events[:-2]) + body
    interactions = []
    for turn in range(turns):
        request_body = json.dumps({"model": "bench-model", "messages": [{"role": "user", "content": f"q {turn}"}]})
        request = Request("POST", "http://127.0.0.1/v1/chat/completions", {}, request_body.encode())
        response = Response(200, {"Content-Type": ["text/event-stream"]}, body, duration=0.5)
        interactions.append(Interaction(request, response))
    data = write_govcr(Recording("govcr", interactions))
    path.write_bytes(data)
    return len(data)


def write_govcr_history(path: Path, megabytes: float, answer_tokens: int = 300) -> int:
    """A go-vcr cassette of a long conversation: each request carries the whole history so far, as chat APIs take
    it, so the requests hold most of its bytes."""
    from chatterm.cassette.govcr import write_govcr
    from chatterm.cassette.model import Interaction, Recording, Request, Response

    events = BenchServer(Scenario(answer_tokens=answer_tokens)).events()
    body = b"".join(events)
    answer = "".join(json.loads(e[6:].split(b"\n")[0])["choices"][0]["delta"].get("content", "") for e in events[:-2])
    history: list[dict[str, str]] = []
    interactions: list[Interaction] = []
    size = 0
    while size < megabytes * 2**20:
        history.append({"role": "user", "content": f"question {len(interactions)}"})
        request_body = json.dumps({"model": "bench-model", "messages": history, "stream": True}).encode()
        request = Request("POST", "http://127.0.0.1/v1/chat/completions", {}, request_body)
        interactions.append(Interaction(request, Response(200, {"Content-Type": ["text/event-stream"]}, body)))
        history.append({"role": "assistant", "content": answer})
        size += len(request_body) + len(body)
    data = write_govcr(Recording("govcr", interactions))
    path.write_bytes(data)
    return len(data)


def replay_shapes(megabytes: float = 37, runs: int = 3) -> dict[str, dict[str, tuple[float, float, float]]]:
    """`replay --instant` of go-vcr cassettes of `megabytes` in three shapes, `runs` times in turn: seconds to the
    last answer on screen ("Replay finished"), and the CPU seconds of the app by then."""
    from bench.blackbox import Terminal, fresh_env, tree_cpu

    folder = Path(tempfile.mkdtemp(prefix="bench-replay-"))
    shapes = {"many turns": folder / "many.yaml", "a few huge answers": folder / "few.yaml"}
    shapes["a long conversation"] = folder / "history.yaml"
    write_govcr_cassette(shapes["many turns"], megabytes, max(1, int(megabytes * 27)))  # ~37 KB a turn
    write_govcr_cassette(shapes["a few huge answers"], megabytes, 4)
    write_govcr_history(shapes["a long conversation"], megabytes)
    results: dict[str, list[dict[str, float]]] = {name: [] for name in shapes}
    try:
        for _ in range(runs):
            for name, path in shapes.items():
                terminal = Terminal(f"bench-replay-{os.getpid()}-{time.monotonic_ns()}")
                try:
                    started = time.monotonic()
                    terminal.start(f"{_command()} replay {path} --instant", fresh_env())
                    seconds = terminal.wait_for("Replay finished", 300) - started
                    results[name].append({"seconds": seconds, "cpu": tree_cpu(terminal.pane_pid())})
                finally:
                    terminal.close()
    finally:
        shutil.rmtree(folder)
    return {name: _spread(runs_of) for name, runs_of in results.items()}
