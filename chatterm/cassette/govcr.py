"""go-vcr cassettes, formats 1 and 2: read, and write format 2."""

from __future__ import annotations

from typing import Any
from urllib.parse import urlsplit

from chatterm.cassette.dataio import seconds
from chatterm.cassette.model import Interaction, Recording, RecordingError, Request, Response, mapping, reason_phrase
from chatterm.cassette.timing import format_go_duration, parse_go_duration
from chatterm.cassette.vcr import EXTRA, BodyTooLarge, DecodeBudget, body_bytes, decoded, headers_from, offsets_from
from chatterm.cassette.vcr_yaml import dump_yaml, extra_of, text_or_bytes


def is_govcr(data: Any) -> bool:
    if not isinstance(data, dict) or not isinstance(data.get("interactions"), list):
        return False
    first = next((i for i in data["interactions"] if isinstance(i, dict)), None)
    request = first.get("request") if first else None
    return isinstance(request, dict) and "url" in request


def read_govcr(data: dict[str, Any], name: str) -> Recording:
    interactions = []
    budget = DecodeBudget()
    for number, item in enumerate(data["interactions"], start=1):
        if not isinstance(item, dict) or not isinstance(item.get("response"), dict):
            raise RecordingError(f"{name}: interaction {number} has no response")
        request = mapping(item.get("request"))
        response = mapping(item["response"])
        if "code" not in response and "status" not in response:
            raise RecordingError(f"{name}: interaction {number} has no response status (is the file truncated?)")
        extra = mapping(response.get(EXTRA))
        code = response.get("code")
        if not isinstance(code, int):
            status_text = str(response.get("status") or "")
            code = int(status_text[:3]) if status_text[:3].isdigit() else None
        headers = headers_from(response.get("headers"))
        try:
            body, headers = decoded(body_bytes(response.get("body")), headers, budget)
        except BodyTooLarge as exc:
            raise RecordingError(f"{name}: interaction {number}: {exc}") from None
        status_text = str(response.get("status") or "")
        interactions.append(
            Interaction(
                request=Request(
                    method=str(request.get("method") or "POST"),
                    url=str(request.get("url") or ""),
                    headers=headers_from(request.get("headers")),
                    body=body_bytes(request.get("body")),
                ),
                response=Response(
                    status=code,
                    headers=headers,
                    body=body,
                    reason=status_text[4:] if status_text[:3].isdigit() else status_text,
                    offsets=offsets_from(extra.get("offsets")),
                    duration=seconds(parse_go_duration(response.get("duration"))),
                    error=extra.get("error") if isinstance(extra.get("error"), dict) else None,
                ),
                meta={k: v for k, v in extra.items() if k not in ("offsets", "error")},
            )
        )
    version = data.get("version")
    return Recording(format="govcr", interactions=interactions) if version in (1, 2, None) else _unknown(version, name)


def _unknown(version: Any, name: str) -> Recording:
    raise RecordingError(f"{name}: go-vcr cassette version {version!r} is not one chatterm reads (1 or 2)")


def write_govcr(recording: Recording) -> bytes:
    interactions = []
    for number, interaction in enumerate(recording.interactions):
        request = interaction.request or Request(method="POST", url="")
        response = interaction.response
        duration = response.duration
        if duration is None and response.offsets:
            duration = response.offsets[-1][0]
        status = response.status or 200
        item: dict[str, Any] = {
            "id": number,
            "request": {
                "proto": "HTTP/1.1",
                "proto_major": 1,
                "proto_minor": 1,
                "content_length": len(request.body),
                "host": urlsplit(request.url).netloc,
                "body": text_or_bytes(request.body),
                "form": {},
                "headers": request.headers,
                "url": request.url,
                "method": request.method,
            },
            "response": {
                "proto": "HTTP/1.1",
                "proto_major": 1,
                "proto_minor": 1,
                "content_length": -1,
                "body": text_or_bytes(response.body),
                "headers": response.headers,
                "status": f"{status} {response.reason or reason_phrase(status)}".strip(),
                "code": status,
                "duration": format_go_duration(duration or 0.0),
            },
        }
        extra = extra_of(interaction)
        if extra:
            item["response"][EXTRA] = extra
        interactions.append(item)
    return b"---\n" + dump_yaml({"version": 2, "interactions": interactions})
