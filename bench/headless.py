"""Headless driver (`App.run_test`): frames drawn, frame time, event-loop stalls, and a check that the final
Markdown source equals the answer; and the longest stall of a resize after a long conversation."""

from __future__ import annotations

import asyncio
import os
import statistics
import tempfile
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from bench.server import BenchServer, Scenario, tokens

T = TypeVar("T")


def _percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def _run(server: BenchServer, base_url: str, scenario: Scenario, warm_turns: int) -> dict[str, Any]:
    from textual.screen import Screen

    frames: list[float] = []
    original = Screen._compositor_refresh

    def counted(screen: Screen[Any]) -> None:
        started = time.perf_counter()
        original(screen)
        frames.append(time.perf_counter() - started)

    Screen._compositor_refresh = counted  # type: ignore[method-assign]
    try:
        app = _app(base_url)
        async with app.run_test(size=(160, 50)) as pilot:
            screen = app.chat_screen
            server.scenario = Scenario(answer_tokens=60)
            for turn in range(warm_turns):
                await _turn(pilot, app, f"warm {turn}")
            server.scenario = scenario
            frames.clear()
            heartbeat = Heartbeat()
            server.reset()
            await _turn(pilot, app, "go")
            finished = time.monotonic()
            stalls = await heartbeat.stop()
            message = screen.messages()[-1]
            expected = "".join(tokens(scenario.answer_tokens, scenario.kind))
            return {
                "lag": max(finished - (server.last_byte or finished), 0.0),
                "frames": len(frames),
                "frame_ms_mean": statistics.fmean(frames) * 1000 if frames else 0.0,
                "frame_ms_p99": _percentile(frames, 0.99) * 1000,
                "stall_ms_p50": _percentile(stalls, 0.5) * 1000,
                "stall_ms_p99": _percentile(stalls, 0.99) * 1000,
                "stall_ms_max": max(stalls) * 1000 if stalls else 0.0,
                "source_ok": message.markdown.source == expected and message.answer == expected,
            }
    finally:
        Screen._compositor_refresh = original  # type: ignore[method-assign]


class Heartbeat:
    """How long the event loop was held beyond each 10 ms beat, from its making until `stop`."""

    def __init__(self) -> None:
        self.stalls: list[float] = []
        self._beating = True
        self._task = asyncio.create_task(self._beat())

    async def _beat(self) -> None:
        while self._beating:
            before = time.perf_counter()
            await asyncio.sleep(0.01)
            self.stalls.append(time.perf_counter() - before - 0.01)

    async def stop(self) -> list[float]:
        self._beating = False
        await self._task
        return self.stalls


def _app(base_url: str) -> Any:
    from chatterm.settings.choice import choose
    from chatterm.settings.config import load_settings
    from chatterm.ui.app import ChatApp

    settings = load_settings()
    return ChatApp(settings, choose(settings, base_url=base_url, model="bench-model"))


async def _turn(pilot: Any, app: Any, prompt: str) -> None:
    composer = app.chat_screen.composer
    composer.focus()
    await pilot.pause()
    composer.insert(prompt)
    await pilot.press("enter")
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        messages = app.chat_screen.messages()
        if messages and messages[-1].finished and not app.chat_screen.streaming:
            return
        await asyncio.sleep(0.005)
    raise TimeoutError("the answer never finished")


def headless(scenario: Scenario, warm_turns: int = 0) -> dict[str, Any]:
    return _with_server(scenario, lambda server, base_url: _run(server, base_url, scenario, warm_turns))


def _with_server(scenario: Scenario, run: Callable[[BenchServer, str], Awaitable[T]]) -> T:
    """`run` against a loopback server of `scenario`, with a fresh HOME."""
    home = tempfile.mkdtemp(prefix="bench-headless-")
    os.environ.update({"HOME": home, "XDG_CONFIG_HOME": f"{home}/c", "XDG_DATA_HOME": f"{home}/d"})
    server = BenchServer(scenario)
    base_url = server.start()
    try:
        return asyncio.run(run(server, base_url))
    finally:
        server.stop()


async def _resize(base_url: str, answers: int) -> float:
    app = _app(base_url)
    async with app.run_test(size=(160, 50)) as pilot:
        for turn in range(answers):
            await _turn(pilot, app, f"answer {turn}")
        await asyncio.sleep(0.5)
        heartbeat = Heartbeat()
        await pilot.resize_terminal(100, 50)
        await asyncio.sleep(1.5)
        return max(await heartbeat.stop())


def resize_stall(scenario: Scenario, answers: int) -> float:
    """The longest the event loop is held when the terminal goes from 160 to 100 columns after `answers` answers
    (every message is drawn again at the new width)."""
    return _with_server(scenario, lambda server, base_url: _resize(base_url, answers))
