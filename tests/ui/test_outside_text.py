"""Text from outside (providers, recordings, config files, the user) in the app: shown as it is, never read as
Rich or Textual markup, never able to crash a widget; and themes that cannot be used are named and skipped."""

from __future__ import annotations

import ast
import os
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import DataTable, OptionList

from chatterm import locations
from chatterm.decode.safejson import MAX_DEPTH
from chatterm.settings.remembered import load_state, save_state
from chatterm.terminal_text import MESSAGE
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.profiles import ProfileScreen
from chatterm.ui.screens.sessions import SessionsScreen
from chatterm.ui.themes import MAX_THEME
from tests.faultserver import ANSWER, DEEP, DONE, MARKUP, MARKUP_MODELS, FaultServer, chunk
from tests.ui.helpers import app_for, send, settled, shown_text, wait_for

UI = Path(__file__).resolve().parents[2] / "chatterm" / "ui"


def notices(app: ChatApp) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def screen_text(pilot: Any) -> str:
    return shown_text(await settled(pilot))


def write_config(text: str) -> None:
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)


async def answered(pilot: Any, app: ChatApp, prompt: str) -> None:
    count = len(app.chat_screen.messages())
    await send(pilot, app, prompt)
    await wait_for(pilot, lambda: len(app.chat_screen.messages()) > count and app.chat_screen.messages()[-1].finished)


async def test_a_warning_toast_shows_a_malformed_chunk_holding_markup_as_it_is(faults: FaultServer) -> None:
    app = app_for(faults.url("markup"))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await answered(pilot, app, "hi")
        assert app.chat_screen.messages()[-1].answer == ANSWER
        shown = await screen_text(pilot)  # (the toast wraps after "not")
        assert "skipped a malformed chunk: '[/INST] [/] [bold]not" in shown and "bold[/bold] [link=" in shown
        assert app.is_running


async def test_sessions_whose_prompts_hold_markup_are_listed_filtered_and_opened(faults: FaultServer) -> None:
    prompt = "[INST] say hi [/INST] [/] [bold]x"
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await answered(pilot, app, prompt)
        assert app.session is not None and app.session.saver is not None and app.session.saver.flush()
        (locations.sessions_dir() / "[link=javascript:x]broken.yaml").write_text("interactions: [")
        for _ in range(2):  # (every Ctrl+O crashed)
            await pilot.press("ctrl+o")
            await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded)
            shown = await screen_text(pilot)
            assert prompt in shown and "⚠ [link=javascript:x]broken.yaml: canno…" in shown
            await pilot.press(*"[/INST]")
            table = app.screen.query_one(DataTable)
            await wait_for(pilot, lambda: table.row_count == 1)  # noqa: B023
            assert prompt in await screen_text(pilot)
            await pilot.press("escape")
            await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen))
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, SessionsScreen) and app.screen.loaded)
        await pilot.press(*"broken", "enter")  # a session that cannot be opened: said in a toast
        await wait_for(pilot, lambda: any("[link=javascript:x]broken.yaml" in n for n in notices(app)))
        assert "[link=javascript:x]broken.yaml" in await screen_text(pilot)
        await pilot.press(*["backspace"] * 6, *"[/INST]", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, SessionsScreen))
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert prompt in await screen_text(pilot)


async def test_model_ids_holding_markup_are_listed_and_chosen(faults: FaultServer) -> None:
    write_config(
        f'default_profile = "mine"\n[profiles.mine]\nbase_url = "{faults.url("models-markup")}"\n'
        'model = "fault-model"\nlocal = true\n'
    )
    app = app_for()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        await app.action_switch_model()
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        shown = await screen_text(pilot)
        assert all(model in shown for model in MARKUP_MODELS), shown
        options = app.screen.query_one(OptionList)
        options.highlighted = sorted(MARKUP_MODELS).index("[/]")
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.choice.endpoint.model == "[/]")
        shown = await screen_text(pilot)
        assert "Now answering: mine · [/]" in shown and "mine · [/]  │" in shown
        await answered(pilot, app, "hi")
        assert faults.seen[-1].body["model"] == "[/]"


