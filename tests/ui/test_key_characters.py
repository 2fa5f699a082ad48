"""The app never crashes on a key no HTTP header can carry, and no crash of the app prints a key: switching to a
profile whose key holds such a character is an error notice, a request that would carry one ends its answer with an
error, and the report of a crash shows no local variables and masks every key the app knows."""

from __future__ import annotations

from typing import Any

import keyring
import pytest

from chatterm import locations
from chatterm.cassette.redact import MASK
from chatterm.net.endpoint import Endpoint
from chatterm.settings.choice import Choice, choose
from chatterm.settings.config import load_settings
from chatterm.ui.app import ChatApp
from chatterm.ui.screens.profiles import Switch
from tests.conftest import TEST_KEY
from tests.faultserver import FaultServer
from tests.test_secrets import assert_masked
from tests.ui.helpers import wait_for
from tests.ui.test_faults import finished_answer, notices

KEYRING_KEY = "sk-test-KEYRING-0a1b2c3d4e5f"


async def test_switching_to_a_profile_whose_key_no_header_can_carry_is_an_error_notice(faults: FaultServer) -> None:
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'[profiles.bad]\nbase_url = "{faults.url("ok")}"\nmodel = "m"\napi_key_env = "BAD_KEY"\n')
    keyring.set_password("chatterm", "bad", f"\u00a0{KEYRING_KEY}ü\n")
    settings = load_settings()
    app = ChatApp(settings, choose(settings, base_url=faults.url("ok"), model="fault-model"))
    async with app.run_test(size=(120, 30)) as pilot:
        await app._switch(Switch("bad", None))
        await wait_for(pilot, lambda: bool(notices(app)))
        (notice,) = notices(app)
        assert "the keyring entry for bad" in notice and "chatterm key set bad" in notice
        assert f"U+00FC (not ASCII) at position {len(KEYRING_KEY) + 1}" in notice, notice
        assert "KEYRING-" not in notice
        assert app.choice.profile == "ad-hoc", "the chat goes on with the profile it had"
        message = await finished_answer(pilot, app)
        assert message.answer and not faults.seen[-1].headers.get("authorization")


async def test_a_request_that_would_carry_such_a_key_ends_with_an_error_not_a_crash(faults: FaultServer) -> None:
    """An endpoint made without `choose` (which refuses the key first): the client refuses to send it."""
    endpoint = Endpoint(base_url=faults.url("ok"), model="m", api_key=f"{TEST_KEY}ü")
    app = ChatApp(load_settings(), Choice("given", endpoint, "env:KK"))
    async with app.run_test(size=(120, 30)) as pilot:
        message = await finished_answer(pilot, app)
        shown = str(message.notice.render())
        assert "the Authorization header holds a character no HTTP header can carry: U+00FC" in shown, shown
        assert "SECRET" not in shown
        assert not faults.seen, "nothing was sent"


async def test_a_crash_of_the_app_prints_no_key_and_no_local_variables(
    faults: FaultServer, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("KK", TEST_KEY)
    settings = load_settings()
    app = ChatApp(settings, choose(settings, base_url=faults.url("ok"), model="m", api_key_env="KK"))

    def crash() -> None:
        headers: dict[str, Any] = {"Authorization": f"Bearer {TEST_KEY}"}
        raise RuntimeError(f"cannot send {headers['Authorization']}")

    with pytest.raises(RuntimeError):
        async with app.run_test(size=(120, 30)) as pilot:
            await finished_answer(pilot, app)
            app.call_later(crash)
            await wait_for(pilot, lambda: app.return_code is not None)
    printed = capsys.readouterr().err
    assert "RuntimeError" in printed and f"cannot send Bearer {MASK}" in printed, printed
    assert " locals " not in printed, "the report shows no local variables"
    assert_masked(printed, TEST_KEY, "the crash report")
