"""`chatterm web`: the chat app in a browser, served by textual-serve.

textual-serve runs a command for each browser tab and relays its screen and keys over a websocket, so a tab holds
the very app the terminal shows, with its own session. The command is this Python running `chatterm` with the
endpoint options `web` was given, each word quoted (textual-serve hands the command to a shell). The profile is
checked once before serving, so a bad one is one line here and not an error in every tab.
"""

from __future__ import annotations

import argparse
import shlex
import socket
import sys

from textual_serve.server import Server

from chatterm.cli import output
from chatterm.cli.app import chosen
from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.cli.listening import check_host, url_host
from chatterm.cli.parser import ENDPOINT_OPTIONS
from chatterm.settings.config import load_settings

_ANY_ADDRESS = ("0.0.0.0", "::")


class WebServer(Server):
    """textual-serve's server, saying what it serves in chatterm's own lines, and refusing in one line an address
    it cannot listen on."""

    def serve(self, debug: bool = False) -> None:
        where = f"{url_host(self.host)}:{self.port}"
        family = socket.AF_INET6 if ":" in self.host else socket.AF_INET
        try:  # a port in use or a bad address stops here, before the server has said it is up
            socket.create_server((self.host, self.port), family=family).close()
        except OSError as exc:
            raise UsageError(f"cannot listen on {where} ({exc.strerror or exc}); choose another --port") from None
        try:
            super().serve(debug=debug)
        except OSError as exc:
            raise UsageError(f"cannot listen on {where} ({exc.strerror or exc}); choose another --port") from None

    async def on_startup(self, app: object) -> None:
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
