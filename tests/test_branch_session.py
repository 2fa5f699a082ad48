"""The headless session on a conversation tree: edit, regenerate, continue and switch branch each send the branch's
history, and the session file keeps the tree and the active branch (a branch switch as a short note)."""

from __future__ import annotations

from pathlib import Path

import vcr

from chatterm.cassette.branches import recorded_tree
from chatterm.cassette.load import load_recording, load_tail
from chatterm.cassette.model import Switch
from chatterm.conversation.continuation import CONTINUE_PROMPT, continuation_messages
from chatterm.conversation.reply import Reply
from tests.branching_fake import FakeProvider, answer, fake_session


def user(text: str) -> dict[str, str]:
    return {"role": "user", "content": text}


def assistant(text: str) -> dict[str, str]:
    return {"role": "assistant", "content": text}


async def test_an_edit_asks_from_the_edited_prompt_and_keeps_the_old_branch(tmp_path: Path) -> None:
    provider = FakeProvider()
    session = fake_session(provider, tmp_path / "s.yaml")
    for prompt in ("one", "two"):
        session.add_prompt(prompt)
        await answer(session)
    second = session.tree.turns()[1].id
    session.edit(second, "two, edited")
    await answer(session)
    session.add_prompt("three")
    await answer(session)
    await session.aclose()
    assert provider.requests[2] == [user("one"), assistant("answer 1"), user("two, edited")]
    assert provider.requests[3] == [*provider.requests[2], assistant("answer 3"), user("three")]
    assert session.tree.position(session.tree.turns()[1].id) == (2, 2)
    assert [len(branch) for branch in session.tree.branches()] == [2, 3]


async def test_a_regenerated_answer_is_a_sibling_asked_with_the_same_messages(tmp_path: Path) -> None:
    provider = FakeProvider()
    session = fake_session(provider, None)
    session.add_prompt("one")
    await answer(session)
    first = session.tree.active
    assert first is not None
    session.regenerate(first)
    await answer(session)
    assert provider.requests[1] == provider.requests[0] == [user("one")]
    assert session.tree.siblings(first) == [first, session.tree.active]
    assert session.conversation.messages == [user("one"), assistant("answer 2")]


async def test_a_continuation_is_asked_with_the_partial_answer_and_read_joined_to_it(tmp_path: Path) -> None:
    provider = FakeProvider()
    session = fake_session(provider, tmp_path / "s.yaml")
    session.add_prompt("one")
    provider.cut_next = True
    await answer(session)
    (turn,) = session.tree.turns()
    assert session.answer_of(turn).error is not None, "cut short"
    session.continue_answer(turn.last)
    await answer(session)
    session.add_prompt("two")
    await answer(session)
    await session.aclose()
    assert provider.requests[1] == [user("one"), assistant("answer 1"), user(CONTINUE_PROMPT)]
    assert provider.requests[2] == [user("one"), assistant("answer 1answer 2"), user("two")]
    first, _ = session.tree.turns()
    assert len(first.ids) == 2 and session.answer_of(first).content == "answer 1answer 2"
    saved = recorded_tree(load_recording(tmp_path / "s.yaml"))
    assert saved.exchanges[first.ids[1]].meta["continues"] == first.ids[0], "the seam is kept in the file"
    assert saved.tree.turns() == session.tree.turns()


def test_a_continuation_on_anthropic_is_a_prefill_of_the_partial_answer() -> None:
    partial = Reply(content_parts=["partial ", "answer "])
    asked = [user("one")]
    assert continuation_messages(asked, partial, "anthropic") == [user("one"), assistant("partial answer")]
    assert continuation_messages(asked, partial, "openai")[1:] == [assistant("partial answer "), user(CONTINUE_PROMPT)]


