"""`chatterm show`, `convert` and `serve`: recordings without the app."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import sys
from pathlib import Path

from chatterm.cassette.exchange import turn_count
from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import skipped, summarize
from chatterm.cassette.write import render
from chatterm.cli import output
from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.cli.listening import check_host
from chatterm.cli.show import counted, show_text
from chatterm.cli.targets import check_target
from chatterm.private_files import write_private


def run_show(args: argparse.Namespace) -> int:
    recording = load_recording(args.path)
    summary = summarize(recording)
    if args.json:
        sys.stdout.write(output.json_text(summary, sys.stdout) + "\n")
        return EXIT_OK
    text = show_text(args.path, summary, skipped(recording), every_branch=args.all)
    sys.stdout.write(output.shown(text, output.is_terminal(sys.stdout)))
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


def run_convert(args: argparse.Namespace) -> int:
    fmt = target_format(args.target, args.to)
    check_target(args.target, args.force, source=args.source)
    recording = load_recording(args.source)
    try:
        write_private(Path(args.target), render(recording, fmt), folders=False)
    except OSError as exc:
        raise UsageError(f"{args.target}: cannot be written ({exc.strerror or exc})") from None
    output.say(f"wrote {args.target} ({fmt}, {counted(turn_count(recording.interactions), 'turn')})", stderr=True)
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
        served = counted(turn_count(recording.interactions), "recorded turn")  # (the turns `show` counts)
        output.say(f"serving {served}; Ctrl+C stops", stderr=True, flush=True)
        await server.serve_forever()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return EXIT_OK
