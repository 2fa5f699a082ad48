"""The app never shows or saves a key a hostile server echoes: not in the answer, its notice or a toast, not in the
session file, not in the Markdown export; after a profile switch, the earlier profile's keys stay masked too."""

from __future__ import annotations

from pathlib import Path

import keyring
import pytest

from chatterm import locations
from chatterm.cassette.load import load_recording
from chatterm.cassette.redact import MASK
from chatterm.cassette.summary import summarize
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.profiles import Switch
from tests.faultserver import PARTIAL, FaultServer
from tests.test_secrets import ECHOED, ECHOED_JSON, ECHOED_PERCENT, QUOTE_KEY, SLASH_KEY, assert_masked
from tests.ui.helpers import settled, shown_text
from tests.ui.test_faults import finished_answer, notices


def exported(app: ChatApp) -> str:
    app.action_export()
    (export,) = (locations.data_dir() / "exports").iterdir()
    return export.read_text()


def session_file(app: ChatApp) -> Path:
    assert app.session is not None and app.session.saver is not None
    app.session.saver.flush()
    assert app.session.path is not None
    return app.session.path


def assert_nowhere(app: ChatApp, screen: str, key: str) -> None:
    """The key is on no toast, not on the screen, in no session file and not in the export."""
    assert_masked(" ".join(notices(app)), key, "a toast")
    assert_masked(screen, key, "the screen")
    path = session_file(app)
    assert_masked(path.read_text(), key, "the session file")
    assert_masked(str(summarize(load_recording(path))), key, "what the session file decodes to")
    assert_masked(exported(app), key, "the Markdown export")


@pytest.mark.parametrize(
    ("scenario", "answer", "notice", "key"),
    [
        ("echo-401", "", f"HTTP 401: Incorrect API key provided: {MASK}", SLASH_KEY),
        ("echo-error-event", PARTIAL, f"upstream rejected the key {MASK}", SLASH_KEY),
        ("echo-split", ECHOED, None, SLASH_KEY),
        ("echo-tcp", ECHOED, None, SLASH_KEY),
        ("echo-json", ECHOED_JSON, None, QUOTE_KEY),
        ("echo-url-split", ECHOED, None, QUOTE_KEY),
        ("echo-percent", ECHOED_PERCENT, None, SLASH_KEY),
    ],
)
async def test_an_echoed_key_is_masked_on_screen_in_the_session_and_the_export(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch, scenario: str, answer: str, notice: str | None, key: str
) -> None:
    monkeypatch.setenv("FAULT_KEY", key)
    settings = load_settings()
    choice = choose(settings, base_url=faults.url(scenario), model="fault-model", api_key_env="FAULT_KEY")
    app = ChatApp(settings, choice)
    async with app.run_test(size=(120, 30)) as pilot:
        message = await finished_answer(pilot, app)
        assert message.answer == answer
        shown_notice = str(message.notice.render())
        assert_masked(shown_notice, key, "the answer's notice")
        if notice is not None:
            assert notice in shown_notice
        assert_nowhere(app, shown_text(await settled(pilot)), key)


async def test_keys_of_the_profile_and_of_earlier_profiles_stay_masked(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`one` uses its variable's key and holds another in the keyring; after switching to `two`, and in a new chat
    after that, a server echoing either of `one`'s keys is masked all the same."""
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[profiles.one]\nbase_url = "{faults.url("echo-error-event")}"\nmodel = "m1"\napi_key_env = "ONE_KEY"\n'
        f'[profiles.two]\nbase_url = "{faults.url("echo-error-event")}"\nmodel = "m2"\napi_key_env = "TWO_KEY"\n'
    )
    in_keyring = "sk-test-KEYRING-0a1b2c3d4e5f"
    keyring.set_password("chatterm", "one", in_keyring)
    monkeypatch.setenv("ONE_KEY", SLASH_KEY)
    monkeypatch.setenv("TWO_KEY", "sk-test-TWO-9a8b7c6d5e4f")
    settings = load_settings()
    app = ChatApp(settings, choose(settings, "one"))
    async with app.run_test(size=(120, 30)) as pilot:
        faults.echo = in_keyring
        first = await finished_answer(pilot, app, "one")
        assert str(first.notice.render()).startswith(f"error in stream: upstream rejected the key {MASK}")
        await app._switch(Switch("two", None))
        for echoed in (SLASH_KEY, in_keyring):
            faults.echo = echoed
            later = await finished_answer(pilot, app, "two")
            assert str(later.notice.render()).startswith(f"error in stream: upstream rejected the key {MASK}")
        screen = shown_text(await settled(pilot))
        for key in (SLASH_KEY, in_keyring):
            assert_nowhere(app, screen, key)
            (locations.data_dir() / "exports" / f"{session_file(app).stem}.md").unlink()
        await app.action_new_chat()  # a new chat still knows the keys of the profiles used before it
        faults.echo = SLASH_KEY
        newer = await finished_answer(pilot, app, "three")
        assert str(newer.notice.render()).startswith(f"error in stream: upstream rejected the key {MASK}")
        assert_nowhere(app, shown_text(await settled(pilot)), SLASH_KEY)


async def test_a_key_typed_into_a_prompt_is_masked_in_the_export_and_the_session(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("FAULT_KEY", SLASH_KEY)
    settings = load_settings()
    app = ChatApp(settings, choose(settings, base_url=faults.url("ok"), api_key_env="FAULT_KEY"))
    async with app.run_test(size=(120, 30)) as pilot:
        await finished_answer(pilot, app, f"is {SLASH_KEY} my key?")
        assert_masked(session_file(app).read_text(), SLASH_KEY, "the session file")
        assert_masked(exported(app), SLASH_KEY, "the Markdown export")
