"""vcrpy cassettes (format 1, YAML or JSON), read: `body.string` as text or `!!binary`, gzip/deflate-encoded
bodies, the `parsed_body` variant (pydantic-ai's serializer), and the old httpx layout (`status_code`/`content`).

chatterm keeps what vcrpy does not know under `x_chatterm` (EXTRA) in each response, and a session's branch
switches under a top-level `x_chatterm` beside `interactions`; vcrpy ignores both.
"""

from __future__ import annotations

import json
from typing import Any

from chatterm.cassette.coding import Inflater
from chatterm.cassette.dataio import MAX_DECODED, seconds
from chatterm.cassette.model import (
    Headers,
    Interaction,
    Recording,
    RecordingError,
    Request,
    Response,
    Switch,
    header,
    mapping,
    without_headers,
)

EXTRA = "x_chatterm"


def is_vcr(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        return False
    first = next((i for i in data["interactions"] if isinstance(i, dict)), None)
    request = first.get("request") if first else None
    return isinstance(request, dict) and "uri" in request


class BodyTooLarge(Exception):
    """An encoded body decodes to more than the recording's budget allows; the message says which encoding."""


class DecodeBudget:
    """The bytes a recording's gzip and deflate bodies may still decode to, all together: one bomb or many small
    ones are refused alike."""

    def __init__(self, left: int = MAX_DECODED) -> None:
        self.left = left


def read_vcr(data: dict[str, Any], name: str) -> Recording:
    interactions = []
    budget = DecodeBudget()
    for number, item in enumerate(data["interactions"], start=1):
        if not isinstance(item, dict) or not isinstance(item.get("response"), dict):
            raise RecordingError(f"{name}: interaction {number} has no response")
        request = mapping(item.get("request"))
        response = mapping(item["response"])
        if "status" not in response and "status_code" not in response:
            raise RecordingError(f"{name}: interaction {number} has no response status (is the file truncated?)")
        try:
            interactions.append(_interaction(request, response, budget))
        except BodyTooLarge as exc:
            raise RecordingError(f"{name}: interaction {number}: {exc}") from None
    return Recording(format="vcr", interactions=interactions, switches=switches_from(data.get(EXTRA)))


def switches_from(value: Any) -> list[Switch]:
    """The branch switches under a cassette's top-level notes (`[to, after]` pairs); what is not one is left out."""
    records = mapping(value).get("switches")
    switches = []
    for record in records if isinstance(records, list) else []:
        if isinstance(record, list) and len(record) == 2:
            to, after = record
            if isinstance(to, (str, int)) and not isinstance(to, bool) and isinstance(after, int) and after >= 0:
                switches.append(Switch(str(to), after))
    return switches


def _interaction(request: dict[str, Any], response: dict[str, Any], budget: DecodeBudget) -> Interaction:
    extra = mapping(response.get(EXTRA))
    if "status_code" in response:  # vcrpy's old httpx layout
        status, reason = response.get("status_code"), ""
        raw_body: Any = response.get("content")
    else:
        status_field = response.get("status")
        status = status_field.get("code") if isinstance(status_field, dict) else status_field
        reason = str(status_field.get("message") or "") if isinstance(status_field, dict) else ""
        raw_body = _body(response)
    headers = headers_from(response.get("headers"))
    body = body_bytes(raw_body)
    body, headers = decoded(body, headers, budget)
    return Interaction(
        request=Request(
            method=str(request.get("method") or "POST"),
            url=str(request.get("uri") or ""),
            headers=headers_from(request.get("headers")),
            body=body_bytes(_body(request)),
        ),
        response=Response(
            status=status if isinstance(status, int) else None,
            headers=headers,
            body=body,
            reason=reason,
            offsets=offsets_from(extra.get("offsets")),
            error=extra.get("error") if isinstance(extra.get("error"), dict) else None,
        ),
        meta={k: v for k, v in extra.items() if k not in ("offsets", "error")},
    )


def _body(part: dict[str, Any]) -> Any:
    if "parsed_body" in part:
        return json.dumps(part["parsed_body"], ensure_ascii=False)
    body = part.get("body")
    if isinstance(body, dict):
        return body.get("string")
    return body


def body_bytes(value: Any) -> bytes:
    if value is None:
        return b""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode("utf-8", "surrogateescape")
    return json.dumps(value, ensure_ascii=False).encode()


def headers_from(value: Any) -> Headers:
    if not isinstance(value, dict):
        return {}
    headers: Headers = {}
    for key, values in value.items():
        items = values if isinstance(values, list) else [values]
        headers[str(key)] = [str(v) for v in items if v is not None]
    return headers


def offsets_from(value: Any) -> list[tuple[float, int]] | None:
    if not isinstance(value, list):
        return None
    pairs = []
    for pair in value:
        if isinstance(pair, (list, tuple)) and len(pair) == 2:
            at, end = pair
            when = seconds(at)
            if when is not None and isinstance(end, int) and end >= 0:
                pairs.append((when, end))
    return pairs or None


def decoded(body: bytes, headers: Headers, budget: DecodeBudget) -> tuple[bytes, Headers]:
    """Undo a gzip or deflate Content-Encoding, so the body is what the client read (a body cut short inflates as
    far as it goes). Raises BodyTooLarge past the budget, which is charged with what is decoded."""
    encoding = (header(headers, "content-encoding") or "").strip().lower()
    sniffed = body[:2] == b"\x1f\x8b" and encoding != "gzip"
    if sniffed:
        encoding = "gzip"
    if not Inflater.handles(encoding):
        return body, headers
    inflater = Inflater(encoding, budget.left)
    text = inflater.feed(body) + inflater.flush()
    if inflater.size > budget.left:
        raise BodyTooLarge(
            f"its {encoding} body takes what the recording's bodies decode to past {MAX_DECODED // 2**20} MiB; refused"
        )
    if not text and (inflater.broken or sniffed):  # (a body that only looked like gzip is kept as it is)
        return body, headers
    budget.left -= len(text)
    return text, without_headers(headers, "content-encoding", "content-length")
