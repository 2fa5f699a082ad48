"""`chatterm profiles ...` and `chatterm key ...`: provider profiles and their API keys."""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import getpass
import json
import os
import sys
from typing import Any

from pydantic import ValidationError

from chatterm.cli import output
from chatterm.cli.errors import EXIT_OK, UsageError
from chatterm.net.endpoint import is_credential
from chatterm.net.header_text import cannot_carry, without_paste
from chatterm.settings.choice import DEMO, DEMO_MODEL, default_problem, default_profile, endpoint_for
from chatterm.settings.config import Settings, load_settings
from chatterm.settings.config_edit import remove_profile, save_profile, set_default
from chatterm.settings.errors import KeyInSettings, located, problem
from chatterm.settings.keys import (
    KeyringFailed,
    KeyringUnavailable,
    delete_key,
    env_hint,
    find_key,
    mask,
    no_keyring_hint,
    require_keyring,
    set_key,
    stored_key,
)
from chatterm.settings.presets import PRESETS
from chatterm.settings.profile import ProfileSettings, check_profile_name


def _pairs(values: list[str] | None, what: str) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for item in values or []:
        key, sep, raw = item.partition("=")
        if not sep or not key:
            raise UsageError(f"{what} {item!r}: expected KEY=VALUE")
        try:
            result[key] = json.loads(raw) if what == "--param" else raw
        except ValueError:
            result[key] = raw
    return result


def _key_status(name: str, profile: ProfileSettings) -> str:
    if profile.local:
        return "local, no key"
    found = find_key(name, profile.api_key_env)
    if found is None:
        return f"no key ({profile.api_key_env or 'no variable set'})"
    return f"{found.source} {mask(found.value)}"


def _profile(settings: Settings, name: str) -> ProfileSettings:
    profile = settings.profiles.get(name)
    if profile is None:
        known = ", ".join(sorted([*settings.profiles, DEMO]))
        raise UsageError(f"no profile named {name!r} (known: {known})")
    return profile


_OPTIONS = {"params": "--param", "headers": "--header"}


def _option(field: str) -> str:
    """The `profiles add` option that sets a profile's field."""
    return _OPTIONS.get(field, "--" + field.replace("_", "-"))


def _new_profile(args: argparse.Namespace) -> ProfileSettings:
    """The profile `profiles add` describes, checked as a loaded one is: one line naming the option at fault."""
    try:
        check_profile_name(args.name)
        return ProfileSettings(
            base_url=args.base_url,
            model=args.model,
            api_key_env=args.api_key_env,
            params=_pairs(args.param, "--param"),
            headers=_pairs(args.header, "--header"),
            think_tags=not args.no_think_tags,
            send_reasoning=args.send_reasoning,
            read_timeout=args.read_timeout or 300.0,
            local=args.local,
            allow_link_local=args.allow_link_local,
            api=args.api or "openai",
            server=args.server,
            effort=args.effort,
        )
    except ValidationError as exc:
        error = exc.errors()[0]
        cause = error.get("ctx", {}).get("error")
        if isinstance(cause, KeyInSettings):  # a header or parameter by its name; the base URL
            named = f"{_option(str(error['loc'][-1]))} {cause.key}".rstrip()
            raise UsageError(f"{named}: {cause.words(args.name)}") from None
        key = str(located(error)[-1]) if located(error) else ""
        raise UsageError(f"{_option(key)}: {problem(error)}") from None
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def run_profiles(args: argparse.Namespace) -> int:
    settings = load_settings()
    action = args.action or "list"
    if action == "list":
        wrong = default_problem(settings)
        if wrong is not None:
            output.warning(wrong)
        current = default_profile(settings)
        rows = [(DEMO, "recorded answers (offline)", "none needed")]
        rows += [(name, p.model, _key_status(name, p)) for name, p in sorted(settings.profiles.items())]
        name_width, model_width = max(len(row[0]) for row in rows), max(len(row[1]) for row in rows)
        output.say(f"{'':2}{'name':<{name_width}}  {'model':<{model_width}}  key")
        for name, model, key in rows:
            output.say(f"{'*' if name == current else ' ':2}{name:<{name_width}}  {model:<{model_width}}  {key}")
        return EXIT_OK
    if action == "show" and args.name == DEMO:
        output.say(f"profile {DEMO} (built in): answers replayed from recordings shipped with chatterm, offline")
        output.say(f"  model: {DEMO_MODEL}")
        output.say("  key: none needed")
        if args.models:
            output.say(f"  models: {DEMO_MODEL}")
        return EXIT_OK
    if action == "show":
        profile = _profile(settings, args.name)
        fields = profile.model_dump()
        fields["headers"] = {k: mask(v) if is_credential(k) else v for k, v in profile.headers.items()}
        output.say(f"profile {args.name}" + (" (built-in preset)" if args.name in PRESETS else ""))
        for key, value in fields.items():
            output.say(f"  {key}: {json.dumps(value) if isinstance(value, (dict, list)) else value}")
        output.say(f"  key: {_key_status(args.name, profile)}")
        if args.models:
            from chatterm.net.models import list_models

            found = find_key(args.name, profile.api_key_env)
            endpoint = endpoint_for(profile, None, found.value if found else None)
            models = asyncio.run(list_models(args.name, endpoint, use_cache=False))
            output.say("  models: " + ", ".join(models))
        return EXIT_OK
    if action == "add":
        if args.name == DEMO:
            raise UsageError("'demo' is built in and cannot be redefined")
        profile = _new_profile(args)
        path = save_profile(args.name, profile)
        output.say(f"saved profile {args.name} in {path}", stderr=True)
        if profile.api_key_env is None and not profile.local:
            output.say(f"if it takes a key, store it with: chatterm key set {args.name}", stderr=True)
        return EXIT_OK
    if action == "remove":
        if args.name == DEMO:
            raise UsageError("'demo' is built in and cannot be removed")
        if not remove_profile(args.name):
            where = "is a built-in preset" if args.name in PRESETS else "is not in the config file"
            raise UsageError(f"profile {args.name!r} {where}; nothing removed")
        output.say(f"removed profile {args.name}", stderr=True)
        return EXIT_OK
    if action == "default":
        if args.name != DEMO:
            _profile(settings, args.name)
        path = set_default(args.name)
        output.say(f"default profile: {args.name} ({path})", stderr=True)
        return EXIT_OK
    raise UsageError(f"unknown profiles action {action!r}")


