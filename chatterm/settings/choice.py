"""From what the user asked for (a profile, a model, an ad-hoc URL) to an endpoint chatterm can stream from."""

from __future__ import annotations

import dataclasses
import functools
import os
from dataclasses import dataclass

from pydantic import ValidationError

from chatterm.cassette import demo_catalogue
from chatterm.net.endpoint import Endpoint
from chatterm.settings.config import Settings
from chatterm.settings.errors import KeyInUrl, problem
from chatterm.settings.keys import FoundKey, env_key, find_key, key_problem, keyring_keys
from chatterm.settings.profile import ProfileSettings

DEMO = "demo"
DEMO_MODEL = demo_catalogue.MODEL
"""The model the demo profile names before any answer: the one its answers name."""
AD_HOC = "ad-hoc"
"""The name of an endpoint given on the command line (`--base-url`), in place of a profile's."""


class ResolveError(Exception):
    """The profile cannot be used as asked; one line saying what to do."""


@dataclass
class Choice:
    """What a run answers from: the profile's name, its endpoint, and where the key came from (`env:NAME` or
    `keyring`, shown to the user in place of the key)."""

    profile: str
    endpoint: Endpoint
    key_source: str | None = None

    @property
    def is_demo(self) -> bool:
        return self.profile == DEMO


def default_profile(settings: Settings) -> str:
    """The configured default, else the first preset whose key is in the environment, else `demo`."""
    if settings.default_profile:
        return settings.default_profile
    for name, profile in settings.profiles.items():
        if env_key(profile.api_key_env) is not None:
            return name
    return DEMO


def default_problem(settings: Settings) -> str | None:
    """What is wrong with the configured default profile, in one line: None when it names a profile, or none is set.
    Commands that need the profile stop on it; `profiles list` warns of it, and lists the profiles to choose from."""
    name = settings.default_profile
    if not name or name == DEMO or name in settings.profiles:
        return None
    return f"default_profile {name!r} names no profile: set one with 'chatterm profiles default NAME'"


def _known(settings: Settings) -> str:
    return "known: " + ", ".join(sorted([*settings.profiles, DEMO]))


def endpoint_for(profile: ProfileSettings, model: str | None, key: str | None) -> Endpoint:
    """The endpoint a profile describes, asking for `model` when one is given; the key travels only here, never
    back into the settings."""
    return Endpoint(
        base_url=profile.base_url,
        model=model or profile.model,
        api_key=key,
        headers=dict(profile.headers),
        params=dict(profile.params),
        think_tags=profile.think_tags,
        connect_timeout=profile.connect_timeout,
        read_timeout=profile.read_timeout,
        stream_usage=profile.stream_usage,
        api=profile.api,
        server=profile.server,
        effort=profile.effort,
        reasoning_effort=profile.reasoning_effort,
    )


def choose(
    settings: Settings,
    profile: str | None = None,
    model: str | None = None,
    base_url: str | None = None,
    api_key_env: str | None = None,
    read_timeout: float | None = None,
    allow_link_local: bool = False,
    api: str | None = None,
) -> Choice:
    """The profile and endpoint the user's options ask for; a demo choice has no base URL until its server
    starts. An ad-hoc base URL is checked as a profile's is (`allow_link_local` is its opt-in); `api` is the API an
    ad-hoc URL speaks, or another API for a profile's endpoint."""
    if base_url:
        if api not in (None, "openai") and not model:
            raise ResolveError(f"--api {api} asks for a model by name: add --model NAME")
        given = env_key(api_key_env)
        if api_key_env and given is None:
            empty = os.environ.get(api_key_env) is not None
            raise ResolveError(f"--api-key-env {api_key_env}: the variable is {'empty' if empty else 'not set'}")
        key = _usable(given, AD_HOC)
        try:
            ad_hoc = ProfileSettings(
                base_url=base_url,
                model=model or "default",
                api_key_env=api_key_env,
                allow_link_local=allow_link_local,
                api=api or "openai",
            )
        except ValidationError as exc:
            cause = exc.errors()[0].get("ctx", {}).get("error")
            if isinstance(cause, KeyInUrl):
                raise ResolveError(
                    f"--base-url carries an API key ({cause.part}): give the URL without it, and the key with "
                    "--api-key-env VAR (the variable that holds it)"
                ) from None
            raise ResolveError(f"--base-url: {problem(exc.errors()[0])}") from None
        choice = Choice(AD_HOC, endpoint_for(ad_hoc, model, key), f"env:{api_key_env}" if key else None)
    else:
        wrong = None if profile else default_problem(settings)
        if wrong is not None:
            raise ResolveError(wrong)
        name = profile or default_profile(settings)
        if name == DEMO:
            choice = Choice(DEMO, Endpoint(base_url="", model=model or DEMO_MODEL))
        else:
            chosen = settings.profiles.get(name)
            if chosen is None:
                raise ResolveError(f"no profile named {name!r} ({_known(settings)})")
            found = find_key(name, chosen.api_key_env)
            if lacks_its_key(chosen, found):
                raise ResolveError(
                    f"no API key for {name}: export {chosen.api_key_env}=... or run 'chatterm key set {name}'"
                )
            key = _usable(found, name)
            choice = Choice(name, endpoint_for(chosen, model, key), found.source if found else None)
            if found is not None and found.source.startswith("env:"):  # the keyring was not asked: ask it later
                choice.endpoint.find_held_keys = functools.partial(keyring_keys, name)
    if read_timeout:
        choice.endpoint.read_timeout = read_timeout
    if api:
        choice.endpoint.api = api
    return choice


def lacks_its_key(profile: ProfileSettings, found: FoundKey | None) -> bool:
    """The profile names the variable of its key and no key was found: it cannot start. (A local one, or one that
    names no variable, starts with no key.)"""
    return found is None and bool(profile.api_key_env) and not profile.local


def _usable(found: FoundKey | None, profile: str) -> str | None:
    """The key found, once it is known to fit in a header: one that cannot is refused before any request."""
    if found is None:
        return None
    problem = key_problem(found, profile)
    if problem is not None:
        raise ResolveError(problem)
    return found.value


def chosen_again(first: Choice, model: str | None = None) -> Choice:
    """A choice made at start-up (an ad-hoc endpoint, which no profile holds), to switch back to: its endpoint as it
    was given, asking for `model` when one is given."""
    endpoint = dataclasses.replace(
        first.endpoint,
        model=model or first.endpoint.model,
        headers=dict(first.endpoint.headers),
        params=dict(first.endpoint.params),
    )
    return Choice(first.profile, endpoint, first.key_source)
