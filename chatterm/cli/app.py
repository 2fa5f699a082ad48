"""The chat app entry points (Textual is imported only here and below)."""

from __future__ import annotations

import argparse

from chatterm.cli.main import UsageError


def run_app(args: argparse.Namespace) -> int:
    raise UsageError("the chat app is not built yet; use 'chatterm ask' (see 'chatterm --help')")


def run_replay(args: argparse.Namespace) -> int:
    raise UsageError("the chat app is not built yet; 'chatterm show PATH' prints a recording")
