"""Proxies named by the environment, for every request the chat client sends.

httpx honours `HTTP_PROXY`, `HTTPS_PROXY`, `ALL_PROXY` and `NO_PROXY` (in either case) only in the transport it
builds itself, and the chat client hands it chatterm's own (`chatterm.net.transport`). So the client's transport
is `ProxyRoutes` whenever the environment names a proxy: a request whose URL a proxy applies to goes through
httpx's stock transport for that proxy (HTTP forwarding, CONNECT tunnels and SOCKS as httpx does them), any
other through chatterm's transport. The variables are read as the standard library reads them (lower case before
upper case), `NO_PROXY` as a list of hosts and domains (a domain covers its subdomains; `*` covers every host),
once per client, as httpx reads them.
"""

from __future__ import annotations

from collections.abc import Mapping
from urllib.request import getproxies_environment

import httpx

from chatterm.net.transport import http_transport


def environment_proxies() -> dict[str, str]:
    """The proxies the environment names: a URL for each scheme (`http`, `https`, `all`) and the `no` list."""
    return {scheme: value for scheme, value in getproxies_environment().items() if value.strip()}


def proxy_for(url: httpx.URL, proxies: Mapping[str, str]) -> str | None:
    """The proxy URL a request to `url` goes through, or None when none applies or `NO_PROXY` covers its host."""
    proxy = proxies.get(url.scheme) or proxies.get("all")
    if not proxy:
        return None
    port = url.port or {"http": 80, "https": 443}.get(url.scheme)
    if bypassed(url.host, port, proxies.get("no", "")):
        return None
    return proxy.strip() if "://" in proxy else f"http://{proxy.strip()}"  # a bare host:port is an HTTP proxy


def bypassed(host: str, port: int | None, no_proxy: str) -> bool:
    """Whether a `NO_PROXY` list covers `host`: an entry that is `*`, the host, or a domain above it (`corp.com`,
    `.corp.com` and `*.corp.com` alike), with a port that is the URL's when the entry names one."""
    host = host.lower()
    for entry in no_proxy.lower().split(","):
        name, entry_port = _host_and_port(entry.strip())
        if name == "*":
            return True
        if not name or (entry_port and entry_port != str(port)):
            continue
        name = name.lstrip("*.")
        if host == name or host.endswith("." + name):
            return True
    return False


def _host_and_port(entry: str) -> tuple[str, str]:
    """A `NO_PROXY` entry as host and port (empty when it names none): `host`, `host:port`, `[v6]:port`, `v6`."""
    if entry.startswith("["):
        name, _, rest = entry[1:].partition("]")
        return name, rest.removeprefix(":")
    if entry.count(":") == 1:
        name, _, port = entry.partition(":")
        return name, port
    return entry, ""


def shown(proxy: str) -> str:
    """A proxy URL as an error may show it: scheme, host and port, never the credentials it may carry."""
    try:
        url = httpx.URL(proxy)
    except httpx.InvalidURL:
        return "(an unreadable URL)"
    return f"{url.scheme}://{url.netloc.decode('ascii', 'replace')}"


def client_transport() -> httpx.AsyncBaseTransport:
    """The transport a chat client sends with: chatterm's, behind `ProxyRoutes` when the environment names a
    proxy."""
    proxies = environment_proxies()
    direct = http_transport()
    return ProxyRoutes(direct, proxies) if proxies.keys() - {"no"} else direct


class ProxyRoutes(httpx.AsyncBaseTransport):
    """Sends each request through httpx's stock transport for the proxy that applies to its URL, or through
    `direct` when none does; a proxy's transport is made when first needed and kept, so its connections are
    reused."""

    def __init__(self, direct: httpx.AsyncBaseTransport, proxies: Mapping[str, str]) -> None:
        self._direct = direct
        self._proxies = dict(proxies)
        self._through: dict[str, httpx.AsyncHTTPTransport] = {}

    def proxy_for(self, url: httpx.URL | str) -> str | None:
        return proxy_for(httpx.URL(url), self._proxies)

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        proxy = self.proxy_for(request.url)
        transport = self._direct if proxy is None else self._proxied(proxy, request)
        return await transport.handle_async_request(request)

    def _proxied(self, proxy: str, request: httpx.Request) -> httpx.AsyncHTTPTransport:
        transport = self._through.get(proxy)
        if transport is None:
            try:
                transport = httpx.AsyncHTTPTransport(proxy=proxy)
            except (ImportError, ValueError, httpx.InvalidURL) as exc:  # a scheme httpx lacks, or SOCKS without socksio
                raise httpx.ProxyError(f"cannot use this proxy: {exc}", request=request) from exc
            self._through[proxy] = transport
        return transport

    async def aclose(self) -> None:
        for transport in [self._direct, *self._through.values()]:
            await transport.aclose()
