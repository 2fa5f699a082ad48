"""The chat app entry points (Textual is imported only here and below)."""

from __future__ import annotations

import argparse

from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.cli.parser import endpoint_options_given
from chatterm.settings.choice import DEMO, Choice, ResolveError, choose
from chatterm.settings.config import Settings, load_settings
from chatterm.settings.roles import RoleError, RoleSettings, find_role


def role_of(args: argparse.Namespace, settings: Settings) -> RoleSettings | None:
    """The role `--role` names (None without it); one line (exit 2) naming the roles there are when it names none."""
    if not getattr(args, "role", None):
        return None
    try:
        return find_role(settings.roles, args.role)
    except RoleError as exc:
        raise UsageError(str(exc)) from None


def chosen(args: argparse.Namespace, settings: Settings) -> Choice:
    """The profile and endpoint the command line asks for (a role's profile and model unless it names its own); one
    line (exit 2) when it cannot be used."""
    role = role_of(args, settings)
    profile, model = args.profile, args.model
    if role is not None and not args.base_url and not profile:
        profile = role.profile
    if role is not None and not model and (role.profile is None or role.profile == profile):
        model = role.model  # (a role's model is its profile's, or, with no profile, any one's)
    try:
        return choose(
            settings,
            profile,
            model,
            args.base_url,
            args.api_key_env,
            args.read_timeout,
            allow_link_local=args.allow_link_local,
            api=args.api,
        )
    except ResolveError as exc:
        raise UsageError(str(exc)) from None


def run_app(args: argparse.Namespace) -> int:
    settings = load_settings()
    choice = chosen(args, settings)
    from chatterm.ui.app import ChatApp

    app = ChatApp(settings, choice, role=args.role if role_of(args, settings) is not None else None)
    app.run()
    return app.return_code or EXIT_OK


def run_replay(args: argparse.Namespace) -> int:
    from pathlib import Path

    from chatterm.cassette.load import load_tail
    from chatterm.ui.screens.chat import OPENED_TURNS

    path = Path(args.path)
    load_tail(path, OPENED_TURNS)  # a bad file stops here: exit 2, one line (and the app opens what this parsed)
    settings = load_settings()
    if endpoint_options_given(args):  # the conversation goes on live with the profile asked for
        choice = chosen(args, settings)
    else:
        try:
            choice = choose(settings)
        except ResolveError:
            choice = choose(settings, DEMO)
    speed = "instant" if args.instant else f"{args.speed:g}x"
    from chatterm.ui.app import SPEEDS, ChatApp

    if speed not in SPEEDS:
        SPEEDS[speed] = (args.speed, False)
    app = ChatApp(settings, choice, replay=path, speed=speed)
    app.run()
    return app.return_code or EXIT_OK
