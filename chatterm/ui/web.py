"""The chat app served to browsers by textual-serve (`chatterm web` builds the command and says what it serves).

textual-serve runs a command for each browser tab and relays its screen and keys over a websocket, so a tab holds
the very app the terminal shows, with its own session.
"""

from __future__ import annotations

import asyncio
import errno
import socket
from collections.abc import Callable
from typing import Any

from aiohttp import web
from textual_serve.server import Server

from chatterm.settings.urls import url_host

TAB_ENDING = 10.0
"""Seconds the server gives the tabs' apps to end when it stops, before it stops without them."""


class CannotListen(Exception):
    """The address or port cannot be listened on; the message says which and what to do."""


class WebServer(Server):
    """textual-serve's server, telling `announce` where it serves once it is up, refusing an address it cannot
    listen on before saying anything (CannotListen), and ending the apps of the open tabs when it stops
    (textual-serve's handler of a tab's websocket, cancelled, tells its app to quit and waits for it), so that
    Ctrl+C ends the server at once instead of after the web server's wait for open connections."""

    def __init__(self, command: str, announce: Callable[[str], None], **options: Any) -> None:
        super().__init__(command, **options)
        self.announce = announce
        self.tabs: set[asyncio.Task[Any]] = set()

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        tab = asyncio.current_task()
        assert tab is not None
        self.tabs.add(tab)
        try:
            response: web.WebSocketResponse = await super().handle_websocket(request)
            return response
        finally:
            self.tabs.discard(tab)

    async def on_shutdown(self, app: web.Application) -> None:
        for tab in self.tabs:
            tab.cancel()
        if self.tabs:
            await asyncio.wait(self.tabs, timeout=TAB_ENDING)

    def serve(self, debug: bool = False) -> None:
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:  # a port in use or a bad address stops here, before the server has said it is up
            with socket.socket(family, socket.SOCK_STREAM) as probe:
                probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server's own socket
                probe.bind((self.host, self.port))
            super().serve(debug=debug)
        except OSError as exc:
            raise CannotListen(self._cannot_listen(exc)) from None

    def _cannot_listen(self, exc: OSError) -> str:
        where = f"cannot listen on {url_host(self.host)}:{self.port}"
        if exc.errno == errno.EADDRINUSE:
            return f"{where}: the port is in use; choose another --port"
        return f"{where} ({exc.strerror or exc})"

    async def on_startup(self, app: web.Application) -> None:
        self.announce(self.public_url)
