"""End to end: `chatterm web` opened in headless Chromium, a prompt typed into the page, the answer read off it.

The screenshot of the answered page is kept in `test-artifacts/` (ignored by git) for a person to look at.
"""

from __future__ import annotations

import asyncio
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.browser import CHROMIUM, chromium, end_group
from tests.e2e.processes import ended
from tests.scripted import ScriptedServer, sse_script

pytestmark = [
    pytest.mark.e2e,
    pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (.ci/run installs it)"),
]

ARTEFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"
ANSWER = "The **browser** got this answer, streamed a few words at a time, from the loopback server."


def free_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port: int = probe.getsockname()[1]
        return port


async def test_the_app_in_a_browser_streams_an_answer_to_a_typed_prompt(
    scripted: ScriptedServer, tmp_path: Path
) -> None:
    answer = sse_script(ANSWER, reasoning="A short answer will do.", answer_cuts=range(0, 200, 9), gaps=(0.05,))
    scripted.answers = [answer]
    command = [sys.executable, "-m", "chatterm", "web", "--port", str(free_port()), "--base-url", scripted.url]
    server = subprocess.Popen(
        [*command, "--model", "scripted"],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,  # the server and the app it runs for the tab: ended together as a group
    )
    try:
        assert server.stdout is not None
        url = (await asyncio.to_thread(server.stdout.readline)).strip()
        assert url.startswith("http://127.0.0.1:"), url or server.communicate(timeout=10)
        async with chromium(tmp_path) as page:
            await page.open(url)
            await page.wait_for(lambda s: "Enter sends" in s, "the app, ready for a prompt")
            await page.focus_terminal()
            await page.type("Say something from the browser")
            await page.press_enter()
            answered = await page.wait_for(
                lambda s: "loopback server." in s and "ready" in s, "the whole answer streamed, and the app ready"
            )
            await page.screenshot(ARTEFACTS / "web-answer.png")
            server.send_signal(signal.SIGTERM)  # as Ctrl+C: the server ends the tab's app, then itself
            server.wait(10)  # (left to itself, aiohttp would wait up to a minute for the open websocket)
        assert ended(server.pid, group=True), "the app the server ran for the tab ended with it"
        assert "browser got this answer, streamed a few words at a time" in " ".join(answered.split())
        assert "**" not in answered, "the answer is drawn as Markdown"
        assert scripted.requests[-1]["messages"][-1]["content"] == "Say something from the browser"
        assert scripted.requests[-1]["model"] == "scripted"
    finally:
        end_group(server)
