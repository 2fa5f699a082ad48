"""Credentials never leave the origin they were configured for: a server on 127.0.0.1 redirects to a second server on
another port (another origin) that records what reaches it; it never sees the key or the conversation."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from chatterm import locations
from chatterm.net.endpoint import Endpoint
from chatterm.net.models import list_models
from tests.conftest import TEST_KEY, LoopThread, assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER, FaultServer

REDIRECTS = [301, 302, 303, 307, 308]
HEADER_KEYS = {"x-api-key": "sk-test-XAPI-1a2b3c4d5e6f", "api-key": "sk-test-AZURE-6f5e4d3c2b1a"}
CUSTOM = ("X-Team-Token", "sk-test-CUSTOM-0f1e2d3c4b5a")


@pytest.fixture
def elsewhere(loop_thread: LoopThread) -> Iterator[FaultServer]:
    """A second server on another port: another origin, recording every request that reaches it."""
    server = FaultServer()
    loop_thread.run(server.start())
    yield server
    loop_thread.run(server.stop())


def write_profile(base_url: str) -> None:
    """A profile that sends its keys in headers, as Azure, Anthropic-style gateways and private proxies want."""
    headers = ", ".join(f'"{name}" = "{value}"' for name, value in [*HEADER_KEYS.items(), CUSTOM])
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        f'[profiles.gateway]\nbase_url = "{base_url}"\nmodel = "m"\napi_key_env = "GATEWAY_KEY"\n'
        f"headers = {{ {headers} }}\n"
    )


def ask_gateway() -> Any:
    return run_chatterm("ask", "--profile", "gateway", "a private question", env={"GATEWAY_KEY": TEST_KEY})


@pytest.mark.parametrize("status", REDIRECTS)
def test_a_redirect_to_another_origin_gets_neither_key_nor_body(
    fault_server: FaultServer, elsewhere: FaultServer, status: int
) -> None:
    fault_server.redirect_status = status
    fault_server.redirect_to = elsewhere.url("ok") + "/chat/completions"
    write_profile(fault_server.url("redirect"))
    result = ask_gateway()
    assert not elsewhere.seen, "the other origin was sent a request"
    assert result.code == 1 and result.stdout == ""
    assert_one_line_error(result)
    line = result.stderr.splitlines()[-1]
    assert f"127.0.0.1:{elsewhere.port}" in line and "not sent" in line and "base URL" in line
    assert fault_server.seen[-1].headers["authorization"] == f"Bearer {TEST_KEY}", "the origin itself was asked"


@pytest.mark.parametrize("status", [307, 308])
def test_a_same_origin_redirect_is_followed_with_key_and_body(fault_server: FaultServer, status: int) -> None:
    fault_server.redirect_status = status
    fault_server.redirect_to = "/ok/v1/chat/completions"
    write_profile(fault_server.url("redirect"))
    result = ask_gateway()
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
    followed = fault_server.seen[-1]
    assert followed.path == "/ok/v1/chat/completions"
    assert followed.headers["authorization"] == f"Bearer {TEST_KEY}"
    assert followed.headers["x-api-key"] == HEADER_KEYS["x-api-key"]
    assert followed.body["messages"] == [{"role": "user", "content": "a private question"}]


@pytest.mark.parametrize("status", REDIRECTS)
def test_the_model_list_keeps_its_key_in_its_origin(
    fault_server: FaultServer, elsewhere: FaultServer, status: int
) -> None:
    fault_server.redirect_status = status
    fault_server.redirect_to = elsewhere.url("models-openai") + "/models"
    write_profile(fault_server.url("redirect"))
    result = run_chatterm("profiles", "show", "gateway", "--models", env={"GATEWAY_KEY": TEST_KEY})
    assert result.code == 0, result.stderr
    assert "models: m" in result.stdout, "the profile's own model stands in for the list"
    assert not elsewhere.seen, "the other origin was sent a request"


async def test_the_model_list_follows_a_same_origin_redirect(faults: FaultServer) -> None:
    faults.redirect_status = 301
    faults.redirect_to = "/models-openai/v1/models"
    endpoint = Endpoint(base_url=faults.url("redirect"), model="fallback", api_key=TEST_KEY)
    assert await list_models("same", endpoint, use_cache=False) == ["a-model", "b-model"]
    assert faults.seen[-1].headers["authorization"] == f"Bearer {TEST_KEY}"


@pytest.mark.parametrize("status", [301, 302, 303])
def test_a_redirect_that_would_drop_the_conversation_is_refused(fault_server: FaultServer, status: int) -> None:
    """301, 302 and 303 turn a POST into a GET without its body: followed, the server would be asked nothing (a real
    one answers its model list, or 405), and the answer would be reported empty. Refused, saying what to fix."""
    fault_server.redirect_status = status
    fault_server.redirect_to = "/ok/v1/chat/completions"
    write_profile(fault_server.url("redirect"))
    result = ask_gateway()
    assert result.code == 1 and result.stdout == ""
    assert_one_line_error(result)
    line = result.stderr.splitlines()[-1]
    assert f"redirected ({status})" in line and "/ok/v1/chat/completions" in line and "GET" in line, line
    assert "base URL" in line
    assert [request.path for request in fault_server.seen] == ["/redirect/v1/chat/completions"], "nothing followed"
