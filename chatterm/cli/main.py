"""The `chatterm` command line. Each command imports what it needs only when it runs, so `--version` and
`--help` stay fast (Textual is imported only by the app)."""

from __future__ import annotations

import argparse
import gc
from collections.abc import Sequence

from chatterm.cli import output
from chatterm.cli.errors import EXIT_OK, EXIT_USAGE, UsageError
from chatterm.cli.parser import build_parser, endpoint_options


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return _dispatch(args)
    except UsageError as exc:
        output.error(str(exc))
        return EXIT_USAGE
    except KeyboardInterrupt:
        output.say(stderr=True)
        return 130
    except BrokenPipeError:
        return EXIT_OK


def _dispatch(args: argparse.Namespace) -> int:
    endpoint_options(args)
    if args.command in (None, "replay"):
        # Start-up builds a lot and frees little, so the collections it triggers find nothing to free and only delay
        # the first frame. The app turns collection back on, tuned, once it is up (chatterm.ui.memory).
        gc.disable()
    from chatterm.cassette.model import RecordingError
    from chatterm.settings.errors import ConfigError

    try:
        if args.command == "ask":
            from chatterm.cli.ask import run_ask

            return run_ask(args)
        if args.command in ("show", "convert", "serve"):
            from chatterm.cli import recordings

            return int(getattr(recordings, f"run_{args.command}")(args))
        if args.command in ("profiles", "key"):
            from chatterm.cli import profiles

            return profiles.run_profiles(args) if args.command == "profiles" else profiles.run_key(args)
        if args.command == "web":
            from chatterm.cli.web import run_web

            return run_web(args)
        if args.command == "replay":
            from chatterm.cli.app import run_replay

            return run_replay(args)
        from chatterm.cli.app import run_app

        return run_app(args)
    except (RecordingError, ConfigError) as exc:
        raise UsageError(str(exc)) from None
