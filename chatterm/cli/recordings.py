"""`chatterm show`, `convert` and `serve`: recordings without the app."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import stat
import sys
from pathlib import Path
from typing import Any

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import skipped, summarize
from chatterm.cassette.write import render
from chatterm.cli import output
from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.cli.listening import check_host
from chatterm.conversation.history import message_text
from chatterm.private_files import write_private


def run_show(args: argparse.Namespace) -> int:
    recording = load_recording(args.path)
    summary = summarize(recording)
    if args.json:
        sys.stdout.write(output.json_text(summary, sys.stdout) + "\n")
        return EXIT_OK
    out = [f"# {args.path} ({summary['format']}, {counted(len(summary['turns']), 'turn')})"]
    out += [f"[skipped] {call}" for call in skipped(recording)]
    earlier: list[Any] = []
    for number, turn in enumerate(summary["turns"], start=1):
        request, response = turn["request"], turn["response"]
        out.append(f"\n## Turn {number}" + (f" · {response['model']}" if response["model"] else ""))
        messages = (request or {}).get("messages") or []
        for message in new_messages(messages, earlier):
            if isinstance(message, dict):
                out.append(f"[{message.get('role', '?')}] {message_text(message)}")
        earlier = messages
        for attempt in turn["retried"]:
            error = attempt["error"]
            out.append(f"[retried] {error['message'] if error else 'an attempt that was retried'}")
        if response["reasoning"]:
            out.append(f"[reasoning] {response['reasoning']}")
        if response["content"]:
            out.append(f"[assistant] {response['content']}")
        for call in response["tool_calls"]:
            out.append(f"[tool call] {call['name']}({call['arguments']})")
        if response["usage"]:
            usage = response["usage"]
            out.append(
                f"[usage] prompt {usage['prompt_tokens']}, completion {usage['completion_tokens']}"
                + (f", reasoning {usage['reasoning_tokens']}" if usage["reasoning_tokens"] is not None else "")
            )
        if response["error"]:
            out.append(f"[error] {response['error']['message']}")
    sys.stdout.write(output.shown("\n".join(out) + "\n", output.is_terminal(sys.stdout)))
    return EXIT_OK


def counted(number: int, thing: str) -> str:
    """`1 turn`, `2 turns`."""
    return f"{number} {thing}{'' if number == 1 else 's'}"


def new_messages(messages: list[Any], earlier: list[Any]) -> list[Any]:
    """The messages a turn's request adds to the one before it: a conversation sends its whole history each turn,
    and the previous turn's messages and answer were printed with it. All of them when the history differs."""
    if not earlier or messages[: len(earlier)] != earlier:
        return messages
    added = messages[len(earlier) :]
    if added and isinstance(added[0], dict) and added[0].get("role") == "assistant":
        added = added[1:]  # (the previous answer, sent back)
    return added


def target_format(path: str, explicit: str | None) -> str:
    if explicit:
        return explicit
    suffix = Path(path).suffix.lower()
    if suffix == ".sse":
        return "sse"
    if suffix in (".yaml", ".yml"):
        return "vcr"
    raise UsageError(f"cannot tell the format from {path!r}: name it .yaml or .sse, or pass --to vcr|govcr|sse")


def check_target(source: str, target: str, force: bool) -> None:
    """Never write over the input (whatever path names it), nor over anything that is not a regular file; replace
    an existing output only when told to."""
    try:
        info = os.stat(target)
    except FileNotFoundError:
        return
    except OSError as exc:
        raise UsageError(f"{target}: cannot be written ({exc.strerror or exc})") from None
    with contextlib.suppress(OSError):
        if os.path.samefile(source, target):
            raise UsageError(f"{target} is the input file; name another file to write")
    if not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{target} is not a regular file; name a file to write")
    if not force:
        raise UsageError(f"{target} already exists; add --force to replace it")


def run_convert(args: argparse.Namespace) -> int:
    fmt = target_format(args.target, args.to)
    check_target(args.source, args.target, args.force)
    recording = load_recording(args.source)
    try:
        write_private(Path(args.target), render(recording, fmt))
    except OSError as exc:
        raise UsageError(f"{args.target}: cannot be written ({exc.strerror or exc})") from None
    output.say(f"wrote {args.target} ({fmt}, {counted(len(recording.interactions), 'turn')})", stderr=True)
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    from chatterm.cassette.serve import ReplayServer

    if check_host(args.host, args.allow_remote):
        output.warning(f"serving on {args.host}, reachable from other machines")
    recording = load_recording(args.path)
    server = ReplayServer(recording, speed=args.speed, instant=args.instant)

    async def serve() -> None:
        try:
            base_url = await server.start(args.host, args.port)
        except OSError as exc:
            raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
        output.say(base_url, flush=True)
        served = counted(len(recording.interactions), "recorded turn")
        output.say(f"serving {served}; Ctrl+C stops", stderr=True, flush=True)
        await server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return EXIT_OK
