"""A chat's system prompt, parameters, effort key and roles as the user sets them in the app, proved by the request
body the loopback server receives."""

from __future__ import annotations

from textual.pilot import Pilot
from textual.widgets import Input, Label, OptionList, TextArea

from chatterm import locations
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.chat import ChatScreen
from chatterm.ui.screens.parameters import ParametersDialog
from chatterm.ui.screens.system_prompt import SystemPromptDialog
from chatterm.ui.widgets.system_prompt import SystemPromptBar
from tests.faultserver import FaultServer
from tests.ui.helpers import app_for, send, wait_for
from tests.ui.oracle import screen_text
from tests.ui.test_palette import search

HOSTILE = "Be brief [bold]and[/] plain.\nNever use [/INST] tags."


async def answered(pilot: Pilot[None], app: ChatApp, count: int) -> None:
    screen = app.chat_screen
    await wait_for(pilot, lambda: len(screen.messages()) == count and screen.messages()[-1].finished)


def bar(app: ChatApp) -> SystemPromptBar:
    return app.chat_screen.query_one(SystemPromptBar)


async def test_a_system_prompt_written_in_the_app_goes_with_the_next_request(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert not bar(app).display  # (no system prompt: nothing shown)
        names = await search(pilot, app, "system prompt")
        assert names[0] == "System prompt…", names
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, SystemPromptDialog))
        app.screen.query_one(TextArea).insert(HOSTILE)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert bar(app).display and bar(app).collapsed
        assert bar(app).text == HOSTILE
        await send(pilot, app, "hi")
        await answered(pilot, app, 1)
        assert faults.seen[-1].body["messages"][0] == {"role": "system", "content": HOSTILE}


async def test_the_parameters_dialog_shows_every_hint_whole_at_80_columns(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        app.action_parameters()
        await wait_for(pilot, lambda: isinstance(app.screen, ParametersDialog))
        await pilot.pause()
        shown = screen_text(app)
        for field in app.screen.query(Input):
            assert field.placeholder and field.placeholder in shown, field.placeholder


async def test_parameters_set_in_the_app_go_with_the_next_request_and_show_in_the_status_line(
    faults: FaultServer,
) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        names = await search(pilot, app, "parameters")
        assert names[0] == "Parameters…", names
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ParametersDialog))
        dialog = app.screen
        dialog.query_one("#temperature", Input).value = "7"
        dialog.query_one("#max_tokens", Input).value = "50"
        await pilot.press("enter")
        problem = dialog.query_one("#problem", Label)
        await wait_for(pilot, lambda: "Temperature: should be a number from 0 to 2, not 7" in str(problem.render()))
        dialog.query_one("#temperature", Input).value = "0.3"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ChatScreen))
        assert "temp 0.3 · max 50" in app.chat_screen.status.line(120)
        await send(pilot, app, "hi")
        await answered(pilot, app, 1)
        body = faults.seen[-1].body
        assert (body["temperature"], body["max_tokens"]) == (0.3, 50)


async def test_the_effort_key_changes_the_next_request_s_body(faults: FaultServer) -> None:
    settings = load_settings()
    app = ChatApp(settings, choose(settings, base_url=faults.url("ok"), model="claude", api="anthropic"))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        assert "effort" not in app.chat_screen.status.line(120)
        await pilot.press("ctrl+g", "ctrl+g")
        assert "effort low" in app.chat_screen.status.line(120)
        names = await search(pilot, app, "effort")
        assert names[0] == "Reasoning effort: low", names
        await pilot.press("escape")
        await send(pilot, app, "hi")
        await answered(pilot, app, 1)
        assert faults.seen[-1].body["thinking"] == {"type": "enabled", "budget_tokens": 1024}
        await pilot.press("ctrl+g", "ctrl+g", "ctrl+g")  # medium, high, then off again
        await send(pilot, app, "again")
        await answered(pilot, app, 2)
        assert "thinking" not in faults.seen[-1].body


async def test_the_effort_key_comes_back_to_the_provider_s_default(faults: FaultServer) -> None:
    """After high the key goes back to asking no effort at all (Gemini's own default; off is a budget of 0)."""
    settings = load_settings()
    app = ChatApp(settings, choose(settings, base_url=faults.url("ok"), model="gemini-model", api="gemini"))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await pilot.press("ctrl+g")
        assert "effort off" in app.chat_screen.status.line(120)
        await send(pilot, app, "hi")
        await answered(pilot, app, 1)
        assert "thinkingBudget': 0" in str(faults.seen[-1].body)
        await pilot.press("ctrl+g", "ctrl+g", "ctrl+g", "ctrl+g")  # low, medium, high, then the default
        assert "effort" not in app.chat_screen.status.line(120)
        names = await search(pilot, app, "effort")
        assert names[0] == "Reasoning effort: default", names
        await pilot.press("escape")
        await send(pilot, app, "again")
        await answered(pilot, app, 2)
        assert "thinkingBudget" not in str(faults.seen[-1].body)


