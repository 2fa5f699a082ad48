"""Where a command that serves may listen: a loopback address, unless the user says otherwise in so many words.

`serve` and `web` both listen; what either serves (a recording, the app with the user's API keys) is for the user,
so another machine reaches it only when the command line asks for it (`--allow-remote`), and then with a warning
that each command words for what it exposes.
"""

from __future__ import annotations

import ipaddress

from chatterm.cli.errors import UsageError


def is_loopback(host: str) -> bool:
    """Whether `host` is reachable only from this machine: `localhost` or a loopback address (no name lookup)."""
    try:
        return host == "localhost" or ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_host(host: str, allow_remote: bool) -> bool:
    """Whether listening on `host` exposes it to other machines; refused in one line unless `allow_remote`."""
    if is_loopback(host):
        return False
    if not allow_remote:
        raise UsageError(f"refusing to listen on {host}: it is not a loopback address (add --allow-remote)")
    return True


