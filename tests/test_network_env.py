"""The network as the environment sets it, as a user meets it: `CHATTERM_STOCK_NETWORK`."""

from __future__ import annotations

from typing import Any

from tests.conftest import TEST_KEY, Result, run_chatterm
from tests.faultserver import ANSWER


def ask(base_url: str, **env: str) -> Result:
    options = ["--base-url", base_url, "--model", "fault-model", "--api-key-env", "FAULT_KEY"]
    return run_chatterm("ask", *options, "hi", env={"FAULT_KEY": TEST_KEY, **env})


def test_ask_on_the_stock_network(fault_server: Any) -> None:
    result = ask(fault_server.url("ok"), CHATTERM_STOCK_NETWORK="1")
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
