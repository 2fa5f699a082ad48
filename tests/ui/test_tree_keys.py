"""The conversation tree's keys in the app, against a loopback server: `e` edits a prompt into a new branch, `r`
regenerates an answer, `c` continues one cut short, Left/Right (h/l) switch branch, `f` forks, Ctrl+R regenerates
the last answer; each request carries the history of its branch, and the screen shows the branch."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Request
from chatterm.chat.session import ChatSession
from chatterm.conversation.continuation import CONTINUE_PROMPT
from chatterm.conversation.tree import Turn
from chatterm.ui.app import ChatApp
from chatterm.ui.widgets.edit_banner import EditBanner
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage
from tests.faultserver import FaultServer
from tests.scripted import ScriptedServer, cut_by_length, sse_script
from tests.ui.helpers import app_for, send, wait_for
from tests.ui.oracle import screen_text


def asked(server: ScriptedServer, number: int) -> list[Any]:
    """The messages request `number` (from 1) carried."""
    return [(m["role"], m["content"]) for m in server.requests[number - 1]["messages"] if m["role"] != "system"]


def shown(app: ChatApp) -> list[tuple[str, str, tuple[int, int] | None]]:
    """The conversation on screen: each prompt and answer, with the branch marker it shows."""
    found: list[tuple[str, str, tuple[int, int] | None]] = []
    for widget in app.chat_screen.conversation_view.selectable():
        if isinstance(widget, UserMessage):
            found.append(("user", widget.text, widget.branch))
        else:
            found.append(("answer", widget.answer, widget.branch))
    return found


async def answered(pilot: Pilot[None], app: ChatApp, count: int) -> None:
    """`count` answers on screen, all finished, none on its way."""
    screen = app.chat_screen

    def done() -> bool:
        messages = screen.messages()
        return len(messages) == count and all(m.finished for m in messages) and not screen.busy

    await wait_for(pilot, done)
    await pilot.pause()


async def talk(pilot: Pilot[None], app: ChatApp, *prompts: str) -> None:
    for number, prompt in enumerate(prompts, 1):
        await send(pilot, app, prompt)
        await answered(pilot, app, number)


async def select(pilot: Pilot[None], app: ChatApp, index: int) -> None:
    """Tab to the conversation and select its message `index` (of prompts and answers)."""
    view = app.chat_screen.conversation_view
    await pilot.press("tab", "home", *["down"] * index)
    await wait_for(pilot, lambda: view.selected is view.selectable()[index])


async def test_e_edits_a_prompt_into_a_new_branch_and_left_goes_back(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("One."), sse_script("Two."), sse_script("Edited.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await talk(pilot, app, "one", "two")
        screen = app.chat_screen
        screen.composer.insert("a draft")
        await select(pilot, app, 0)
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.composer.has_focus and bool(screen.query(EditBanner)))
        assert screen.composer.text == "one"
        assert "Editing message 1 · Enter sends as a new branch · Escape cancels" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.query(EditBanner))
        assert screen.composer.text == "a draft", "Escape gives the composer back what it held"
        await select(pilot, app, 2)
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.composer.text == "two")
        screen.composer.clear()
        await edit_first_into_more(pilot, app)
        assert asked(scripted, 3) == [("user", "one more")], "an edit of the first prompt asks with no history"
        assert shown(app) == [("user", "one more", (2, 2)), ("answer", "Edited.", None)]
        assert not screen.query(EditBanner) and screen.composer.text == "a draft"
        await select(pilot, app, 0)
        await pilot.press("left")
        await wait_for(pilot, lambda: len(screen.messages()) == 2)
        assert shown(app) == [
            ("user", "one", (1, 2)),
            ("answer", "One.", None),
            ("user", "two", None),
            ("answer", "Two.", None),
        ]
        view = screen.conversation_view
        assert view.has_focus and view.selected is view.selectable()[0], "the switched message stays selected"
        await pilot.press("l")
        await wait_for(pilot, lambda: shown(app)[0] == ("user", "one more", (2, 2)))
        assert len(shown(app)) == 2


async def test_r_regenerates_an_answer_beside_it_and_h_l_switch_between_them(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("One."), sse_script("Two."), sse_script("One again.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await talk(pilot, app, "one", "two")
        await select(pilot, app, 1)
        await pilot.press("r")
        await answered(pilot, app, 1)
        assert asked(scripted, 3) == [("user", "one")]
        assert shown(app) == [("user", "one", None), ("answer", "One again.", (2, 2))]
        await select(pilot, app, 1)
        await pilot.press("h")
        await wait_for(pilot, lambda: len(shown(app)) == 4)
        assert shown(app)[1] == ("answer", "One.", (1, 2)) and shown(app)[3] == ("answer", "Two.", None)
        await pilot.press("right")
        await wait_for(pilot, lambda: len(shown(app)) == 2)
        assert shown(app)[1] == ("answer", "One again.", (2, 2))
        await pilot.press("escape")
        await send(pilot, app, "three")
        await answered(pilot, app, 2)
        assert asked(scripted, 4) == [("user", "one"), ("assistant", "One again."), ("user", "three")]


async def test_c_continues_an_answer_cut_at_the_token_limit_as_one_answer(scripted: ScriptedServer) -> None:
    scripted.answers = [cut_by_length("The first half"), sse_script(" and the rest.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await talk(pilot, app, "go")
        screen = app.chat_screen
        assert screen.messages()[0].has_notice
        await select(pilot, app, 1)
        await pilot.press("c")
        await wait_for(pilot, lambda: len(scripted.requests) == 2)
        await answered(pilot, app, 1)
        assert asked(scripted, 2) == [("user", "go"), ("assistant", "The first half"), ("user", CONTINUE_PROMPT)]
        assert shown(app) == [("user", "go", None), ("answer", "The first half and the rest.", None)]
        assert not screen.messages()[0].has_notice
        assert screen.turns[-1].answer == "The first half and the rest."


async def test_turns_without_alternatives_are_marked_without_reading_their_prompts(
    scripted: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When an answer ends, every message on screen is marked with which of its alternatives it is. A turn with no
    sibling has none: its prompt is not read for it (a parse of a request that holds all the history before it, for
    every turn on screen, at the end of every answer of a long chat)."""
    scripted.answers = [sse_script(f"Answer {n}.") for n in range(1, 4)]
    app = app_for(base_url=scripted.url)
    async with app.run_test(size=(100, 30)) as pilot:
        await talk(pilot, app, "one", "two")
        read: list[Turn] = []
        prompt_of = ChatSession.prompt_of

        def reading(session: ChatSession, turn: Turn) -> str:
            read.append(turn)
            return prompt_of(session, turn)

        monkeypatch.setattr(ChatSession, "prompt_of", reading)
        await send(pilot, app, "three")
        await answered(pilot, app, 3)
        assert read == []
        assert [branch for _, _, branch in shown(app)] == [None] * 6


