"""Options work before or after the subcommand, or are refused with one line."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import assert_one_line_error, run_chatterm
from tests.faultserver import ANSWER


@pytest.mark.parametrize("before", [True, False], ids=["before", "after"])
def test_endpoint_options_work_before_or_after_ask(fault_server: Any, before: bool) -> None:
    """`chatterm --base-url URL --model M ask "q"` answered from the demo with exit 0, the options ignored."""
    options = ["--base-url", fault_server.url("ok"), "--model", "fault-model"]
    args = [*options, "ask", "q"] if before else ["ask", *options, "q"]
    result = run_chatterm(*args)
    assert result.code == 0, result
    assert result.stdout.strip() == ANSWER
    assert fault_server.seen[-1].body["model"] == "fault-model"


@pytest.mark.parametrize("before", [True, False], ids=["before", "after"])
def test_an_unknown_profile_is_refused_wherever_it_is_given(before: bool) -> None:
    """`chatterm --profile nosuch ask hi` answered from the demo with exit 0."""
    args = ["--profile", "nosuch", "ask", "hi"] if before else ["ask", "--profile", "nosuch", "hi"]
    result = run_chatterm(*args)
    assert result.code == 2
    assert_one_line_error(result)
    assert "no profile named 'nosuch'" in result.stderr


def test_an_option_after_the_subcommand_wins() -> None:
    result = run_chatterm("--profile", "nosuch", "ask", "--profile", "other", "hi")
    assert result.code == 2 and "no profile named 'other'" in result.stderr


@pytest.mark.parametrize("command", [["show", "x.yaml"], ["profiles", "list"], ["key", "status", "groq"]])
def test_an_endpoint_option_for_a_command_that_asks_no_model_is_refused(command: list[str]) -> None:
    result = run_chatterm("--profile", "groq", *command)
    assert result.code == 2
    assert_one_line_error(result)
    assert "--profile does not apply to 'chatterm " in result.stderr


def test_show_prints_each_message_once_and_counts_turns_in_words() -> None:
    """`show` printed the whole history again at every turn (a 5-turn session was 439 lines) and said "1 turns"."""
    from tests.conftest import CORPUS, SEEDS

    two = run_chatterm("show", str(CORPUS / "fantasy__TestOpenAICompatibleCommon__groq-kimi-k2__tool_streaming.yaml"))
    assert two.code == 0
    assert two.stdout.count("What's the weather in Florence") == 1
    assert two.stdout.count("[system]") == 1
    assert "(govcr, 2 turns)" in two.stdout
    assert "[tool result] weather · functions.weather:0\n```\n40 C\n```" in two.stdout
    one = run_chatterm("show", str(SEEDS / "groq_llama33_stream.sse"))
    assert "(sse, 1 turn)" in one.stdout


def test_usage_errors_are_one_line() -> None:
    """argparse printed its whole usage block before the error; the README promises one line."""
    for args in (["ask", "--read-timeout", "abc", "hi"], ["serve", "x", "--port", "99999"], ["nosuchcommand"]):
        result = run_chatterm(*args)
        assert result.code == 2
        assert_one_line_error(result)
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_profiles_show_demo_and_list_lines_up() -> None:
    """`profiles show demo` said there is no profile named 'demo' while listing it among the known ones."""
    shown = run_chatterm("profiles", "show", "demo")
    assert shown.code == 0 and "profile demo (built in)" in shown.stdout
    listed = run_chatterm("profiles", "list").stdout.splitlines()
    columns = {line.index(" no key (") for line in listed if " no key (" in line}
    assert len(columns) == 1, "the key column starts at the same place on every line"


def test_counts_say_turn_or_turns(tmp_path: Path) -> None:
    from tests.conftest import SEEDS

    converted = run_chatterm("convert", str(SEEDS / "groq_llama33_stream.sse"), str(tmp_path / "one.yaml"))
    assert "(vcr, 1 turn)" in converted.stderr


def test_the_readmes_command_table_names_every_command_and_option() -> None:
    """A new user learns the commands from the README's table: each subcommand and each of its options is there."""
    import argparse

    from chatterm.cli.parser import build_parser

    readme = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")
    rows = [row for row in readme.splitlines() if row.startswith("| `chatterm")]
    parser = build_parser()
    missing = [f"--{name}" for name in ("version",) if f"--{name}" not in readme]
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    for name, sub in subparsers.choices.items():
        row = next((r for r in rows if r.startswith(f"| `chatterm {name}")), None)
        if row is None:
            missing.append(name)
            continue
        for action in sub._actions:
            long = [flag for flag in action.option_strings if flag.startswith("--") and flag != "--help"]
            named = re.compile(re.escape(long[0]) + r"(?![\w-])") if long else None  # (--all is not --allow-...)
            if named is not None and not named.search(row) and not named.search(rows[0]):
                missing.append(f"{name} {long[0]}")
    assert not missing, f"not in the README's command table: {missing}"