async def test_profile_and_model_names_holding_markup_in_the_config_file(faults: FaultServer) -> None:
    write_config(
        f'[profiles."[/INST]"]\nbase_url = "{faults.url("ok")}"\nmodel = "[bold]model[/]"\nlocal = true\n\n'
        '[profiles."[/]nokey"]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "[/]"\napi_key_env = "NO_KEY_[/]"\n'
    )
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(120, 40), notifications=True) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, ProfileScreen))
        shown = await screen_text(pilot)
        assert "[/INST]" in shown and "[bold]model[/]" in shown and "[/]nokey" in shown and "NO_KEY_[/]" in shown
        screen = app.screen
        assert isinstance(screen, ProfileScreen)
        screen._choose("[/]nokey")  # no key: said in a toast
        await wait_for(pilot, lambda: any("NO_KEY_[/]" in n for n in notices(app)))
        screen._choose("[/INST]")
        await wait_for(pilot, lambda: app.choice.profile == "[/INST]")
        shown = await screen_text(pilot)
        assert "Now answering: [/INST] · [bold]model[/]" in shown and "[/INST] · [bold]model[/]  │" in shown
        await answered(pilot, app, "hi")
        assert faults.seen[-1].body["model"] == "[bold]model[/]"


async def test_user_text_and_answers_holding_markup_are_shown_as_they_are(faults: FaultServer) -> None:
    app = app_for(faults.url("ok"))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await answered(pilot, app, MARKUP)
        assert MARKUP in await screen_text(pilot)
        app.chat_screen.status.set_endpoint("[/]", "[bold]m")
        await app.chat_screen.info(MARKUP)
        shown = await screen_text(pilot)
        assert "[/] · [bold]m" in shown and shown.count(MARKUP) == 2


# -- deep JSON ----------------------------------------------------------------------------------------------------


async def test_a_line_nested_too_deeply_is_skipped_with_a_warning_and_the_answer_goes_on(faults: FaultServer) -> None:
    app = app_for(faults.url("deep"))
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await answered(pilot, app, "hi")
        message = app.chat_screen.messages()[-1]
        assert message.answer == ANSWER and not message.has_notice
        assert notices(app) == [f"skipped a chunk nested more than {MAX_DEPTH} levels deep"]


@pytest.mark.parametrize("speed", ["instant", "4x"])
async def test_a_replay_holding_a_line_nested_too_deeply_shows_the_rest(tmp_path: Path, speed: str) -> None:
    capture = tmp_path / "deep.sse"
    capture.write_bytes(chunk("Hello") + b"data: " + DEEP + b"\n\n" + chunk(" world", finish="stop") + DONE)
    app = app_for(replay=capture, speed=speed)
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and app.chat_screen.messages()[-1].finished)
        assert app.chat_screen.messages()[-1].answer == "Hello world"
        assert "Hello world" in await screen_text(pilot)


# -- themes -------------------------------------------------------------------------------------------------------


def user_theme(name: str, text: str) -> Path:
    themes = locations.user_themes_dir()
    themes.mkdir(parents=True, exist_ok=True)
    path = themes / name
    path.write_text(text)
    return path


@pytest.mark.parametrize(
    "text",
    [
        'name = "bad"\nprimary = "#zzzzzz"\n',
        'name = "bad"\nprimary = "#123456"\nvariables = { block-cursor-foreground = "zz;;" }\n',
        'name = "bad"\nprimary = "#123456"\nbackground = "not a colour"\n',
        'name = "bad"\nprimary = "#123456"\n[variables]\n"block-cursor-foreground" = "notacolour"\n',
        'name = "bad"\nprimary = "#123456"\n[variables]\n"button-focus-text-style" = "#123456"\n',
    ],
    ids=["bad-primary", "bad-variable", "bad-background", "variable-not-a-colour", "variable-not-a-style"],
)
async def test_a_theme_that_cannot_be_used_is_named_and_skipped(text: str) -> None:
    path = user_theme("bad.toml", text)
    user_theme("[link=javascript:x]odd.toml", 'name = "[/]"\nprimary = "#123456"\n')
    user_theme("good.toml", 'name = "good"\nprimary = "#123456"\n')
    app = app_for()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        assert "bad" not in app.available_themes and "[/]" not in app.available_themes
        assert "good" in app.available_themes
        shown = notices(app)
        assert any(str(path) in n for n in shown), shown
        assert any("[link=javascript:x]odd.toml" in n and "name" in n for n in shown), shown
        app.theme = "good"
        await pilot.pause()
        assert "[link=javascript:x]odd.toml" in await screen_text(pilot)


