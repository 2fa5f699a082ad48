"""The tree a recording holds: as chatterm noted it, or told from the requests of another tool's recording (a test
suite's retries become siblings); the branch switches kept beside the items, in a file the sessions list still
reads and renames in part."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatterm.cassette.branches import recorded_tree
from chatterm.cassette.load import load_recording, load_tail, parse_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response, Switch
from chatterm.cassette.session_files import retitle
from chatterm.cassette.session_rows import quick_row
from chatterm.cassette.vcr_yaml import write_vcr
from tests.conftest import CORPUS


def tree_of(name: str) -> list[tuple[str, str | None]]:
    tree = recorded_tree(load_recording(CORPUS / name)).tree
    return [(node.id, node.parent) for node in tree.nodes.values()]


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("pydai__test_openrouter__test_openrouter_errors_raised.yaml", [("1", None), ("2", None), ("3", None)]),
        (
            "otel__openai__TestFinishReasonDeduplication.test_streaming_deduplicates_finish_reasons.yaml",
            [("1", None), ("2", None)],
        ),
        ("pydai__test_groq__test_tool_use_failed_error_streaming.yaml", [("1", None), ("2", "1"), ("3", "2")]),
        ("fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml", [("1", None), ("2", "1")]),
        ("fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml", [("1", None), ("2", "1")]),
    ],
    ids=["retries", "asked-twice", "tool-chain", "gemini", "anthropic"],
)
def test_another_tools_recording_gets_a_tree_from_its_requests(name: str, expected: list[tuple[str, str]]) -> None:
    assert tree_of(name) == expected


def test_every_corpus_recording_has_a_tree_whose_active_branch_ends_with_its_last_turn() -> None:
    for path in sorted(CORPUS.iterdir()):
        if path.suffix not in (".yaml", ".json", ".sse"):
            continue
        recorded = recorded_tree(load_recording(path))
        assert len(recorded.tree) == len(recorded.exchanges)
        if recorded.exchanges:
            assert recorded.tree.active == list(recorded.exchanges)[-1], path.name


def exchange(messages: list[dict[str, str]], meta: dict[str, object] | None = None) -> Interaction:
    body = json.dumps({"model": "m", "messages": messages}).encode()
    request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=body)
    answer = b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]}\n\n'
    return Interaction(request, Response(200, {"content-type": ["text/event-stream"]}, answer), dict(meta or {}))


def branched() -> Recording:
    """1 > 2 and 1 > 3 (an edit), then a switch back to 2."""
    one = [{"role": "user", "content": "one"}]
    later = [*one, {"role": "assistant", "content": "hi"}]
    return Recording(
        "vcr",
        [
            exchange(one, {"id": "1", "parent": None, "title": "named"}),
            exchange([*later, {"role": "user", "content": "two"}], {"id": "2", "parent": "1"}),
            exchange([*later, {"role": "user", "content": "two again"}], {"id": "3", "parent": "1"}),
        ],
        [Switch("2", 3)],
    )


def test_switches_load_back_and_choose_the_active_branch(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_bytes(write_vcr(branched()))
    recording = load_recording(path)
    assert recording.switches == [Switch("2", 3)]
    assert recorded_tree(recording).tree.branch() == ["1", "2"]
    for count, taken_from in ((1, 2), (5, 3)):  # (the active branch's last item, and the file read whole)
        tail, total = load_tail(path, count)
        assert (total, tail.switches) == (taken_from, [Switch("2", 3)])
        assert recorded_tree(tail).active()[-1].meta["id"] == "2"


def test_the_sessions_list_reads_and_renames_a_branched_session(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    data = write_vcr(branched())
    path.write_bytes(data)
    assert quick_row(data, path.name) == ("named", "", "m", 3)
    retitle(path, "renamed")
    recording = load_recording(path)
    assert recording.switches == [Switch("2", 3)] and recording.interactions[0].meta["title"] == "renamed"
    single = Recording("vcr", branched().interactions[:1], [Switch("1", 1)])
    path.write_bytes(write_vcr(single))
    retitle(path, "alone")
    assert load_recording(path).switches == [Switch("1", 1)], "the notes after a single item are kept"


def test_switch_notes_that_are_not_switches_are_left_out() -> None:
    text = write_vcr(branched()).replace(b"- ['2', 3]", b"- ['2', -1]\n  - {to: 2}\n  - [[], 1]\n  - ['1', 2]")
    assert parse_recording(text).switches == [Switch("1", 2)]
