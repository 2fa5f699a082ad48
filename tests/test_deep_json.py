"""JSON nested too deeply, wherever it comes from: a line of a stream is skipped with a warning and the stream goes
on (the same live, in `show` and in a replay); a recording file nested too deeply is refused, one line, exit 2."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import pytest

from chatterm.decode.body import decode_all
from chatterm.decode.safejson import MAX_DEPTH, TooDeep, deeper_than, loads
from chatterm.events import Content, StreamError, StreamWarning
from tests.conftest import assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER, DEEP, DONE, FaultServer, chunk

WARNING = f"chatterm: warning: skipped a chunk nested more than {MAX_DEPTH} levels deep"


def ask(url: str) -> Any:
    return run_chatterm("ask", "--base-url", url, "--model", "fault-model", "hi")


@pytest.mark.parametrize("scenario", ["deep", "deep-ndjson", "deep-eventstream"])
def test_ask_skips_a_line_nested_too_deeply_and_the_answer_goes_on(fault_server: Any, scenario: str) -> None:
    result = ask(fault_server.url(scenario))
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.code == 0 and result.stdout == ANSWER
    assert result.stderr.splitlines() == [WARNING]


def test_ask_skips_a_whole_body_nested_too_deeply(fault_server: Any) -> None:
    result = ask(fault_server.url("deep-json"))
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.code in (0, 1) and result.stdout == ""  # (1 where an empty answer is an error)
    assert f"chatterm: warning: skipped the response body: nested more than {MAX_DEPTH} levels deep" in result.stderr


def deep_capture(path: Path) -> Path:
    path.write_bytes(chunk("Hello") + b"data: " + DEEP + b"\n\n" + chunk(" world", finish="stop") + DONE)
    return path


def test_show_and_convert_skip_a_line_nested_too_deeply(tmp_path: Path) -> None:
    capture = deep_capture(tmp_path / "deep.sse")
    shown = run_chatterm("show", str(capture))
    assert shown.code == 0 and "Traceback" not in shown.stderr, shown.stderr[-2000:]
    assert "[assistant] Hello world" in shown.stdout
    as_json = run_chatterm("show", "--json", str(capture))
    assert as_json.code == 0 and json.loads(as_json.stdout)["turns"][0]["response"]["content"] == "Hello world"
    converted = run_chatterm("convert", str(capture), str(tmp_path / "deep.yaml"))
    assert converted.code == 0, converted.stderr[-2000:]
    again = run_chatterm("show", "--json", str(tmp_path / "deep.yaml"))
    assert again.code == 0 and json.loads(again.stdout)["turns"][0]["response"]["content"] == "Hello world"


def test_a_recorded_request_and_answer_nested_too_deeply_are_read_as_data(tmp_path: Path) -> None:
    deep = DEEP.decode()
    cassette = tmp_path / "deep-bodies.yaml"
    cassette.write_text(
        "interactions:\n- request:\n    method: POST\n    uri: http://127.0.0.1/v1/chat/completions\n"
        f"    body: '{deep}'\n    headers: {{}}\n"
        "  response:\n    status: {code: 200, message: OK}\n    headers: {Content-Type: [application/json]}\n"
        f"    body: {{string: '{deep}'}}\nversion: 1\n"
    )
    shown = run_chatterm("show", "--json", str(cassette))
    assert shown.code == 0 and "Traceback" not in shown.stderr, shown.stderr[-2000:]
    turn = json.loads(shown.stdout)["turns"][0]
    assert turn["request"]["messages"] == [] and turn["response"]["content"] == ""
    for target in ("deep.sse", "deep-again.yaml"):
        converted = run_chatterm("convert", str(cassette), str(tmp_path / target))
        assert converted.code == 0 and "Traceback" not in converted.stderr, converted.stderr[-2000:]


DEEP_FILES = {"deep.json": DEEP.decode(), "deep.yaml": "interactions: " + DEEP.decode() + "\n"}


@pytest.mark.parametrize("name", sorted(DEEP_FILES))
@pytest.mark.parametrize("command", ["show", "replay", "serve", "convert"])
def test_a_recording_nested_too_deeply_is_refused_with_one_line(tmp_path: Path, name: str, command: str) -> None:
    path = tmp_path / name
    path.write_text(DEEP_FILES[name])
    extra = [str(tmp_path / "out.yaml")] if command == "convert" else []
    result = run_chatterm(command, str(path), *extra)
    assert result.code == 2, (result.code, result.stderr[-2000:])
    assert_one_line_error(result)
    assert f"{path}: nested too deeply to be a recording" in result.stderr


async def test_a_model_list_nested_too_deeply_is_no_list(faults: FaultServer) -> None:
    from chatterm.net.endpoint import Endpoint
    from chatterm.net.models import list_models

    endpoint = Endpoint(base_url=faults.url("deep-json"), model="fault-model")
    assert await list_models("deep", endpoint, use_cache=False) == ["fault-model"]


# -- the bound itself ---------------------------------------------------------------------------------------------


def nested(levels: int) -> str:
    return "[" * levels + "]" * levels


def test_nesting_up_to_the_bound_is_read_and_past_it_refused() -> None:
    assert loads(nested(MAX_DEPTH)) is not None and not deeper_than(json.loads(nested(MAX_DEPTH)), MAX_DEPTH)
    with pytest.raises(TooDeep):
        loads(nested(MAX_DEPTH + 1))
    with pytest.raises(TooDeep):
        loads(nested(MAX_DEPTH + 1).encode())
    text = json.dumps({"content": "[{" * 1000 + '\\"' + "]}" * 3, "nested": json.loads(nested(10))})
    assert loads(text)["nested"] == json.loads(nested(10)), "brackets in strings are text, not nesting"
    assert loads("[" * 500 + "1" + "]" * 500, limit=500) is not None
    assert deeper_than({"a": [{"b": [1]}]}, 3) and not deeper_than({"a": [{"b": [1]}]}, 4)


def test_every_decoder_path_skips_a_line_nested_too_deeply_and_goes_on() -> None:
    from tests.faultserver import ANTHROPIC_START, anthropic_text, bedrock_frame, eventstream_frame, ollama_line

    deep = DEEP
    bodies = {
        "sse": chunk("a") + b"data: " + deep + b"\n\n" + chunk("b") + DONE,
        "ndjson": ollama_line("a") + deep + b"\n" + ollama_line("b") + ollama_line("", done=True),
        "eventstream": bedrock_frame(ANTHROPIC_START)
        + bedrock_frame(anthropic_text("a"))
        + eventstream_frame(deep)
        + eventstream_frame(json.dumps({"bytes": base64.b64encode(deep).decode()}).encode())
        + bedrock_frame(anthropic_text("b")),
    }
    for kind, body in bodies.items():
        events = decode_all(body, kind)
        texts = [e.text for e in events if isinstance(e, Content)]
        warnings = [e.message for e in events if isinstance(e, StreamWarning)]
        assert "".join(texts) == "ab", (kind, events)
        assert warnings and all("nested more than" in w for w in warnings), (kind, warnings)
    events = decode_all(deep, "json")
    assert [type(e) for e in events] == [StreamWarning]
    (error,) = decode_all(b"event: error\ndata: " + deep + b"\n\n", "sse")
    assert isinstance(error, StreamError) and error.message == "error in stream: the provider reported an error"