BAD_THEMES = {
    "bad-colour": 'name = "bad"\nprimary = "#zzzzzz"\n',
    "bad-variable": 'name = "bad"\nprimary = "#123456"\n[variables]\n"block-cursor-foreground" = "notacolour"\n',
}


@pytest.mark.parametrize("text", BAD_THEMES.values(), ids=BAD_THEMES.keys())
async def test_a_remembered_theme_that_no_longer_loads_falls_back_to_the_configured_one(text: str) -> None:
    save_state(theme="bad")
    user_theme("bad.toml", text)
    write_config('theme = "chatterm-light"\n')
    for _ in range(2):  # (the choice was remembered: every start crashed)
        app = app_for()
        async with app.run_test(size=(120, 36), notifications=True) as pilot:
            await pilot.pause()
            assert app.theme == "chatterm-light"
            said = [n for n in notices(app) if "remembered theme" in n]
            assert len(said) == 1 and "'bad'" in said[0] and "chatterm-light" in said[0], notices(app)
            assert "remembered theme" in await screen_text(pilot)
    assert load_state()["theme"] == "bad", "a choice the user made is not forgotten because a file broke"


@pytest.mark.timeout(30)  # (a FIFO read would wait for ever, before the first frame)
async def test_only_regular_files_are_read_in_the_themes_folder() -> None:
    themes = locations.user_themes_dir()
    themes.mkdir(parents=True)
    os.mkfifo(themes / "fifo.toml")
    (themes / "device.toml").symlink_to("/dev/zero")  # (refused before it is opened)
    (themes / "dir.toml").mkdir()
    big = user_theme("big.toml", 'name = "big"\nprimary = "#123456"\n' + "#" * (MAX_THEME + 1) + "\n")
    user_theme("good.toml", 'name = "good"\nprimary = "#123456"\n')
    app = app_for()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        assert "good" in app.available_themes and "big" not in app.available_themes
        shown = notices(app)
        for name, words in [("fifo", "named pipe"), ("device", "device"), ("dir", "directory"), ("big", "larger")]:
            said = [n for n in shown if str(themes / f"{name}.toml") in n]
            assert len(said) == 1 and words in said[0] and "skipped" in said[0], (name, shown)
    assert (themes / "fifo.toml").is_fifo() and big.stat().st_size > MAX_THEME


@pytest.mark.parametrize(
    "text",
    [
        'name = "long"\nprimary = "' + "z" * 200_000 + '"\n',
        'name = "long"\nprimary = "#123456"\n[variables]\n"block-cursor-foreground" = "' + "z" * 200_000 + '"\n',
    ],
    ids=["colour", "variable"],
)
async def test_a_long_value_from_a_theme_file_is_shortened_in_its_notice(text: str) -> None:
    path = user_theme("long.toml", text)
    app = app_for()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        (said,) = [n for n in notices(app) if str(path) in n]
        assert len(said) <= MESSAGE and "\u2026" in said and said.endswith("; skipped"), said[:400]


async def test_a_configured_theme_whose_variable_cannot_be_used_gives_way_to_the_default() -> None:
    path = user_theme("bad.toml", BAD_THEMES["bad-variable"])
    write_config('theme = "bad"\n')
    app = app_for()
    async with app.run_test(size=(120, 36), notifications=True) as pilot:
        await pilot.pause()
        assert app.theme == "chatterm-dark"
        shown = notices(app)
        named = [n for n in shown if str(path) in n]
        assert len(named) == 1 and "block-cursor-foreground" in named[0] and "skipped" in named[0], shown
        assert any("'bad'" in n and "using 'chatterm-dark'" in n for n in shown), shown


# -- the audit ----------------------------------------------------------------------------------------------------

