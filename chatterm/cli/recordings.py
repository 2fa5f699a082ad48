"""`chatterm show`, `convert` and `serve`: recordings without the app."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import ipaddress
import json
import os
import stat
import sys
from pathlib import Path

from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from chatterm.cassette.write import render
from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.conversation.history import message_text
from chatterm.private_files import write_private
from chatterm.terminal_text import neutralize


def run_show(args: argparse.Namespace) -> int:
    summary = summarize(load_recording(args.path))
    if args.json:
        sys.stdout.write(json.dumps(summary, ensure_ascii=False, indent=2) + "\n")
        return EXIT_OK
    safe = neutralize if sys.stdout.isatty() else (lambda text: text)
    out = [f"# {args.path} ({summary['format']}, {len(summary['turns'])} turns)"]
    for number, turn in enumerate(summary["turns"], start=1):
        request, response = turn["request"], turn["response"]
        out.append(f"\n## Turn {number}" + (f" · {response['model']}" if response["model"] else ""))
        for message in (request or {}).get("messages") or []:
            if isinstance(message, dict):
                out.append(f"[{message.get('role', '?')}] {safe(message_text(message))}")
        if response["reasoning"]:
            out.append(f"[reasoning] {safe(response['reasoning'])}")
        if response["content"]:
            out.append(f"[assistant] {safe(response['content'])}")
        for call in response["tool_calls"]:
            out.append(f"[tool call] {safe(call['name'])}({safe(call['arguments'])})")
        if response["usage"]:
            usage = response["usage"]
            out.append(
                f"[usage] prompt {usage['prompt_tokens']}, completion {usage['completion_tokens']}"
                + (f", reasoning {usage['reasoning_tokens']}" if usage["reasoning_tokens"] is not None else "")
            )
        if response["error"]:
            out.append(f"[error] {safe(response['error']['message'])}")
    sys.stdout.write("\n".join(out) + "\n")
    return EXIT_OK


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
    print(f"wrote {args.target} ({fmt}, {len(recording.interactions)} turns)", file=sys.stderr)
    return EXIT_OK


def run_serve(args: argparse.Namespace) -> int:
    from chatterm.cassette.serve import ReplayServer

    try:
        loopback = args.host == "localhost" or ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = False
    if not loopback and not args.allow_remote:
        raise UsageError(f"refusing to listen on {args.host}: it is not a loopback address (add --allow-remote)")
    if not loopback:
        print(f"chatterm: warning: serving on {args.host}, reachable from other machines", file=sys.stderr)
    recording = load_recording(args.path)
    server = ReplayServer(recording, speed=args.speed, instant=args.instant)

    async def serve() -> None:
        try:
            base_url = await server.start(args.host, args.port)
        except OSError as exc:
            raise UsageError(f"cannot listen on {args.host}:{args.port} ({exc.strerror or exc})") from None
        print(base_url, flush=True)
        print(f"serving {len(recording.interactions)} recorded turns; Ctrl+C stops", file=sys.stderr, flush=True)
        await server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return EXIT_OK
