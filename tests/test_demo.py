"""The offline demo: `ask` on the `demo` profile answers a prompt with the closest shipped recording, or says what
the demo is; the shipped recordings are cassettes vcrpy loads, and the script that made them makes them again."""

from __future__ import annotations

import re
from pathlib import Path

import httpx
import pytest
import vcr

from chatterm.cassette.demo import DEMO_DIR, fallback_interaction
from chatterm.cassette.demo_catalogue import CATALOGUE, CONFIGURE, DemoEntry, closest
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction
from chatterm.cassette.summary import answers, reply_of
from chatterm.conversation.reply import Reply
from chatterm.decode.body import SSE, decode_all
from tests.conftest import run_chatterm

ROOT = Path(__file__).resolve().parents[1]
RECORDED = [entry for entry in CATALOGUE if not entry.file.startswith("xai_")]
"""The recordings made by `ask --record` (tests/demo_cassettes.py); the other is a provider's, kept as it was."""


@pytest.mark.parametrize(
    ("prompt", "answer", "said"),
    [
        ("hello! what can you do?", "offline demo", ""),
        ("Write me a Python function to merge two sorted lists", "def merge_sorted(", ""),
        ("tell me the history of terminals", "VT100", ""),
        ("list the prime numbers below 1000", "2, 3, 5, 7, 11", "stopped at the token limit"),
        ("what happens if the provider is overloaded?", "second attempt", "Retrying in 1.0 s"),
        ("Say hi in Portuguese", "Oi!", ""),
    ],
)
def test_ask_in_the_demo_answers_with_the_closest_recording(prompt: str, answer: str, said: str) -> None:
    result = run_chatterm("ask", prompt)
    assert result.code == 0, result.stderr
    assert answer in result.stdout
    assert said in result.stderr
    assert "Oi!" not in result.stdout or answer == "Oi!", "every prompt got the one recording"


def test_ask_in_the_demo_says_what_it_is_when_no_recording_is_close() -> None:
    result = run_chatterm("ask", "Recommend a lasagne recipe")
    assert result.code == 0, result.stderr
    assert "offline demo" in result.stdout
    assert CONFIGURE in result.stdout
    for entry in CATALOGUE:
        assert entry.prompt in result.stdout


def test_the_demo_says_how_to_leave_it_in_the_readme_s_words() -> None:
    readme = " ".join((ROOT / "README.md").read_text().split())
    assert CONFIGURE in readme


def test_each_prompt_the_demo_offers_leads_to_its_own_recording() -> None:
    for entry in CATALOGUE:
        assert closest(entry.prompt) == entry
    assert closest("Recommend a lasagne recipe") is None


@pytest.mark.parametrize("entry", RECORDED, ids=[entry.file for entry in RECORDED])
def test_the_shipped_cassettes_load_with_vcrpy(entry: DemoEntry) -> None:
    path = DEMO_DIR / entry.file
    recording = load_recording(path)
    (request, *_) = [i.request for i in recording.interactions if i.request is not None]
    with vcr.use_cassette(str(path), record_mode="none") as cassette:
        assert len(cassette) == len(recording.interactions)
        for _ in recording.interactions:
            response = httpx.post(request.url, content=request.body, headers={"content-type": "application/json"})
    reply = Reply()
    reply.extend(decode_all(response.content, SSE))
    assert reply.content == reply_of(answers(recording).interactions[-1]).content
    assert reply.content and reply.error is None


def test_the_shipped_cassettes_are_what_the_script_makes(tmp_path: Path) -> None:
    """`python3 -m tests.demo_cassettes` makes them: each through `ask --record` against a loopback server."""
    from tests.demo_cassettes import make

    make(tmp_path, pace=0.0)
    for entry in RECORDED:
        made, shipped = load_recording(tmp_path / entry.file), load_recording(DEMO_DIR / entry.file)
        assert [summary(i) for i in made.interactions] == [summary(i) for i in shipped.interactions]
        assert summary(shipped.interactions[0])[0] == entry.prompt


def summary(interaction: Interaction) -> tuple[str, int | None, str, str, str | None]:
    from chatterm.chat.session import user_text

    reply = reply_of(interaction)
    return user_text(interaction), interaction.response.status, reply.reasoning, reply.content, reply.finish_reason


def test_the_demo_recordings_are_declared_package_data() -> None:
    text = (ROOT / "pyproject.toml").read_text()
    assert re.search(r'"chatterm/demo/\*\.yaml"', text)


MATCHES = [
    # a prompt that shares one common word with a recording is not close to it
    ("two", None),
    ("list", None),
    ("write", None),
    ("Write a haiku about autumn", None),
    ("list three colours", None),
    ("what is two plus two?", None),
    ("tell me a story", None),
    ("explain quantum physics", None),
    ("count to ten", None),
    ("translate this to French", None),
    ("why is the sky blue?", None),
    # a real match: a word only one recording is about, or several of its words
    ("hi", "hello.yaml"),
    ("hello there", "hello.yaml"),
    ("what can you do?", "hello.yaml"),
    ("merge two sorted lists", "merge_sorted.yaml"),
    ("write some python code", "merge_sorted.yaml"),
    ("sort a list in Python", "merge_sorted.yaml"),
    ("history of the VT100", "terminal_history.yaml"),
    ("tell me about computer terminals and their history", "terminal_history.yaml"),
    ("primes below 100", "primes.yaml"),
    ("list the prime numbers", "primes.yaml"),
    ("the provider is overloaded", "overloaded.yaml"),
    ("show me an error and a retry", "overloaded.yaml"),
    ("say hi in Portuguese", "xai_grok_simple_streaming.yaml"),
]


@pytest.mark.parametrize(("prompt", "file"), MATCHES)
def test_the_demo_answers_a_prompt_with_a_recording_only_when_it_is_really_close(prompt: str, file: str | None) -> None:
    """What the demo's server answers a chat request with: the recording's turn, or the demo's own answer."""
    from chatterm.cassette.demo import DemoMatcher, demo_recordings

    recordings = demo_recordings()
    matcher = DemoMatcher(recordings)
    answer = matcher.match({"model": "chatterm-demo", "messages": [{"role": "user", "content": prompt}]})
    assert answer is not None
    expected = recordings[file].interactions[0].response.body if file else fallback_interaction().response.body
    assert answer.response.body == expected


@pytest.mark.parametrize("prompt", ["two", "list", "write"])
def test_ask_in_the_demo_does_not_answer_one_shared_word_with_a_recording(prompt: str) -> None:
    result = run_chatterm("ask", prompt)
    assert result.code == 0, result.stderr
    assert "offline demo" in result.stdout and "def merge_sorted(" not in result.stdout


def test_the_retry_notice_punctuates_a_provider_s_message_once() -> None:
    result = run_chatterm("ask", "what happens if the provider is overloaded?")
    assert result.code == 0, result.stderr
    (warning,) = [line for line in result.stderr.splitlines() if line.startswith("chatterm: warning:")]
    said = "HTTP 503: The server is overloaded, please try again in a moment. Retrying in 1.0 s"
    assert warning == f"chatterm: warning: {said}"
