"""Headless Chromium driven over the Chrome DevTools Protocol: one page, its keyboard, its terminal's text, a
screenshot.

The protocol is JSON over a websocket (the page's own `webSocketDebuggerUrl`): a command is `{id, method, params}`
and its answer carries the same id; events (no id) are not needed here and are dropped. Keys go in as the
browser's own input events, so the page gets them as from a person.

textual-serve's page draws its terminal (xterm.js) on a canvas, so the text on screen is read from the terminal's
buffer. The page keeps its terminal in a closure; a script run before the page's own finds it when the page
stores its fit add-on beside it (`this.terminal`, then `this.fitAddon`) and keeps it on `window`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import itertools
import os
import shutil
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import aiohttp
import httpx

CHROMIUM = shutil.which("chromium")

_FIND_TERMINAL = """
Object.defineProperty(Object.prototype, "fitAddon", {
  configurable: true,
  set(value) {
    Object.defineProperty(this, "fitAddon", {value, writable: true, configurable: true, enumerable: true});
    if (this.terminal && !window.__terminal) window.__terminal = this.terminal;
  },
});
"""

_SCREEN = """
(() => {
  const terminal = window.__terminal;
  if (!terminal) return null;
  const buffer = terminal.buffer.active;
  const lines = [];
  for (let row = 0; row < terminal.rows; row++) {
    const line = buffer.getLine(buffer.viewportY + row);
    lines.push(line ? line.translateToString(true) : "");
  }
  return lines.join("\\n");
})()
"""


class ProtocolError(Exception):
    """The browser answered a command with an error."""


class Page:
    """One browser page over its DevTools websocket."""

    def __init__(self, socket: aiohttp.ClientWebSocketResponse) -> None:
        self.socket = socket
        self.ids = itertools.count(1)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        async for message in self.socket:
            data = message.json()
            future = self.waiting.pop(data.get("id", -1), None)
            if future is not None and not future.done():
                future.set_result(data)
        for future in self.waiting.values():
            future.set_exception(ProtocolError("the browser closed the page's connection"))

    async def send(self, method: str, **params: Any) -> dict[str, Any]:
        number = next(self.ids)
        self.waiting[number] = asyncio.get_running_loop().create_future()
        await self.socket.send_json({"id": number, "method": method, "params": params})
        answer = await asyncio.wait_for(self.waiting[number], 30)
        if "error" in answer:
            raise ProtocolError(f"{method}: {answer['error']}")
        result: dict[str, Any] = answer["result"]
        return result

    async def evaluate(self, expression: str) -> Any:
        result = await self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        if "exceptionDetails" in result:
            raise ProtocolError(f"the page's script failed: {result['exceptionDetails']}")
        return result["result"].get("value")

    async def open(self, url: str, width: int = 1200, height: int = 800) -> None:
        await self.send("Page.enable")
        await self.send("Page.addScriptToEvaluateOnNewDocument", source=_FIND_TERMINAL)
        await self.send(
            "Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1, mobile=False
        )
        await self.send("Page.navigate", url=url)

    async def screen(self) -> str | None:
        """The terminal's rows as text (None before the page has made its terminal)."""
        text = await self.evaluate(_SCREEN)
        return text if isinstance(text, str) else None

    async def wait_for(self, check: Callable[[str], bool], what: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = await self.screen()
            if screen is not None and check(screen):
                return screen
            if time.monotonic() > deadline:
                found = "no terminal on the page" if screen is None else screen
                raise AssertionError(f"the page never showed {what}:\n{found}")
            await asyncio.sleep(0.1)

    async def focus_terminal(self) -> None:
        await self.evaluate("window.__terminal.focus()")

    async def type(self, text: str) -> None:
        await self.send("Input.insertText", text=text)

    async def press_enter(self) -> None:
        key = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13, "nativeVirtualKeyCode": 13}
        await self.send("Input.dispatchKeyEvent", type="keyDown", text="\r", **key)
        await self.send("Input.dispatchKeyEvent", type="keyUp", **key)

    async def screenshot(self, path: Path) -> Path:
        shot = await self.send("Page.captureScreenshot", format="png")
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(base64.b64decode(shot["data"]))
        return path

    async def close(self) -> None:
        await self.socket.close()
        self.reader.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self.reader


def _debugging_port(profile: Path, process: subprocess.Popen[bytes], log: Path, timeout: float = 30) -> int:
    """The port Chromium's DevTools listen on, from the file it writes in its profile once listening."""
    active = profile / "DevToolsActivePort"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"chromium ended ({process.returncode}):\n{log.read_text(errors='replace')}")
        with contextlib.suppress(FileNotFoundError, ValueError, IndexError):
            return int(active.read_text().splitlines()[0])
        time.sleep(0.05)
    raise AssertionError(f"chromium never listened for DevTools:\n{log.read_text(errors='replace')}")


@contextlib.asynccontextmanager
async def chromium(directory: Path) -> AsyncIterator[Page]:
    """Headless Chromium on a profile of its own in `directory`, with one blank page; its whole process group is
    ended afterwards (the browser starts a process per renderer, GPU and network service)."""
    assert CHROMIUM is not None
    profile = directory / "chromium-profile"
    log = directory / "chromium.log"
    options = [
        "--headless",
        "--disable-gpu",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-background-networking",
        "--disable-extensions",
        "--remote-debugging-address=127.0.0.1",
        "--remote-debugging-port=0",
        f"--user-data-dir={profile}",
    ]
    if os.geteuid() == 0:  # Chromium's sandbox refuses to run as root
        options.append("--no-sandbox")
    with log.open("wb") as output:
        process = subprocess.Popen(
            [CHROMIUM, *options, "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            start_new_session=True,
        )
    try:
        port = _debugging_port(profile, process, log)
        async with httpx.AsyncClient() as client:
            targets = (await client.get(f"http://127.0.0.1:{port}/json/list")).json()
        address = next(t["webSocketDebuggerUrl"] for t in targets if t["type"] == "page")
        async with aiohttp.ClientSession() as session:
            page = Page(await session.ws_connect(address, max_msg_size=0))
            try:
                yield page
            finally:
                await page.close()
    finally:
        end_group(process)


def end_group(process: subprocess.Popen[Any], timeout: float = 10) -> None:
    """End a process started in a session of its own, and every process it started: SIGTERM to the group, then
    SIGKILL to what is left of it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        process.poll()  # (reaped, the leader leaves the group)
        try:
            os.killpg(process.pid, 0)
        except ProcessLookupError:
            break
        time.sleep(0.05)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait(timeout)