async def test_ctrl_r_regenerates_the_last_answer_when_nothing_failed(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("First."), sse_script("Second.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await talk(pilot, app, "q")
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: len(scripted.requests) == 2)
        await answered(pilot, app, 1)
        assert asked(scripted, 2) == asked(scripted, 1) == [("user", "q")]
        assert shown(app) == [("user", "q", None), ("answer", "Second.", (2, 2))]


async def test_f_forks_the_branch_up_to_the_selected_answer_into_a_session_of_its_own(
    scripted: ScriptedServer,
) -> None:
    scripted.answers = [sse_script("One."), sse_script("Two."), sse_script("Three.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await talk(pilot, app, "one", "two")
        first = app.session
        assert first is not None and first.path is not None
        await select(pilot, app, 1)
        await pilot.press("f")
        await wait_for(pilot, lambda: app.session is not first and app.session is not None)
        forked = app.session
        assert forked is not None and forked.path is not None
        await wait_for(pilot, lambda: forked.path is not None and forked.path.exists())
        assert forked.path != first.path
        assert len(load_recording(forked.path).interactions) == 1
        await answered(pilot, app, 1)
        assert [item[:2] for item in shown(app)] == [("user", "one"), ("answer", "One.")]
        await wait_for(pilot, lambda: "Forked from" in screen_text(app))
        text = screen_text(app)
        assert first.path.name in text and "Ctrl+O" in text and "Replay finished" not in text, "nothing was replayed"
        await send(pilot, app, "three")
        await answered(pilot, app, 2)
        assert asked(scripted, 3) == [("user", "one"), ("assistant", "One."), ("user", "three")]
        assert len(load_recording(first.path).interactions) == 2, "the session forked from is left as it was"


async def test_the_palette_s_tree_commands_act_on_the_last_message_they_apply_to(scripted: ScriptedServer) -> None:
    from chatterm.ui.commands import chat_commands

    scripted.answers = [sse_script("First."), sse_script("Second.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        names = [name for name, _, _ in chat_commands(app)]
        for name in ("Edit message", "Regenerate", "Continue answer", "Next branch", "Previous branch"):
            assert name in names
        assert "Fork into a new session" in names
        await talk(pilot, app, "q")
        await app.act_on_message("regenerate")
        await wait_for(pilot, lambda: len(scripted.requests) == 2)
        await answered(pilot, app, 1)
        await app.act_on_message("previous_branch")
        await wait_for(pilot, lambda: shown(app)[1] == ("answer", "First.", (1, 2)))
        await app.act_on_message("edit")
        await wait_for(pilot, lambda: app.chat_screen.composer.text == "q")
        assert isinstance(app.chat_screen.messages()[0], AssistantMessage)


async def test_an_answer_s_end_reads_as_many_recorded_requests_however_long_the_chat(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The markers of every message on screen are brought up to date when an answer ends; a turn without siblings
    needs no prompt read, and a prompt is read from its request (which holds the whole history before it) once."""
    parsed: list[bytes] = []
    parse = Request.json

    def counted(request: Request) -> Any:
        if threading.current_thread() is threading.main_thread():  # (not the session saver's thread)
            parsed.append(request.body)
        return parse(request)

    monkeypatch.setattr(Request, "json", counted)
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(80, 24)) as pilot:
        per_answer = []
        for number in range(1, 10):
            parsed.clear()
            await send(pilot, app, f"turn {number}")
            await answered(pilot, app, number)
            per_answer.append(len(parsed))
        assert per_answer[2:] == [per_answer[2]] * 7, f"requests parsed per answer: {per_answer}"


async def test_while_a_message_is_edited_the_footer_says_escape_cancels_the_edit(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("One.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(100, 24)) as pilot:
        await talk(pilot, app, "one")
        screen = app.chat_screen
        await select(pilot, app, 0)
        await pilot.press("e")
        await wait_for(pilot, lambda: screen.composer.has_focus and bool(screen.query(EditBanner)))
        await wait_for(pilot, lambda: "esc Cancel edit" in screen_text(app).splitlines()[-1])
        assert "Stop" not in screen_text(app).splitlines()[-1]
        await pilot.press("escape")
        await wait_for(pilot, lambda: not screen.query(EditBanner))
        await wait_for(pilot, lambda: "esc" not in screen_text(app).splitlines()[-1])


def branched_above_tools(path: Path) -> Path:
    """A session whose first prompt was edited: the first branch goes on to a turn of parallel tool calls and the turn
    that sends their results back; the second (active) is one plain turn."""
    from chatterm.cassette.model import Interaction, Recording, Request, Response
    from chatterm.cassette.write import render
    from tests.ui.test_tools import PARALLEL

    def plain(messages: list[Any], answer: str) -> Interaction:
        chunk = {"choices": [{"index": 0, "delta": {"content": answer}, "finish_reason": "stop"}]}
        body = f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n".encode()
        sent = json.dumps({"messages": messages}).encode()
        request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=sent)
        return Interaction(request, Response(200, {"content-type": ["text/event-stream"]}, body))

    first = [{"role": "user", "content": "first"}]
    before = [*first, {"role": "assistant", "content": "First."}]
    tools = []
    for interaction in load_recording(PARALLEL).interactions:
        assert interaction.request is not None
        payload = json.loads(interaction.request.body)
        payload["messages"] = [*before, *payload["messages"]]
        interaction.request.body = json.dumps(payload).encode()
        tools.append(interaction)
    edited = plain([{"role": "user", "content": "first, edited"}], "Edited.")
    path.write_bytes(render(Recording("vcr", [plain(first, "First."), *tools, edited])))
    return path


async def test_switching_branch_above_a_tool_turn_shows_each_result_once_under_its_call(tmp_path: Path) -> None:
    """The branch drawn below a switch shows a turn's tool results under the calls of the answer above them, once,
    however often the branch is switched to."""
    from tests.ui.test_tools import calls, replayed

    path = branched_above_tools(tmp_path / "branched.yaml")
    app = app_for(replay=path, speed="instant", save_sessions=False)
    pretty = json.dumps({"a": 2, "b": 3}, indent=2)
    async with app.run_test(size=(100, 40)) as pilot:
        await replayed(pilot, app)
        assert [item[:2] for item in shown(app)] == [("user", "first, edited"), ("answer", "Edited.")]
        for key in ("left", "right", "left"):
            await pilot.press("escape")  # (back to the composer, where `select` starts)
            await select(pilot, app, 0)
            await pilot.press(key)
            edited = key == "right"
            await wait_for(pilot, lambda: shown(app)[0][1] == ("first, edited" if edited else "first"))  # noqa: B023
            await answered(pilot, app, 1 if edited else 3)
            if not edited:
                assert calls(app) == [("add", pretty, ["5"]), ("multiply", pretty, ["6"])], key
                assert shown(app)[-1][:2] == ("answer", "The sum of 2 and 3 is 5, and the product is 6.")


async def test_export_whole_tree_in_the_palette_writes_every_branch_and_ctrl_e_the_one_shown(
    scripted: ScriptedServer,
) -> None:
    from chatterm import locations
    from tests.ui.test_palette import search

    scripted.answers = [sse_script("One."), sse_script("Two."), sse_script("One again.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(100, 30)) as pilot:
        await talk(pilot, app, "one", "two")
        await select(pilot, app, 1)
        await pilot.press("r")
        await answered(pilot, app, 1)
        await pilot.press("escape")
        names = await search(pilot, app, "export whole")
        assert names[0] == "Export whole tree", names
        await pilot.press("enter")
        exports = locations.data_dir() / "exports"
        await wait_for(pilot, lambda: exports.is_dir() and any(exports.glob("*-tree.md")))
        (tree,) = exports.glob("*-tree.md")
        text = tree.read_text()
        assert "<details>\n<summary>Branch 1 of 2</summary>" in text
        assert "<details open>\n<summary>Branch 2 of 2</summary>" in text
        assert text.index("One.") < text.index("two") < text.index("Two.") < text.index("One again."), "oldest first"
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: len(list(exports.iterdir())) == 2)
        (shown,) = [path for path in exports.iterdir() if path != tree]
        assert "<details" not in shown.read_text() and "One again." in shown.read_text()
        assert "Two." not in shown.read_text(), "Ctrl+E writes the branch shown"


def with_usage(script: Any, prompt: int, completion: int) -> Any:
    """`script` with a usage chunk before its end, as OpenAI sends one with `stream_options.include_usage`."""
    usage = {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    chunk = f"data: {json.dumps({'choices': [], 'usage': usage})}\n\n".encode()
    return [*script[:-1], (0.0, chunk), script[-1]]


async def test_the_status_line_shows_the_usage_of_the_branch_switched_to(scripted: ScriptedServer) -> None:
    """After a switch the status line went on showing the figures of the answer streamed last, not of the one on
    screen at the end of the conversation."""
    scripted.answers = [with_usage(sse_script(text), p, c) for text, p, c in [("One.", 11, 1), ("Two.", 22, 2)]]
    scripted.answers.append(with_usage(sse_script("One again."), 33, 3))
    app = app_for(scripted.url)
    async with app.run_test(size=(120, 24)) as pilot:
        status = app.chat_screen.status
        await talk(pilot, app, "one", "two")
        await select(pilot, app, 1)
        await pilot.press("r")
        await answered(pilot, app, 1)
        assert "prompt 33 · completion 3" in str(status.render())
        await select(pilot, app, 1)
        await pilot.press("h")
        await wait_for(pilot, lambda: len(shown(app)) == 4)
        await wait_for(pilot, lambda: "prompt 22 · completion 2" in str(status.render()))
        await pilot.press("right")
        await wait_for(pilot, lambda: len(shown(app)) == 2)
        await wait_for(pilot, lambda: "prompt 33 · completion 3" in str(status.render()))


async def edited_first(pilot: Pilot[None], app: ChatApp) -> None:
    """"one" sent and answered, then edited into "one more", answered in turn (`‹ 2/2 ›` on the prompt)."""
    await talk(pilot, app, "one")
    await edit_first_into_more(pilot, app)


async def edit_first_into_more(pilot: Pilot[None], app: ChatApp) -> None:
    """The first prompt, "one", edited into "one more" and sent; its answer waited for."""
    screen = app.chat_screen
    await select(pilot, app, 0)
    await pilot.press("e")
    await wait_for(pilot, lambda: screen.composer.text == "one" and screen.composer.has_focus)
    screen.composer.insert(" more")
    await pilot.press("enter")
    await answered(pilot, app, 1)


async def test_a_prompt_keeps_its_marker_while_an_answer_to_it_is_regenerated(scripted: ScriptedServer) -> None:
    """`r` under an edited prompt: the prompt's `‹ 2/2 ›` went missing until the new answer ended."""
    slow = sse_script("Slowly, " * 8, answer_cuts=range(8, 64, 8), gaps=[0.15])
    scripted.answers = [sse_script("One."), sse_script("Edited."), slow]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await edited_first(pilot, app)
        screen = app.chat_screen
        await select(pilot, app, 1)
        await pilot.press("r")
        await wait_for(pilot, lambda: screen.streaming and "Slowly" in screen.messages()[-1].answer)
        assert shown(app)[0] == ("user", "one more", (2, 2)), "the prompt says which of its alternatives it is"
        await answered(pilot, app, 1)
        assert shown(app) == [("user", "one more", (2, 2)), ("answer", "Slowly, " * 8, (2, 2))]


async def test_switching_prompts_back_brings_the_answer_last_viewed_under_it(scripted: ScriptedServer) -> None:
    """Under an edited prompt with a regenerated answer, the answer chosen there came back as the newest after a
    switch to the other prompt and back, not as it was left."""
    scripted.answers = [sse_script("One."), sse_script("Edited."), sse_script("Edited again.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        await edited_first(pilot, app)
        await select(pilot, app, 1)
        await pilot.press("r")
        await answered(pilot, app, 1)
        assert shown(app)[1] == ("answer", "Edited again.", (2, 2))
        await select(pilot, app, 1)
        await pilot.press("left")
        await wait_for(pilot, lambda: shown(app)[1] == ("answer", "Edited.", (1, 2)))
        await pilot.press("up", "left")
        await wait_for(pilot, lambda: shown(app)[0] == ("user", "one", (1, 2)))
        await pilot.press("right")
        await wait_for(pilot, lambda: shown(app)[0] == ("user", "one more", (2, 2)))
        assert shown(app)[1] == ("answer", "Edited.", (1, 2)), "the answer as it was left"
