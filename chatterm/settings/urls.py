"""What a profile's base URL may be: an http(s) URL with a host, checked when a profile is loaded or added rather
than when its first request fails, and never a link-local address unless the profile says so.

Link-local addresses (169.254.0.0/16, fe80::/10, and AWS's fd00:ec2::254) are where cloud metadata services answer
with the machine's credentials: a base URL pointing there, by mistake or by a config someone else wrote, would send
prompts (and headers) to it. A host is compared as the system's resolver reads it, so `2852039166` or `0xa9fea9fe`
(both 169.254.169.254) are caught too; no name is looked up.
"""

from __future__ import annotations

import ipaddress
import re
import socket
from urllib.parse import urlsplit

METADATA_V6 = ipaddress.IPv6Address("fd00:ec2::254")
NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
_LEGACY_IPV4 = re.compile(r"[0-9a-fx.]+")
"""The characters of an IPv4 address in the forms `inet_aton` accepts (`2852039166`, `0xa9.0xfe.43518`)."""
_UNSAFE = re.compile(r"[\x00-\x20\x7f]")
_HOST_PORT = re.compile(r"(?:\[[0-9A-Fa-f:.]+(?:%25[^\]]+)?\]|(?P<name>[^:\[\]]+))(?::[0-9]*)?")
"""The host (a name, an IPv4 address, or an IPv6 one in brackets) and the port of a URL, once any user is cut."""


class BaseUrlError(ValueError):
    """A base URL chatterm cannot send to; the message names it."""


class LinkLocalError(BaseUrlError):
    """A link-local base URL in a profile that has not opted in. The profile refuses it, as the profile holds the
    opt-in, but `key` is where the user is to look."""

    key = "base_url"


def shown(url: str) -> str:
    """The URL as an error message names it: any user name and password in it replaced."""
    return re.sub(r"(?<=//)[^/@]*@", "…@", url, count=1)


def check_base_url(url: str) -> str:
    """The URL if chatterm can send to it; otherwise a BaseUrlError saying why, naming the URL."""
    if _UNSAFE.search(url):
        raise BaseUrlError(f"{shown(url)!r} holds spaces or control characters")
    try:
        parts = urlsplit(url)
        host, _port = parts.hostname, parts.port
    except ValueError as exc:
        raise BaseUrlError(f"'{shown(url)}' is not a valid URL ({exc})") from None
    if parts.scheme.lower() not in ("http", "https"):
        raise BaseUrlError(f"'{shown(url)}' is not an http or https URL")
    if not host:
        raise BaseUrlError(f"'{shown(url)}' has no host")
    where = _HOST_PORT.fullmatch(parts.netloc.rpartition("@")[2])
    name = where.group("name") if where else None
    if where is None or (name is not None and not all(_label(label) for label in name.rstrip(".").split("."))):
        raise BaseUrlError(f"'{shown(url)}' is not a valid URL (the host or port cannot be read)")
    return url


def _label(label: str) -> bool:
    """A host name's label as it goes on the wire: ASCII letters, digits, `-` and `_` (an international name is
    written in its `xn--` form, which every HTTP client reads alike)."""
    return bool(label) and label.isascii() and all(c.isalnum() or c in "-_" for c in label)


def check_link_local(url: str, allowed: bool) -> None:
    if not allowed and is_link_local(url):
        raise LinkLocalError(
            f"'{shown(url)}' is a link-local address, where cloud metadata services answer; set allow_link_local = "
            "true in the profile (or pass --allow-link-local) to use it"
        )


def is_link_local(url: str) -> bool:
    """Whether the URL's host is a link-local address (in any spelling the resolver accepts)."""
    host = (urlsplit(url).hostname or "").split("%")[0].rstrip(".")
    address = _address(host)
    if isinstance(address, ipaddress.IPv6Address):
        if address == METADATA_V6:
            return True
        if address.ipv4_mapped:
            address = address.ipv4_mapped
        elif address in NAT64:
            address = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
    return address is not None and address.is_link_local


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        pass
    if not _LEGACY_IPV4.fullmatch(host):
        return None
    try:
        return ipaddress.IPv4Address(socket.inet_aton(host))
    except OSError:
        return None


def url_host(host: str) -> str:
    """`host` as it is written in a URL (an IPv6 address in brackets)."""
    return f"[{host}]" if ":" in host else host
