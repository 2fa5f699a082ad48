"""The `chatterm` command line's options and subcommands."""

from __future__ import annotations

import argparse
import math
from typing import Any, NoReturn

from chatterm import __version__
from chatterm.cli.errors import UsageError
from chatterm.cli.output import line
from chatterm.net.apis import APIS, EFFORTS
from chatterm.terminal_text import MESSAGE, shortened


class _Parser(argparse.ArgumentParser):
    """argparse's parser, whose error messages (which echo what was typed) are printed as chatterm's own lines."""

    def exit(self, status: int = 0, message: str | None = None) -> NoReturn:
        super().exit(status, line(message.rstrip("\n")) + "\n" if message else None)

    def error(self, message: str) -> NoReturn:
        """Bad usage: one line, as every chatterm error (argparse would print the whole usage first)."""
        self.exit(2, f"chatterm: {shortened(message, MESSAGE)} (see '{self.prog} --help')\n")


def _positive(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not math.isfinite(value) or value <= 0:
        raise argparse.ArgumentTypeError(f"must be a number more than 0: {text!r}")
    return value


def _web_port(text: str) -> int:
    value = _port(text)
    if value == 0:  # the page names the port it is served on, so it must be known before serving
        raise argparse.ArgumentTypeError(f"must be a port from 1 to 65535: {text!r}")
    return value


def _port(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a port number: {text!r}") from None
    if not 0 <= value <= 65535:
        raise argparse.ArgumentTypeError(f"must be a port from 0 to 65535 (0: any free port): {text!r}")
    return value


ENDPOINT_OPTIONS = {
    "profile": "--profile",
    "model": "--model",
    "base_url": "--base-url",
    "api": "--api",
    "api_key_env": "--api-key-env",
    "read_timeout": "--read-timeout",
    "allow_link_local": "--allow-link-local",
    "role": "--role",
}
"""The options that choose what answers (attribute: flag). They may come before or after the subcommand; the
commands that do not talk to a model refuse them (`endpoint_options`)."""
TAKE_ENDPOINT_OPTIONS = (None, "ask", "replay", "web")
"""The commands that talk to a model (None: the app; `web` passes them on to the app it serves)."""


def _endpoint_options(parser: argparse.ArgumentParser, after: bool = False) -> None:
    """The endpoint options: before the subcommand (`after` False) they are kept apart (`top_*`), after it (a
    subcommand that takes them) they set a value only when given; `endpoint_options` puts the two together."""
    unset: Any = argparse.SUPPRESS if after else None

    def dest(name: str) -> str:
        return name if after else f"top_{name}"

    parser.add_argument(
        "--profile", "-P", metavar="NAME", help="the provider profile to use", default=unset, dest=dest("profile")
    )
    parser.add_argument(
        "--model", "-m", metavar="M", help="the model to ask (default: the profile's)", default=unset, dest=dest(
            "model"
        ),
    )
    parser.add_argument(
        "--base-url",
        metavar="URL",
        help="an ad-hoc endpoint, no profile needed (chat completions unless --api says otherwise)",
        default=unset,
        dest=dest("base_url"),
    )
    parser.add_argument(
        "--api",
        choices=APIS,
        help="the API the endpoint speaks: openai (chat completions, the default for --base-url), responses, "
        "anthropic or gemini",
        default=unset,
        dest=dest("api"),
    )
    parser.add_argument(
        "--api-key-env",
        metavar="VAR",
        help="with --base-url: the environment variable holding the key",
        default=unset,
        dest=dest("api_key_env"),
    )
    parser.add_argument(
        "--read-timeout",
        type=_positive,
        metavar="S",
        help="seconds without data before giving up",
        default=unset,
        dest=dest("read_timeout"),
    )
    parser.add_argument(
        "--allow-link-local",
        action="store_true",
        help="with --base-url: allow a link-local address (169.254.0.0/16, fe80::/10), where cloud metadata answers",
        default=argparse.SUPPRESS if after else False,
        dest=dest("allow_link_local"),
    )
    parser.add_argument(
        "--role",
        metavar="NAME",
        help="a role from config.toml: its system prompt (and profile, model and parameters, if it names them)",
        default=unset,
        dest=dest("role"),
    )


def endpoint_options(args: argparse.Namespace) -> None:
    """Put the endpoint options given before the subcommand together with those after it (which win), for the
    commands that talk to a model; refuse them, in one line, for the others."""
    given = [flag for name, flag in ENDPOINT_OPTIONS.items() if getattr(args, f"top_{name}") not in (None, False)]
    if args.command not in TAKE_ENDPOINT_OPTIONS:
        if given:
            command = f"chatterm {args.command}"
            raise UsageError(f"{given[0]} does not apply to '{command}': it chooses who answers the app, ask or replay")
        return
    for name in ENDPOINT_OPTIONS:
        if not hasattr(args, name):
            setattr(args, name, getattr(args, f"top_{name}"))


def endpoint_options_given(args: argparse.Namespace) -> list[str]:
    """The endpoint options in use (as flags), for a command that takes them (after `endpoint_options`)."""
    return [flag for name, flag in ENDPOINT_OPTIONS.items() if getattr(args, name, None) not in (None, False)]


def _pace_options(parser: argparse.ArgumentParser) -> None:
    pace = parser.add_mutually_exclusive_group()
    pace.add_argument("--speed", type=_positive, default=1.0, metavar="X", help="replay at X times the recorded pace")
    pace.add_argument("--instant", action="store_true", help="replay without waiting")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="chatterm",
        description="A terminal chat app for large language models. With no command, opens the chat app.",
    )
    parser.add_argument("--version", action="version", version=f"chatterm {__version__}")
    _endpoint_options(parser)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")

    ask = commands.add_parser("ask", help="stream one answer to stdout (reasoning to stderr), no UI")
    _endpoint_options(ask, after=True)
    ask.add_argument("--system", metavar="TEXT", help="a system prompt")
    ask.add_argument("--record", metavar="PATH", help="save the exchange as a cassette (a new file, see --force)")
    ask.add_argument("--force", action="store_true", help="replace the --record file if it exists")
    ask.add_argument("--no-reasoning", action="store_true", help="do not print the reasoning")
    ask.add_argument("prompt", nargs="?", metavar="PROMPT", help="the prompt; '-' or absent reads stdin")

    show = commands.add_parser("show", help="print the conversation held in a recording")
    show.add_argument("path", metavar="PATH")
    show.add_argument("--json", action="store_true", help="print the conversation as JSON (its fields: the README)")
    show.add_argument("--all", action="store_true", help="print every branch, not only the active one")

    convert = commands.add_parser("convert", help="rewrite a recording in another format")
    convert.add_argument("source", metavar="IN")
    convert.add_argument("target", metavar="OUT")
    convert.add_argument("--to", choices=["vcr", "govcr", "sse"], help="the format (default: from OUT's suffix)")
    convert.add_argument("--force", action="store_true", help="replace OUT if it exists")

    serve = commands.add_parser("serve", help="serve a recording as an OpenAI-compatible endpoint")
    serve.add_argument("path", metavar="PATH")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=_port, default=0, metavar="N", help="the port (default: any free port)")
    serve.add_argument("--allow-remote", action="store_true", help="allow listening on a non-loopback address")
    _pace_options(serve)

    profiles = commands.add_parser("profiles", help="list, show, add, remove provider profiles; set the default")
    actions = profiles.add_subparsers(dest="action", metavar="ACTION")
    actions.add_parser("list", help="every profile, its model and where its key comes from")
    show_profile = actions.add_parser("show", help="one profile's settings")
    show_profile.add_argument("name", metavar="NAME")
    show_profile.add_argument("--models", action="store_true", help="also ask the endpoint for its models")
    add = actions.add_parser("add", help="add (or replace) a profile in config.toml")
    add.add_argument("name", metavar="NAME")
    add.add_argument("--base-url", required=True, metavar="URL", help="up to and including /v1")
    add.add_argument("--model", required=True, metavar="M")
    add.add_argument("--api", choices=APIS, help="the API the endpoint speaks (default: openai, chat completions)")
    behind = "the server behind a chat completions endpoint: deepseek, llamacpp, vllm, ollama"
    add.add_argument("--server", metavar="NAME", help=behind)
    add.add_argument("--api-key-env", metavar="VAR", help="the environment variable holding the key")
    add.add_argument("--effort", choices=EFFORTS, help="the reasoning effort asked for (default: the provider's)")
    add.add_argument("--param", action="append", metavar="KEY=VALUE", help="an extra request parameter")
    add.add_argument("--header", action="append", metavar="KEY=VALUE", help="an extra HTTP header")
    add.add_argument("--no-think-tags", action="store_true", help="leave <think> tags in the answer")
    add.add_argument("--send-reasoning", action="store_true", help="send reasoning back in the history")
    add.add_argument("--read-timeout", type=_positive, metavar="S")
    add.add_argument("--local", action="store_true", help="a local server that needs no key")
    add.add_argument(
        "--allow-link-local", action="store_true", help="allow a link-local base URL (where cloud metadata answers)"
    )
    remove = actions.add_parser("remove", help="remove a profile from config.toml")
    remove.add_argument("name", metavar="NAME")
    default = actions.add_parser("default", help="the profile used when none is named")
    default.add_argument("name", metavar="NAME")

    key = commands.add_parser("key", help="store, delete or check a profile's API key in the system keyring")
    key.add_argument("action", choices=["set", "delete", "status"])
    key.add_argument("profile", metavar="PROFILE")

    replay = commands.add_parser("replay", help="open a recording in the app, re-streaming it at its pace")
    replay.add_argument("path", metavar="PATH")
    _pace_options(replay)
    _endpoint_options(replay, after=True)

    web = commands.add_parser("web", help="serve the app in a browser (a session per browser tab)")
    web.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    web.add_argument("--port", type=_web_port, default=8000, metavar="N", help="the port (default 8000)")
    web.add_argument(
        "--allow-remote",
        action="store_true",
        help="allow listening on a non-loopback address: whoever reaches it uses your API keys",
    )
    web.add_argument(
        "--public-url", metavar="URL", help="the address browsers open, when not http://HOST:PORT (a proxy, a name)"
    )
    _endpoint_options(web, after=True)
    return parser