def run_key(args: argparse.Namespace) -> int:
    if args.profile == DEMO:
        return _demo_key(args.action)
    settings = load_settings()
    profile = _profile(settings, args.profile)
    try:
        if args.action == "status":
            if not profile.local and not (profile.api_key_env and os.environ.get(profile.api_key_env)):
                with contextlib.suppress(KeyringUnavailable):
                    stored_key(args.profile)  # a failing keyring is said, not shown as a missing key
            output.say(f"{args.profile}: {_key_status(args.profile, profile)}")
            return EXIT_OK
        if args.action == "delete":
            deleted = delete_key(args.profile)
            output.say(f"{args.profile}: {'key deleted from the keyring' if deleted else 'no key in the keyring'}")
            return EXIT_OK
        require_keyring(args.profile)  # before asking for a key it could not keep
        value = _read_secret(args.profile)
        set_key(args.profile, value)
        output.say(f"{args.profile}: key stored in the system keyring ({mask(value)})")
        return EXIT_OK
    except KeyringUnavailable:
        raise UsageError(no_keyring_hint(profile.api_key_env)) from None
    except KeyringFailed as exc:
        raise UsageError(f"the system keyring failed ({exc}); {env_hint(profile.api_key_env)}") from None


def _demo_key(action: str) -> int:
    """`key ACTION demo`: the demo is a profile like any other, one that needs no key."""
    if action == "status":
        output.say(f"{DEMO}: no key needed (the offline demo answers from recordings)")
        return EXIT_OK
    nothing = "nothing stored" if action == "set" else "nothing deleted"
    raise UsageError(f"the offline demo needs no key; {nothing} (a provider's profile takes one: chatterm profiles)")


def _read_secret(profile: str) -> str:
    """The key from a hidden prompt, or from stdin when it is piped; never from the command line."""
    if sys.stdin is not None and not sys.stdin.isatty():
        value = without_paste(sys.stdin.readline())
    else:
        value = without_paste(getpass.getpass(output.line(f"API key for {profile} (input hidden): ")))
    if not value:
        raise UsageError("no key given; nothing stored")
    problem = cannot_carry(value)
    if problem is not None:
        raise UsageError(f"the key given {problem}; nothing stored (paste the key as the provider gave it)")
    return value