async def test_the_effort_key_cycles_over_a_profile_s_own_effort(faults: FaultServer) -> None:
    """A profile that sets an effort is the chat's default: the key goes off, low, medium, high and back to it, each
    step sent and shown, the profile's told apart from one the chat chose."""
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[profiles.deep]\nbase_url = "{faults.url("ok")}"\nmodel = "claude"\napi = "anthropic"\n'
        'local = true\neffort = "high"\n',
        encoding="utf-8",
    )
    settings = load_settings()
    app = ChatApp(settings, choose(settings, profile="deep"))
    budgets = []
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        shown = [app.chat_screen.status.line(120).split("│")[1].strip()]
        for turn in range(1, 7):
            await send(pilot, app, f"turn {turn}")
            await answered(pilot, app, turn)
            budgets.append(faults.seen[-1].body.get("thinking", {}).get("budget_tokens", 0))
            await pilot.press("ctrl+g")
            shown.append(app.chat_screen.status.line(120).split("│")[1].strip())
        names = await search(pilot, app, "effort")
        assert names[0] == "Reasoning effort: off", names
    assert shown == [
        "effort high (profile)", "effort off", "effort low", "effort medium", "effort high", "effort high (profile)",
        "effort off",
    ]
    high = budgets[0]
    assert budgets == [high, 0, 1024, budgets[3], high, high] and 1024 < budgets[3] < high


def write_roles(base_url: str) -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f'[profiles.near]\nbase_url = "{base_url}"\nmodel = "near-model"\nlocal = true\n\n'
        '[roles.brief]\nsystem = "Be brief."\ntop_p = 0.5\n\n'
        '[roles.poet]\nsystem = "Answer in verse."\nprofile = "near"\nmodel = "poet-model"\neffort = "high"\n',
        encoding="utf-8",
    )


async def test_roles_from_the_command_line_and_the_palette(faults: FaultServer) -> None:
    write_roles(faults.url("ok"))
    app = app_for(faults.url("ok"), role="brief")
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        await wait_for(pilot, lambda: bar(app).display)
        assert bar(app).text == "Be brief."
        await send(pilot, app, "hi")
        await answered(pilot, app, 1)
        body = faults.seen[-1].body
        assert (body["messages"][0]["content"], body["top_p"]) == ("Be brief.", 0.5)
        names = await search(pilot, app, "role")
        assert names[0] == "Role…", names
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "RoleDialog")
        rows = [str(option.prompt) for option in app.screen.query_one(OptionList).options]
        assert [row[:8] for row in rows] == ["● brief ", "  poet  "]  # (the chat's role marked)
        await pilot.press("down", "enter")  # brief, then poet
        await wait_for(pilot, lambda: app.role == "poet" and bar(app).text == "Answer in verse.")
        assert app.chat_screen.status.line(120).startswith("near · poet-model  │  effort high")
        await send(pilot, app, "a poem")
        await answered(pilot, app, 2)
        body = faults.seen[-1].body
        assert body["model"] == "poet-model" and body["messages"][0]["content"] == "Answer in verse."
        assert "top_p" not in body  # (the poet sets none: the brief's is not the chat's any more)


async def test_a_session_opened_again_takes_back_its_system_prompt_and_parameters(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(120, 30)) as pilot:
        await wait_for(pilot, lambda: app.session is not None)
        session = app.session
        assert session is not None
        app._system_prompt("Be brief.")
        await pilot.press("ctrl+g")  # effort off
        await send(pilot, app, "hi")
        await answered(pilot, app, 1)
        path = session.path
        assert path is not None
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: app.session is not None and app.session is not session)
        assert not bar(app).display and "effort" not in app.chat_screen.status.line(120)
        await app._open_session(path)
        await wait_for(pilot, lambda: bar(app).display and bar(app).text == "Be brief.")
        assert "effort off" in app.chat_screen.status.line(120)
        await send(pilot, app, "again")
        await answered(pilot, app, 2)
        body = faults.seen[-1].body
        assert body["messages"][0] == {"role": "system", "content": "Be brief."}
        assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "user"]
