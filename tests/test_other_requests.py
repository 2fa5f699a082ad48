"""A vcrpy cassette from someone's test suite holds its other HTTP calls too (a model list, embeddings, a GET, an
OAuth token): none of them is a chat turn for `show`, `replay` or `serve`; a chat turn whose body chatterm cannot
read says which format it saw."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
import yaml

from chatterm.ui.widgets.messages import UserMessage
from tests.conftest import run_chatterm
from tests.ui.helpers import app_for, wait_for

API = "https://api.example.test/v1"
ANSWER = {"choices": [{"index": 0, "delta": {"content": "Hello there."}, "finish_reason": "stop"}], "model": "m-1"}
MODELS = {"object": "list", "data": [{"id": "m-1", "object": "model"}, {"id": "m-2", "object": "model"}]}
EMBEDDINGS = {"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.1, 0.2]}], "model": "e"}


def exchange(method: str, uri: str, body: Any, status: int, content_type: str, answer: str | bytes) -> dict[str, Any]:
    return {
        "request": {"method": method, "uri": uri, "body": body, "headers": {}},
        "response": {
            "status": {"code": status, "message": "OK"},
            "headers": {"Content-Type": [content_type]},
            "body": {"string": answer},
        },
    }


def chat(*history: str) -> str:
    """A chat request carrying its conversation: user prompts and answers in turn, the prompt last."""
    roles = ["user", "assistant"] * len(history)
    messages = [{"role": role, "content": text} for role, text in zip(roles, history, strict=False) if text]
    return json.dumps({"model": "m-1", "messages": messages, "stream": True})


def sse(payload: dict[str, Any]) -> str:
    return f"data: {json.dumps(payload)}\n\ndata: [DONE]\n\n"


def suite_cassette(path: Path) -> Path:
    """What vcrpy records around one chat call in a test suite, and two chat calls answered with what is not one (the
    three one conversation, each request carrying the ones before)."""
    earlier = ("first question", "Hello there.", "second question")
    second, third = chat(*earlier), chat(*earlier, "", "third question")
    interactions = [
        exchange("GET", f"{API}/models", None, 200, "application/json", json.dumps(MODELS)),
        exchange(
            "POST",
            "https://auth.example.test/oauth/token",
            "grant_type=client_credentials",
            200,
            "application/json",
            json.dumps({"access_token": "abc", "token_type": "Bearer", "expires_in": 60}),
        ),
        exchange(
            "POST",
            f"{API}/embeddings",
            json.dumps({"model": "e", "input": "hi"}),
            200,
            "application/json",
            json.dumps(EMBEDDINGS),
        ),
        exchange("POST", f"{API}/chat/completions", chat("first question"), 200, "text/event-stream", sse(ANSWER)),
        exchange("GET", "https://www.example.test/", None, 200, "text/html", "<!doctype html><p>home</p>"),
        exchange("POST", f"{API}/chat/completions", second, 200, "application/json", json.dumps(EMBEDDINGS)),
        exchange("POST", f"{API}/chat/completions", third, 200, "text/plain", "upstream says no"),
    ]
    path.write_text(yaml.safe_dump({"interactions": interactions, "version": 1}))
    return path


def test_show_lists_only_the_chat_turns_and_names_what_it_skipped(tmp_path: Path) -> None:
    path = suite_cassette(tmp_path / "suite.yaml")
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0, result.stderr
    turns = json.loads(result.stdout)["turns"]
    assert [turn["request"]["messages"][-1]["content"] for turn in turns] == [
        "first question",
        "second question",
        "third question",
    ]
    assert turns[0]["response"]["content"] == "Hello there." and turns[0]["response"]["error"] is None
    assert turns[1]["response"]["error"]["message"] == "the response is an embeddings response, not a chat answer"
    assert turns[2]["response"]["error"]["message"] == "the response is text/plain, not a chat answer"

    shown = run_chatterm("show", str(path))
    assert shown.code == 0, shown.stderr
    assert "3 turns" in shown.stdout
    for skipped in (
        f"[skipped] GET {API}/models: a model list",
        "[skipped] POST https://auth.example.test/oauth/token: an OAuth token",
        f"[skipped] POST {API}/embeddings: an embeddings response",
        "[skipped] GET https://www.example.test/: text/html",
    ):
        assert skipped in shown.stdout
    assert "empty answer" not in shown.stdout


def test_serve_answers_chat_requests_with_chat_turns_only(tmp_path: Path, serve_recording: Callable[..., str]) -> None:
    base_url = serve_recording(suite_cassette(tmp_path / "suite.yaml"))
    models = httpx.get(base_url + "/models").json()
    assert [model["id"] for model in models["data"]] == ["m-1", "e"], "the models that answered the chat turns"
    body = {"model": "m-1", "messages": [{"role": "user", "content": "anything"}], "stream": False}
    first = httpx.post(base_url + "/chat/completions", json=body)
    assert first.status_code == 200
    assert first.json()["choices"][0]["message"]["content"] == "Hello there."
    second = httpx.post(base_url + "/chat/completions", json=body)
    assert second.status_code == 502
    assert second.json()["error"]["message"] == "the response is an embeddings response, not a chat answer"


@pytest.mark.parametrize("speed", ["instant", "4x"])
async def test_replay_shows_the_chat_turns_only(tmp_path: Path, speed: str) -> None:
    path = suite_cassette(tmp_path / "suite.yaml")
    app = app_for(replay=path, speed=speed, save_sessions=False)
    async with app.run_test(size=(100, 36)) as pilot:
        screen = app.chat_screen

        def finished() -> bool:
            children = list(screen.conversation_view.children)
            return bool(children) and "Replay finished" in str(children[-1].render())

        await wait_for(pilot, finished)
        prompts = [str(message.text) for message in screen.query(UserMessage)]
        assert prompts == ["first question", "second question", "third question"]
        answers = screen.messages()
        assert answers[0].answer == "Hello there."
        notices = [str(turn.notice) for turn in screen.turns][1:]
        assert notices[0].startswith("the response is an embeddings response, not a chat answer")
        assert notices[1].startswith("the response is text/plain, not a chat answer")
