"""`chatterm web`: the chat app in a browser, served by textual-serve (chatterm/ui/web.py).

Each browser tab runs a command of its own. The command is this Python running `chatterm` with the
endpoint options `web` was given, each word quoted (textual-serve hands the command to a shell). The profile is
checked once before serving, so a bad one is one line here and not an error in every tab.
"""

from __future__ import annotations

import argparse
import shlex
import socket
import sys

from chatterm.cli import output
from chatterm.cli.app import chosen
from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.cli.listening import check_host
from chatterm.cli.parser import ENDPOINT_OPTIONS
from chatterm.settings.config import load_settings
from chatterm.settings.urls import url_host

_ANY_ADDRESS = ("0.0.0.0", "::")


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
    from chatterm.ui.web import CannotListen, WebServer

    chosen(args, load_settings())
    server = WebServer(
        app_command(args),
        announce,
        host=args.host,
        port=args.port,
        title="chatterm",
        public_url=args.public_url or public_url(args.host, args.port),
    )
    if remote:
        output.warning(
            f"serving on {url_host(args.host)}:{args.port}: anyone who can reach this port can chat with your API keys"
        )
    try:
        server.serve()
    except CannotListen as exc:
        raise UsageError(str(exc)) from None
    return EXIT_OK


def announce(url: str) -> None:
    """The server is up: its URL on stdout, what it does on stderr."""
    output.say(url, flush=True)
    output.say("serving the chat app, a session for each browser tab; Ctrl+C stops", stderr=True, flush=True)
