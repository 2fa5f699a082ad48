"""Ctrl+L with many local profiles: the switcher shows every profile at once and fills in which local servers answer
as they do, asking them all together, each within a short time."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import AsyncIterator

import pytest
from textual.pilot import Pilot
from textual.widgets import OptionList

from chatterm import locations
from chatterm.net import models
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.profiles import ProfileScreen
from tests.ui.helpers import app_for, wait_for
from tests.ui.test_outside_text import notices


class ModelsServer:
    """Answers `GET /<name>/v1/models`: at once for `up`, only once released for `held`."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.open_held = 0
        """Requests for `held` that are waiting for their answer, their connection still open."""
        self.server: asyncio.Server | None = None
        self.port = 0

    async def start(self) -> None:
        self.server = await asyncio.start_server(self._handle, "127.0.0.1", 0)
        self.port = self.server.sockets[0].getsockname()[1]

    def url(self, name: str) -> str:
        return f"http://127.0.0.1:{self.port}/{name}/v1"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1")
            if "/held/" in head.split("\r\n")[0]:
                self.open_held += 1
                try:
                    done = asyncio.ensure_future(reader.read(1))  # the client going away ends the wait too
                    await asyncio.wait(
                        [done, asyncio.ensure_future(self.release.wait())], return_when="FIRST_COMPLETED"
                    )
                finally:
                    self.open_held -= 1
            body = b'{"data": [{"id": "m"}]}'
            writer.write(
                b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
            )
            await writer.drain()
        except (ConnectionError, asyncio.IncompleteReadError):
            pass
        finally:
            writer.close()


@pytest.fixture
async def models_server() -> AsyncIterator[ModelsServer]:
    server = ModelsServer()
    await server.start()
    yield server
    server.release.set()
    assert server.server is not None
    server.server.close()


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def switcher(pilot: Pilot[None], app: ChatApp) -> ProfileScreen:
    """Ctrl+L's dialog, open."""
    await pilot.press("ctrl+l")
    await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
    screen = app.screen
    assert isinstance(screen, ProfileScreen)
    return screen


def prompt(screen: ProfileScreen, name: str) -> str:
    options = screen.query_one(OptionList)
    return str(options.get_option(name).prompt)


async def test_the_switcher_shows_at_once_and_fills_in_the_local_servers_that_answer(
    models_server: ModelsServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(models, "PROBE_TIMEOUT", 30.0)  # (the held server answers when the test says, not before)
    down = f"http://127.0.0.1:{closed_port()}/v1"
    profiles = {"up": models_server.url("up"), "held": models_server.url("held")}
    profiles.update({f"down{n:03d}": down for n in range(198)})
    locations.config_dir().mkdir(parents=True, exist_ok=True)
    locations.config_file().write_text(
        "\n".join(
            f'[profiles.{name}]\nbase_url = "{url}"\nmodel = "m"\nlocal = true\n' for name, url in profiles.items()
        )
    )
    app = app_for()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await switcher(pilot, app)
        await wait_for(pilot, lambda: models_server.open_held == 1)  # (the dialog is up while a server is asked)
        assert "checking" in prompt(screen, "held")
        listed = {str(option.id) for option in screen.query_one(OptionList).options}
        assert set(profiles) <= listed, "every profile is listed at once"
        await wait_for(pilot, lambda: "local server" in prompt(screen, "up"))
        await wait_for(pilot, lambda: all("not answering" in prompt(screen, f"down{n:03d}") for n in range(198)))
        assert "checking" in prompt(screen, "held") and models_server.open_held == 1
        models_server.release.set()
        await wait_for(pilot, lambda: "local server" in prompt(screen, "held"))
        screen._choose("down007")  # no server there: said in a toast, and nothing switched
        await wait_for(pilot, lambda: any("down007" in n and "answer" in n for n in notices(app)))
        assert app.choice.profile != "down007"
        screen._choose("up")
        await wait_for(pilot, lambda: app.choice.profile == "up")


async def test_a_profile_that_names_no_key_is_switched_to_as_it_is_started(models_server: ModelsServer) -> None:
    """A profile with no key variable (`profiles add NAME --base-url URL`, not --local) starts with no key, as
    `--profile NAME` does; the switcher takes it the same way, saying it has no key rather than refusing it."""
    locations.config_dir().mkdir(parents=True, exist_ok=True)
    locations.config_file().write_text(f'[profiles.mine]\nbase_url = "{models_server.url("up")}"\nmodel = "m"\n')
    app = app_for()
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        screen = await switcher(pilot, app)
        assert "None" not in prompt(screen, "mine") and "no key" in prompt(screen, "mine")
        screen._choose("mine")
        await wait_for(pilot, lambda: app.choice.profile == "mine")
        assert not any("mine has" in notice for notice in notices(app))
