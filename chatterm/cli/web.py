"""`chatterm web`: the chat app in a browser, served by textual-serve.

textual-serve runs a command for each browser tab and relays its screen and keys over a websocket, so a tab holds
the very app the terminal shows, with its own session. The command is this Python running `chatterm` with the
endpoint options `web` was given, each word quoted (textual-serve hands the command to a shell). The profile is
checked once before serving, so a bad one is one line here and not an error in every tab.
"""

from __future__ import annotations

import argparse
import asyncio
import errno
import shlex
import socket
import sys
from typing import Any

from aiohttp import web
from textual_serve.server import Server

from chatterm.cli import output
from chatterm.cli.app import chosen
from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.cli.listening import check_host, url_host
from chatterm.cli.parser import ENDPOINT_OPTIONS
from chatterm.settings.config import load_settings

_ANY_ADDRESS = ("0.0.0.0", "::")


TAB_ENDING = 10.0
"""Seconds the server gives the tabs' apps to end when it stops, before it stops without them."""


class WebServer(Server):
    """textual-serve's server, saying what it serves in chatterm's own lines, refusing in one line an address it
    cannot listen on, and ending the apps of the open tabs when it stops (textual-serve's handler of a tab's
    websocket, cancelled, tells its app to quit and waits for it), so that Ctrl+C ends the server at once instead
    of after the web server's wait for open connections."""

    def __init__(self, command: str, **options: Any) -> None:
        super().__init__(command, **options)
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
            raise UsageError(self._cannot_listen(exc)) from None

    def _cannot_listen(self, exc: OSError) -> str:
        where = f"cannot listen on {url_host(self.host)}:{self.port}"
        if exc.errno == errno.EADDRINUSE:
            return f"{where}: the port is in use; choose another --port"
        return f"{where} ({exc.strerror or exc})"

    async def on_startup(self, app: web.Application) -> None:
        output.say(self.public_url, flush=True)
        output.say("serving the chat app, a session for each browser tab; Ctrl+C stops", stderr=True, flush=True)


def app_command(args: argparse.Namespace) -> str:
    """The shell command that runs the app for one tab: the endpoint options given to `web`, each word quoted."""
    words = [sys.executable, "-m", "chatterm"]
    for name, flag in ENDPOINT_OPTIONS.items():
        value = getattr(args, name, None)
        if value is None or value is False:
            continue
        words += [flag] if value is True else [flag, str(value)]
    return shlex.join(words)


def public_url(host: str, port: int) -> str:
    """Where browsers reach the server (the page names its websocket by it): an address listening on every
    interface is reached by this machine's name."""
    name = socket.gethostname() if host in _ANY_ADDRESS else host
    return f"http://{url_host(name)}:{port}"


def run_web(args: argparse.Namespace) -> int:
    remote = check_host(args.host, args.allow_remote)
    chosen(args, load_settings())
    server = WebServer(
        app_command(args),
        host=args.host,
        port=args.port,
        title="chatterm",
        public_url=args.public_url or public_url(args.host, args.port),
    )
    if remote:
        output.warning(
            f"serving on {url_host(args.host)}:{args.port}: anyone who can reach this port can chat with your API keys"
        )
    server.serve()
    return EXIT_OK