TEXT_ARGUMENTS: dict[str, tuple[int, ...] | None] = {
    "Label": (0,),
    "Static": (0,),
    "Button": (0,),
    "Option": (0,),
    "DiscoveryHit": (0,),
    "Hit": (1,),
    "add_column": (0,),
    "add_columns": None,
    "add_row": None,
    "highlight": (0,),
}
"""Calls that read a `str` as markup, and which of their positional arguments are text (None: all of them)."""
TEXT_KEYWORDS = {"help", "label", "prompt", "title", "renderable", "content"}
TEXT_ATTRIBUTES = {"title", "border_title", "border_subtitle", "sub_title", "placeholder", "label", "tooltip"}
SAFE_CALLS = {"plain", "escaped", "highlight"}
"""chatterm.ui.plain's helpers (`highlight(matcher, text)` reads its text as plain text)."""


def _name(node: ast.expr) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _is_safe(node: ast.expr) -> bool:
    """A literal, or text made plain by `chatterm.ui.plain`."""
    if isinstance(node, ast.Constant):
        return True
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in SAFE_CALLS:
        return True
    if isinstance(node, ast.Call) and _name(node.func) == "Group":  # (Rich's: plain parts make a plain whole)
        return all(_is_safe(part) for part in node.args)
    return isinstance(node, ast.IfExp) and _is_safe(node.body) and _is_safe(node.orelse)


def _builds_text(node: ast.expr) -> bool:
    """Visibly a string built at run time (an f-string, a concatenation, a call's result)."""
    return isinstance(node, (ast.JoinedStr, ast.BinOp, ast.Call)) and not _is_safe(node)


def _text_arguments(call: ast.Call) -> list[ast.expr]:
    name = _name(call.func)
    if any(k.arg == "markup" and isinstance(k.value, ast.Constant) and k.value.value is False for k in call.keywords):
        return []
    if name == "update":  # (a widget's, or a dict's or a set's: only text visibly built at run time is looked at)
        return [arg for arg in call.args if _builds_text(arg)]
    if name not in TEXT_ARGUMENTS or (name == "highlight" and isinstance(call.func, ast.Name)):
        return []
    positions = TEXT_ARGUMENTS[name]
    args = [arg for number, arg in enumerate(call.args) if positions is None or number in positions]
    return [*args, *(k.value for k in call.keywords if k.arg in TEXT_KEYWORDS)]


def markup_risks(source: str) -> list[tuple[int, str]]:
    """Where text that is not a literal could be read as markup: a notification not made through
    `chatterm.ui.plain.notify`, text given to a widget, a palette hit or a DataTable, or assigned to a title, that
    is not a literal nor made plain by `chatterm.ui.plain`."""
    risks: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and node.attr == "notify" and isinstance(node.ctx, ast.Load):
            risks.append((node.lineno, "a notification not sent through chatterm.ui.plain.notify"))
        elif isinstance(node, ast.Call):
            for arg in _text_arguments(node):
                if not _is_safe(arg) and not isinstance(arg, ast.Starred):
                    risks.append((arg.lineno, f"{_name(node.func)}() is given text that may be markup"))
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Attribute) and target.attr in TEXT_ATTRIBUTES and not _is_safe(node.value):
                    risks.append((node.lineno, f".{target.attr} is given text that may be markup"))
    return sorted(risks)


def test_no_text_from_outside_can_reach_a_widget_as_markup() -> None:
    found = []
    for path in sorted(UI.rglob("*.py")):
        if path.name == "plain.py":
            continue
        found += [f"{path.relative_to(UI.parent)}:{line}: {what}" for line, what in markup_risks(path.read_text())]
    assert not found, "\n".join(found)


def test_the_audit_finds_what_it_looks_for() -> None:
    risky = """
self.notify(f"saved {name}")
self.call_from_thread(self.notify, message)
yield Label(title)
table.add_row(info.title, plain(info.date))
pane.title = f"{name}"
Option(model, id=model)
yield Hit(score, matcher.highlight(name), callback, help=text)
label.update(f"{count} of {total}")
"""
    assert [line for line, _ in markup_risks(risky)] == [2, 3, 4, 5, 6, 7, 8, 8, 8, 9]
    safe = """
notify(self, f"saved {name}")
yield Label("Sessions")
table.add_row(plain(info.title), plain(str(info.turns)))
pane.title = escaped(f"{name}")
Option(plain(model), id=model)
Static("", markup=False)
yield Hit(score, highlight(matcher, name), callback, text=name, help=escaped(text))
label.update(plain(f"{count} of {total}"))
regions.update(region for region in changed)
"""
    assert markup_risks(safe) == []
