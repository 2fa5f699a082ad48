"""Model lists from `GET {base_url}/models`, cached for a day, in the shapes real providers return.

OpenAI and most others answer `{"data": [{"id": ...}]}`; Together a bare list; Gemini's OpenAI-compatible
endpoint ids with a `models/` prefix; Ollama's native API `{"models": [{"name": ...}]}`. When the call
fails, the profile's default model is the list. The request carries the key, so it follows redirects only within
the endpoint's origin (`chatterm.net.redirects`), and the ids are masked like every text from a provider.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import AsyncIterator, Iterable
from typing import Any

import httpx

from chatterm import locations
from chatterm.cassette.secrets import mask_text
from chatterm.decode.safejson import loads
from chatterm.net.endpoint import Endpoint
from chatterm.net.redirects import RedirectRefused, send_within_origin
from chatterm.private_files import write_private

CACHE_SECONDS = 24 * 3600


def model_ids(payload: Any) -> list[str]:
    """The model ids in a `/models` answer, whatever its shape, sorted and without duplicates."""
    items: Any = payload
    if isinstance(payload, dict):
        items = payload.get("data", payload.get("models", []))
    ids: set[str] = set()
    for item in items if isinstance(items, list) else []:
        if isinstance(item, str):
            name = item
        elif isinstance(item, dict):
            name = item.get("id") or item.get("name") or item.get("model") or ""
        else:
            continue
        if isinstance(name, str) and name:
            ids.add(name.removeprefix("models/"))
    return sorted(ids)


def _cache_path(profile: str) -> Any:
    safe = "".join(c if c.isalnum() or c in "-_" else "_" for c in profile)
    return locations.data_dir() / "cache" / f"models-{safe}.json"


async def list_models(profile: str, endpoint: Endpoint, use_cache: bool = True, timeout: float = 5.0) -> list[str]:
    """The models an endpoint offers; the endpoint's own model first when the list cannot be had."""
    cache = _cache_path(profile)
    if use_cache:
        try:
            cached = json.loads(cache.read_text())
            if time.time() - cached["at"] < CACHE_SECONDS and cached["base_url"] == endpoint.base_url:
                return list(cached["models"])
        except (OSError, ValueError, KeyError, TypeError):
            pass
    headers = endpoint.auth_headers()
    try:
        async with httpx.AsyncClient(timeout=timeout, follow_redirects=False) as client:
            request = client.build_request(
                "GET", endpoint.base_url.rstrip("/") + "/models", headers={**headers, **endpoint.headers}
            )
            response = await send_within_origin(client, request)
            try:
                await response.aread()
            finally:
                await response.aclose()
        response.raise_for_status()
        models = [mask_text(name, endpoint.secrets) for name in model_ids(loads(response.content))]
    except (httpx.HTTPError, ValueError, RedirectRefused):
        return [endpoint.model]
    if not models:
        return [endpoint.model]
    try:
        payload = {"at": time.time(), "base_url": endpoint.base_url, "models": models}
        write_private(cache, json.dumps(payload).encode())
    except OSError:
        pass
    return models


PROBE_TIMEOUT = 0.5
"""Seconds a local server has to answer `GET /models` to be offered."""


async def answering(base_urls: Iterable[str]) -> AsyncIterator[tuple[str, bool]]:
    """Whether something answers `GET /models` at each (local) base URL, as each answer comes: all are asked at once,
    through one client (making a client costs tens of milliseconds, which two hundred profiles made seconds), each
    within PROBE_TIMEOUT, and only the status is read."""
    urls = list(dict.fromkeys(base_urls))
    if not urls:
        return
    limits = httpx.Limits(max_connections=len(urls), max_keepalive_connections=0)
    async with httpx.AsyncClient(timeout=PROBE_TIMEOUT, limits=limits) as client:

        async def ask(url: str) -> tuple[str, bool]:
            try:
                async with client.stream("GET", url.rstrip("/") + "/models") as response:
                    return url, response.status_code < 500
            except httpx.HTTPError:
                return url, False

        tasks = [asyncio.ensure_future(ask(url)) for url in urls]
        try:
            for done in asyncio.as_completed(tasks):
                yield await done
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
