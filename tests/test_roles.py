"""Named roles in `config.toml`, chosen with `--role` on the command line: `ask` as a user runs it (a subprocess
against a loopback server), and a role that does not exist or cannot be used is one line, exit 2."""

from __future__ import annotations

from typing import Any

import pytest

from chatterm import locations
from tests.conftest import assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER


def config(text: str) -> None:
    path = locations.config_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def roles(base_url: str) -> str:
    return f"""
[profiles.near]
base_url = "{base_url}"
model = "near-model"
local = true

[roles.brief]
system = "Be brief."
temperature = 0.3
max_tokens = 200

[roles.poet]
system = "Answer in verse."
profile = "near"
model = "poet-model"
top_p = 0.5
"""


def test_ask_with_a_role_sends_its_system_prompt_and_parameters(fault_server: Any) -> None:
    config(roles("http://127.0.0.1:9/v1"))
    result = run_chatterm("ask", "--base-url", fault_server.url("ok"), "--role", "brief", "hi")
    assert result.code == 0, result.stderr
    assert result.stdout == ANSWER
    body = fault_server.seen[-1].body
    assert body["messages"] == [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}]
    assert (body["temperature"], body["max_tokens"]) == (0.3, 200)


def test_a_role_s_profile_and_model_answer_unless_the_command_line_names_its_own(fault_server: Any) -> None:
    config(roles(fault_server.url("ok")))
    assert run_chatterm("--role", "poet", "ask", "hi").code == 0  # (before the subcommand, as every endpoint option)
    body = fault_server.seen[-1].body
    assert (body["model"], body["top_p"], body["messages"][0]["content"]) == ("poet-model", 0.5, "Answer in verse.")
    assert run_chatterm("ask", "--role", "poet", "--model", "mine", "--system", "Be plain.", "hi").code == 0
    body = fault_server.seen[-1].body
    assert (body["model"], body["messages"][0]["content"]) == ("mine", "Be plain.")


@pytest.mark.parametrize("command", [["ask", "--role", "pirate", "hi"], ["--role", "pirate"]], ids=["ask", "app"])
def test_an_unknown_role_names_the_roles_there_are(command: list[str]) -> None:
    config(roles("http://127.0.0.1:9/v1"))
    result = run_chatterm(*command)
    assert result.code == 2
    assert_one_line_error(result)
    assert "no role named 'pirate' (roles: brief, poet)" in result.stderr


@pytest.mark.parametrize(
    ("table", "said"),
    [
        ('system = "x"\ntemperature = 5', "[roles.bad] temperature: should be a number from 0 to 2, not 5"),
        ('system = "x"\ntemprature = 1', "[roles.bad] temprature: unknown key (did you mean temperature?)"),
        ('system = "x"\neffort = "max"', "[roles.bad] effort: should be one of off, low, medium, high, not 'max'"),
        ('profile = "near"', "[roles.bad] system: missing"),
    ],
)
def test_a_role_that_cannot_be_used_is_one_line(table: str, said: str) -> None:
    config(f"[roles.bad]\n{table}\n")
    result = run_chatterm("ask", "--role", "bad", "hi")
    assert result.code == 2
    assert_one_line_error(result)
    assert said in result.stderr, result.stderr
