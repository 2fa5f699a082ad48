"""`chatterm show` on a branched conversation: `--json` places every turn in the tree, plain `show` prints the
active branch, `--all` every branch with its path."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chatterm.cli.main import main
from tests.branching_fake import FakeProvider, answer, fake_session
from tests.conftest import CORPUS


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
    assert "## Turn 2 · m · branch 1/2" in out
    assert "1 other branch: `chatterm show --all` prints every branch" in out


async def test_show_all_prints_every_branch_with_its_path(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "s.yaml"
    await branched_session(path)
    out = show(capsys, str(path), "--all")
    assert "## Branch 1 > 2 (active)" in out and "## Branch 1 > 3 > 4" in out
    assert out.count("[user] one") == 1, "a turn two branches share is printed once"
    assert out.index("[user] two\n") < out.index("## Branch 1 > 3 > 4") < out.index("[user] two, edited")
    assert "[user] three" in out
