"""`chatterm ask`: one answer streamed to stdout as it arrives, reasoning to stderr, no UI."""

from __future__ import annotations

import argparse
import asyncio
import sys
from pathlib import Path
from typing import Any, TextIO

from chatterm.cassette.store import SessionSaver
from chatterm.cli import output
from chatterm.cli.app import chosen, role_of
from chatterm.cli.errors import EXIT_OK, EXIT_PROVIDER, UsageError
from chatterm.cli.targets import check_target
from chatterm.conversation.reply import Reply
from chatterm.events import Content, Reasoning, StreamError, StreamWarning, ToolCallDelta
from chatterm.net.client import ChatClient
from chatterm.net.recorder import Recorder
from chatterm.settings.choice import Choice
from chatterm.settings.config import load_settings

DIM, RESET = "\x1b[2m", "\x1b[0m"


def read_prompt(prompt: str | None) -> str:
    if prompt not in (None, "-"):
        return str(prompt)
    if sys.stdin is None or sys.stdin.isatty():
        raise UsageError("no prompt: give one as an argument, or pipe it on stdin")
    text = sys.stdin.read()
    if not text.strip():
        raise UsageError("the prompt read from stdin is empty")
    return text


class _Printer:
    """Writes text as it arrives: neutralised on a terminal, exact when piped."""

    def __init__(self, stream: TextIO, dim: bool = False) -> None:
        self.stream = stream
        self.tty = output.is_terminal(stream)
        self.dim = dim and self.tty
        self.last = "\n"
        self.wrote = False

    def write(self, text: str) -> None:
        if not text:
            return
        shown = output.shown(text, self.tty)
        self.stream.write(f"{DIM}{shown}{RESET}" if self.dim else shown)
        self.stream.flush()
        self.last = text[-1]
        self.wrote = True

    def end_line(self) -> None:
        if self.wrote and self.last != "\n":
            self.stream.write("\n")
            self.stream.flush()
            self.last = "\n"


class _RecordSaver(SessionSaver):
    """Writes `--record`'s file as the answer streams: each save renders only what arrived since the last one (a
    flood of small events is not rendered again every second), on a thread of its own; a failure is one warning,
    printed when the answer is done (not in the middle of its lines)."""

    def __init__(self, path: Path, secrets: tuple[str, ...]) -> None:
        self.warnings: list[str] = []
        super().__init__(path, secrets, self.warnings.append, own_file=False, failure="cannot write {path} ({reason})")

    def take(self, recorder: Recorder) -> None:
        """The recorder's `on_update`: save what it holds, masked with every key it knows by now."""
        self.secrets = recorder.secrets
        self.save(recorder.recording)


def run_ask(args: argparse.Namespace) -> int:
    settings = load_settings()
    choice = chosen(args, settings)  # (before the prompt is read: a bad option is said at once)
    role = role_of(args, settings)
    if args.record:  # (before anything is asked: a path that cannot be written, or holds an earlier recording)
        check_target(args.record, args.force)
    system = args.system or (role.system if role is not None else None)
    meta: dict[str, Any] = {"profile": choice.profile, "model": choice.endpoint.model}
    if role is not None:
        params = role.params()
        choice.endpoint.sampling = params.sampling()
        if params.effort is not None:
            choice.endpoint.effort = params.effort
        meta.update({"params": params.as_dict()} if params.as_dict() else {})
    meta.update({"system": system} if system else {})
    prompt = read_prompt(args.prompt)
    messages = [{"role": "system", "content": system}] if system else []
    messages.append({"role": "user", "content": prompt})
    record = Path(args.record) if args.record else None
    saver = _RecordSaver(record, choice.endpoint.secrets) if record else None
    recorder = Recorder(on_update=saver.take, secrets=saver.secrets) if saver else None
    try:
        reply = asyncio.run(_ask(choice, messages, recorder, show_reasoning=not args.no_reasoning))
        if recorder is not None and recorder.interactions:
            recorder.interactions[-1].meta.update(meta)
            recorder.updated()
    finally:
        if saver is not None:
            saver.close()
            for warning in saver.warnings:
                output.warning(warning)
    if reply.error is not None:
        output.error(reply.error.message)
        return EXIT_PROVIDER
    if reply.finish_notice is not None:  # the provider answered, but not with all it would have said
        print(f"chatterm: note: {reply.finish_notice}", file=sys.stderr)
    return EXIT_OK


async def _ask(
    choice: Choice, messages: list[dict[str, Any]], recorder: Recorder | None, show_reasoning: bool
) -> Reply:
    server = None
    if choice.is_demo:
        from chatterm.cassette.demo import demo_server

        server = demo_server()
        choice.endpoint.base_url = await server.start()
    out, err = _Printer(sys.stdout), _Printer(sys.stderr, dim=True)
    reply = Reply()
    try:
        async with ChatClient(choice.endpoint, recorder=recorder) as client:
            async for event in client.stream(messages):
                reply.add(event)
                if isinstance(event, Content):
                    err.end_line()
                    out.write(event.text)
                elif isinstance(event, Reasoning) and show_reasoning:
                    err.write(event.text)
                elif isinstance(event, ToolCallDelta) and event.name:
                    err.end_line()
                    err.write(f"[tool call {event.name}]\n")
                elif isinstance(event, StreamWarning):
                    err.end_line()
                    output.warning(event.message)
                elif isinstance(event, StreamError):
                    pass
    finally:
        if server is not None:
            await server.stop()
        err.end_line()
        if out.tty:
            out.end_line()
    return reply
