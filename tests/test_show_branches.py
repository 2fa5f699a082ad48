"""`chatterm show` on a branched conversation: `--json` places every turn in the tree, plain `show` prints the
active branch, `--all` every branch with its number and path; a turn with alternatives is marked as the app marks it
(`prompt 1/2 · answer 2/2`), and turns are numbered along their branch, with their id where it differs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatterm.cassette.branches import recorded_tree
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.summary import summarize
from chatterm.cassette.write import render
from chatterm.chat.session import ChatSession, user_text
from chatterm.cli.main import main
from chatterm.cli.show_marks import prompt_of
from chatterm.ui.screens.branches import place_among
from tests.branching_fake import FakeProvider, answer, fake_session
from tests.conftest import CORPUS, recordings


async def branched_session(path: Path) -> None:
    """one > two, then two edited (two, edited > three), then back to the first branch."""
    provider = FakeProvider()
    session = fake_session(provider, path)
    for prompt in ("one", "two"):
        session.add_prompt(prompt)
        await answer(session)
    second = session.tree.active
    assert second is not None
    session.edit(second, "two, edited")
    await answer(session)
    session.add_prompt("three")
    await answer(session)
    session.switch_branch(second)
    await session.aclose()


def show(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["show", *args]) == 0
    return capsys.readouterr().out


async def test_show_json_gives_each_turn_its_id_and_parent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.yaml"
    await branched_session(path)
    document = json.loads(show(capsys, str(path), "--json"))
    assert [(turn["id"], turn["parent"]) for turn in document["turns"]] == [
        ("1", None),
        ("2", "1"),
        ("3", "1"),
        ("4", "3"),
    ]
    assert document["active"] == ["1", "2"]


def test_show_json_of_another_tools_retries_makes_them_siblings(capsys: pytest.CaptureFixture[str]) -> None:
    path = CORPUS / "pydai__test_openrouter__test_openrouter_errors_raised.yaml"
    document = json.loads(show(capsys, str(path), "--json"))
    assert [(turn["id"], turn["parent"]) for turn in document["turns"]] == [("1", None), ("2", None), ("3", None)]


async def test_show_prints_the_active_branch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.yaml"
    await branched_session(path)
    out = show(capsys, str(path))
    assert "(vcr, 4 turns in 2 branches)" in out
    assert "[user] two\n" in out and "two, edited" not in out and "three" not in out
    assert "## Turn 2 · m · prompt 1/2\n" in out
    assert "1 other branch: `chatterm show --all` prints every branch" in out


async def test_show_all_prints_every_branch_with_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.yaml"
    await branched_session(path)
    out = show(capsys, str(path), "--all")
    assert "## Branch 1 of 2: turns 1 > 2 (active)\n" in out and "## Branch 2 of 2: turns 1 > 3 > 4\n" in out
    assert out.count("[user] one") == 1, "a turn two branches share is printed once"
    assert out.index("[user] two\n") < out.index("## Branch 2 of 2") < out.index("[user] two, edited")
    assert "[user] three" in out


async def regenerated_and_edited(path: Path) -> ChatSession:
    """one > two; two's answer regenerated (3), two edited (4: two, edited); then back to the regenerated answer."""
    provider = FakeProvider()
    session = fake_session(provider, path)
    for prompt in ("one", "two"):
        session.add_prompt(prompt)
        await answer(session)
    session.regenerate("2")
    await answer(session)
    session.edit("2", "two, edited")
    await answer(session)
    session.switch_branch("3")
    await session.aclose()
    return session


def headings(out: str) -> list[str]:
    return [line for line in out.splitlines() if line.startswith("#")]


async def test_show_marks_a_turns_prompt_and_answer_as_the_app_does(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`branch 1/3` counted every sibling; the app counts the prompts asked there, and the answers to the same one."""
    path = tmp_path / "s.yaml"
    await regenerated_and_edited(path)
    assert "## Turn 2 (id 3) · m · prompt 1/2 · answer 2/2\n" in show(capsys, str(path))
    assert headings(show(capsys, str(path), "--all"))[1:] == [
        "## Branch 1 of 3: turns 1 > 2",
        "### Turn 1 · m",
        "### Turn 2 · m · prompt 1/2 · answer 1/2",
        "## Branch 2 of 3: turns 1 > 3 (active)",
        "### Turn 2 (id 3) · m · prompt 1/2 · answer 2/2",
        "## Branch 3 of 3: turns 1 > 4",
        "### Turn 2 (id 4) · m · prompt 2/2",
    ]


async def test_show_marks_every_turn_as_the_app_marks_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The app's own rule (`place_among`, over the session) is the oracle for the marks `--all` prints."""
    path = tmp_path / "s.yaml"
    session = await regenerated_and_edited(path)
    shown: dict[str, list[str]] = {}
    for line in headings(show(capsys, str(path), "--all")):
        if line.startswith("### Turn "):
            label, _model, *marks = line.split(" · ")
            number, _, node_id = label.removeprefix("### Turn ").partition(" (id ")
            shown[node_id.rstrip(")") or number] = marks
    assert shown == {
        node_id: [
            f"{part} {place[0]}/{place[1]}"
            for part, of_prompt in (("prompt", True), ("answer", False))
            if (place := place_among(session, node_id, of_prompt)) is not None
        ]
        for node_id in session.tree.nodes
    }


@pytest.mark.parametrize("path", recordings(), ids=lambda path: path.name)
def test_show_reads_a_turns_prompt_as_the_app_reads_it(path: Path) -> None:
    """Two siblings' prompts are one for `show`'s marks exactly when they are one for the app's (`user_text`)."""
    recording = load_recording(str(path))
    exchanges = recorded_tree(recording).exchanges
    for entry in summarize(recording)["turns"]:
        assert prompt_of(entry) == user_text(exchanges[entry["id"]]), entry["id"]


def forked_recording(path: Path) -> Path:
    """Two turns whose ids start at 4, as in a file forked from another."""
    interactions = []
    for node_id, parent, messages, text in (
        ("4", None, [{"role": "user", "content": "one"}], "answer one"),
        (
            "5",
            "4",
            [
                {"role": "user", "content": "one"},
                {"role": "assistant", "content": "answer one"},
                {"role": "user", "content": "two"},
            ],
            "answer two",
        ),
    ):
        body = json.dumps({"model": "m", "messages": messages}).encode()
        chunk = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": "stop"}]}
        stream = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        interactions.append(
            Interaction(
                Request("POST", "http://127.0.0.1/v1/chat/completions", body=body),
                Response(200, {"content-type": ["text/event-stream"]}, stream),
                meta={"id": node_id, "parent": parent},
            )
        )
    path.write_bytes(render(Recording("vcr", interactions)))
    return path


async def test_show_numbers_turns_along_their_branch_with_their_id_where_it_differs(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--all` numbered turns by id (`### Turn 4`), plain `show` along the branch (`## Turn 2`)."""
    path = tmp_path / "s.yaml"
    await branched_session(path)
    assert headings(show(capsys, str(path), "--all"))[-2:] == [
        "### Turn 2 (id 3) · m · prompt 2/2",
        "### Turn 3 (id 4) · m",
    ]
    forked = forked_recording(tmp_path / "forked.yaml")
    assert headings(show(capsys, str(forked)))[1:] == [
        "## Turn 1 (id 4) · m",
        "## Turn 2 (id 5) · m",
    ]
    assert headings(show(capsys, str(forked), "--all"))[1:] == [
        "## Branch 1 of 1: turns 4 > 5 (active)",
        "### Turn 1 (id 4) · m",
        "### Turn 2 (id 5) · m",
    ]
