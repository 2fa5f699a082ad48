"""llama-stack's integration-test recordings (read only), in each variant seen in the wild:

- legacy (`request`/`response` only) and current (`test_id`, `id_normalization_mapping`) files, whose
  response body is a list of typed chunk objects `{"__type__": "...", "__data__": {...}}` or one such object;
- `is_exception` recordings with `exception_data` and no body;
- the httpx pass-through variant, whose request is `{url, method, payload}` and body a list of raw SSE lines.

`__type__` is only ever read as a string; nothing is constructed from it.
"""

from __future__ import annotations

import json
from typing import Any

from chatterm.cassette.model import Interaction, Recording, RecordingError, Request, Response

_SSE = {"content-type": ["text/event-stream"]}
_JSON = {"content-type": ["application/json"]}


def is_llamastack(data: Any) -> bool:
    return isinstance(data, dict) and isinstance(data.get("request"), dict) and isinstance(data.get("response"), dict)


def _data(item: Any) -> Any:
    if isinstance(item, dict) and "__data__" in item:
        return item["__data__"]
    return item


def _kind(item: Any) -> str:
    kind = item.get("__type__") if isinstance(item, dict) else None
    return kind if isinstance(kind, str) else ""


def read_llamastack(data: dict[str, Any], name: str) -> Recording:
    request, response = data["request"], data["response"]
    payload = request.get("body") if "body" in request else request.get("payload")
    body = payload if isinstance(payload, (dict, list)) else {}
    url = request.get("url")
    req = Request(
        method=str(request.get("method") or "POST"),
        url=url if isinstance(url, str) else "",
        headers={},
        body=json.dumps(body, ensure_ascii=False).encode(),
    )
    note = None
    raw = response.get("body")
    if response.get("is_exception"):
        info = response.get("exception_data") if isinstance(response.get("exception_data"), dict) else {}
        status = info.get("status_code") if isinstance(info.get("status_code"), int) else None
        detail = info.get("body") if isinstance(info.get("body"), dict) else None
        words = response.get("exception_message") or info.get("message") or "the provider raised an exception"
        error_body = {"error": detail or {"message": str(words)}}
        resp = Response(status=status or 500, headers=dict(_JSON), body=json.dumps(error_body).encode())
        if status is None:
            resp.error = {"status": None, "message": f"recorded exception: {words}"}
    elif isinstance(raw, list) and all(isinstance(line, str) for line in raw):
        text = "\n".join(raw)
        resp = Response(status=200, headers=dict(_SSE), body=(text if text.endswith("\n") else text + "\n").encode())
    elif isinstance(raw, list):
        kinds = {_kind(item) for item in raw} - {""}
        events = "".join(f"data: {json.dumps(_data(item), ensure_ascii=False)}\n\n" for item in raw)
        resp = Response(status=200, headers=dict(_SSE), body=(events + "data: [DONE]\n\n").encode())
        note = _note(kinds)
    elif isinstance(raw, dict):
        resp = Response(status=200, headers=dict(_JSON), body=json.dumps(_data(raw), ensure_ascii=False).encode())
        note = _note({_kind(raw)} - {""})
    elif raw is None:
        resp = Response(status=None, headers={}, body=b"")
        note = "the recording holds no response body"
    else:
        raise RecordingError(f"{name}: the llama-stack response body is neither a list nor an object")
    return Recording(format="llama-stack", interactions=[Interaction(request=req, response=resp, note=note)])


def _note(kinds: set[str]) -> str | None:
    """Explain a body of a kind chatterm does not show (embeddings, completions, model lists)."""
    unknown = sorted(k for k in kinds if "ChatCompletion" not in k and "Message" not in k)
    return f"the recording holds {', '.join(unknown)}, not a chat answer" if unknown else None