async def test_a_branch_switch_is_saved_as_a_note_and_the_next_prompt_follows_the_chosen_branch(
    tmp_path: Path,
) -> None:
    provider = FakeProvider()
    path = tmp_path / "s.yaml"
    session = fake_session(provider, path)
    session.add_prompt("one")
    await answer(session)
    first = session.tree.active
    assert first is not None
    session.edit(first, "one, edited")
    await answer(session)
    assert session.saver is not None and session.saver.flush()
    before = path.read_bytes()
    session.switch_branch(first)
    assert session.saver.flush()
    after = path.read_bytes()
    assert after.startswith(before.removesuffix(b"version: 1\n")), "the items are kept as they were"
    assert after.endswith(b"x_chatterm:\n  switches:\n  - ['1', 2]\nversion: 1\n")
    assert recorded_tree(load_recording(path)).tree.active == first
    session.add_prompt("two")
    await answer(session)
    await session.aclose()
    assert provider.requests[-1] == [user("one"), assistant("answer 1"), user("two")]
    with vcr.use_cassette(str(path), record_mode="none") as cassette:
        assert len(cassette) == 3


async def test_each_exchange_is_saved_with_its_id_and_parent(tmp_path: Path) -> None:
    provider = FakeProvider()
    path = tmp_path / "s.yaml"
    session = fake_session(provider, path)
    for prompt in ("one", "two"):
        session.add_prompt(prompt)
        await answer(session)
    await session.aclose()
    text = path.read_text()
    assert "    x_chatterm:\n      id: '1'\n      parent: null\n" in text
    assert "    x_chatterm:\n      id: '2'\n      parent: '1'\n" in text


async def test_an_opened_session_goes_on_in_its_tree(tmp_path: Path) -> None:
    provider = FakeProvider()
    path = tmp_path / "s.yaml"
    session = fake_session(provider, path)
    session.add_prompt("one")
    await answer(session)
    first = session.tree.active
    assert first is not None
    session.regenerate(first)
    await answer(session)
    session.switch_branch(first)
    await session.aclose()

    again = fake_session(provider, tmp_path / "t.yaml")
    again.load_history(load_recording(path))
    assert again.tree.branch() == [first]
    assert again.conversation.messages == [user("one"), assistant("answer 1")]
    again.add_prompt("two")
    await answer(again)
    await again.aclose()
    assert provider.requests[-1] == [user("one"), assistant("answer 1"), user("two")]
    reopened = recorded_tree(load_recording(tmp_path / "t.yaml")).tree
    assert reopened.branches() == [[first, reopened.branch()[-1]], ["2"]]


async def test_a_retried_attempt_gives_its_place_to_the_attempt_that_answers(tmp_path: Path) -> None:
    provider = FakeProvider()
    path = tmp_path / "s.yaml"
    session = fake_session(provider, path)
    session.add_prompt("one")
    await answer(session)
    provider.overloaded = 1
    session.add_prompt("two")
    await answer(session)
    await session.aclose()
    recording = load_recording(path)
    assert [i.meta["id"] for i in recording.interactions] == ["1", "2", "3"]
    assert [i.meta["parent"] for i in recording.interactions] == [None, "1", "1"]
    assert session.tree.branch() == ["1", "3"]
    assert recorded_tree(recording).tree.branch() == ["1", "3"]


async def test_a_long_branched_session_opens_on_the_tail_of_its_active_branch(tmp_path: Path) -> None:
    provider = FakeProvider()
    path = tmp_path / "s.yaml"
    session = fake_session(provider, path)
    for number in range(12):
        provider.overloaded = 1 if number == 10 else 0  # (an attempt retried on the way: ids 11 and 12)
        session.add_prompt(f"first {number}")
        await answer(session)
    first_leaf = session.tree.active
    assert first_leaf == "13"
    session.edit(session.tree.branch()[4], "edited")  # a second branch from the fifth turn, longer than the first
    await answer(session)
    for number in range(12):
        session.add_prompt(f"second {number}")
        await answer(session)
    session.switch_branch(first_leaf)
    await session.aclose()
    tail, total = load_tail(path, 3)
    assert total == 13, "the interactions of the active branch"
    assert [i.meta["id"] for i in tail.interactions] == ["11", "12", "13"]
    assert tail.interactions[-1].request is not None and b"first 11" in tail.interactions[-1].request.body
    assert tail.switches == [Switch("13", 26)]
    assert recorded_tree(load_recording(path)).active()[-2:] == recorded_tree(tail).active()
