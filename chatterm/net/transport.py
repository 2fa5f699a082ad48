"""The HTTP transport chatterm talks to providers with: httpx's, with connections made by `AsyncioBackend`
(`chatterm.net.sockets`) where that is known to work.

httpx takes no network backend as an argument, so `http_transport()` sets one on httpx's connection pool, a
private attribute, and only when a feature check passes: the pool is httpcore's `AsyncConnectionPool` with that
attribute, under the httpcore series the backend implements (HTTPCORE_SERIES). Otherwise, or when the environment
sets `CHATTERM_STOCK_NETWORK=1`, connections are httpx's own. Requests through a proxy do not come here:
`chatterm.net.proxies` sends them through httpx's stock transport.
"""

from __future__ import annotations

import os
import re
from typing import TypeGuard

import httpcore
import httpx

from chatterm.net.sockets import AsyncioBackend

STOCK_SWITCH = "CHATTERM_STOCK_NETWORK"
"""Set to 1 to make every connection with httpx's stock transport (its own network backend)."""
HTTPCORE_SERIES = (1, 0)
"""The httpcore release series (major, minor) whose network interface `AsyncioBackend` implements and is tested
against; under any other httpcore, connections are httpx's own until this is checked again."""


def http_transport() -> httpx.AsyncHTTPTransport:
    """httpx's transport with httpx's defaults, its connections made by `AsyncioBackend` when the feature check
    passes and the stock network is not asked for (`STOCK_SWITCH`), by httpx's own backend otherwise."""
    transport = httpx.AsyncHTTPTransport()
    pool = getattr(transport, "_pool", None)  # httpx does not take a network backend as an argument
    if not stock_network_asked() and _takes_our_backend(pool):
        pool._network_backend = AsyncioBackend()
    return transport


def stock_network_asked() -> bool:
    """Whether the environment asks for httpx's stock transport (`STOCK_SWITCH` set, and not to 0 or false)."""
    return os.environ.get(STOCK_SWITCH, "").strip().lower() not in ("", "0", "false", "no", "off")


def _takes_our_backend(pool: object) -> TypeGuard[httpcore.AsyncConnectionPool]:
    """Whether `pool` is the httpcore pool `AsyncioBackend` was written for, with the attribute that holds its
    backend, in the httpcore series it was written against."""
    return (
        type(pool) is httpcore.AsyncConnectionPool
        and hasattr(pool, "_network_backend")
        and httpcore_series(httpcore.__version__) == HTTPCORE_SERIES
    )


def httpcore_series(version: str) -> tuple[int, int] | None:
    """The (major, minor) of a version string such as "1.0.9", or None when it does not start so."""
    found = re.match(r"(\d+)\.(\d+)", version)
    return (int(found[1]), int(found[2])) if found else None
