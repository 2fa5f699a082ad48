"""Every line the commands print shows text from outside harmlessly: escape sequences in a provider's error, a
model id, a profile's settings or a file name are made visible, never obeyed. Piped model text stays exact."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path
from typing import Any

from chatterm import locations
from chatterm.terminal_text import neutralize
from tests.conftest import Result, assert_one_line_error, run_chatterm, sse_capture
from tests.faultserver import ESCAPE_MODELS, ESCAPES

OBEYED = ("\x1b", "\x07", "\x9b")
"""ESC, BEL and the 8-bit CSI: what a terminal would act on."""


def harmless(*texts: str) -> bool:
    return not any(code in text for text in texts for code in OBEYED)


def on_terminal(*args: str, timeout: float = 60) -> bytes:
    """Run `chatterm` with stdout and stderr on a pseudo-terminal: the bytes the terminal received."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "chatterm", *args], stdin=subprocess.DEVNULL, stdout=slave, stderr=slave
    )
    os.close(slave)
    received = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # (EIO: the command ended and closed the terminal)
            break
        if not data:
            break
        received.append(data)
    process.wait(timeout)
    os.close(master)
    return b"".join(received).replace(b"\r\n", b"\n")


def write_config(text: str) -> None:
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(text)


def test_a_provider_error_is_printed_harmlessly(fault_server: Any) -> None:
    result = run_chatterm("ask", "--base-url", fault_server.url("escapes-error"), "--model", "fault-model", "hi")
    assert result.code == 1
    assert_one_line_error(result)
    assert result.stderr == f"chatterm: HTTP 400: {neutralize(ESCAPES)}\n"
    assert harmless(result.stderr) and "␛]52;c;cHduZWQ=␇" in result.stderr


def assert_shown_harmlessly(result: Result, *expected: str) -> None:
    assert "Traceback" not in result.stderr, result.stderr
    assert harmless(result.stdout, result.stderr), (result.stdout, result.stderr)
    for text in expected:
        assert text in result.stdout + result.stderr, (text, result.stdout, result.stderr)


def test_profiles_and_key_print_config_values_harmlessly() -> None:
    write_config(
        '[profiles.p]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m\\u001b]52;c;eA==\\u0007"\n'
        'api_key_env = "K\\u009b2J"\n'
    )
    listed = run_chatterm("profiles", "list")
    assert listed.code == 0
    assert_shown_harmlessly(listed, "m␛]52;c;eA==␇", "K\\x9b2J")
    shown = run_chatterm("profiles", "show", "p")
    assert shown.code == 0
    assert_shown_harmlessly(shown, "profile p", "model: m␛]52;c;eA==␇")
    status = run_chatterm("key", "status", "p")
    assert status.code == 0
    assert_shown_harmlessly(status, "p: no key (K\\x9b2J)")
    unknown = run_chatterm("profiles", "show", "q\x1b[2J")
    assert unknown.code == 2
    assert_one_line_error(unknown)
    assert_shown_harmlessly(unknown, "no profile named 'q\\x1b[2J'")


def test_a_profile_name_with_escapes_in_the_config_is_refused_harmlessly() -> None:
    write_config('[profiles."p\\u001b[2J"]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n')
    listed = run_chatterm("profiles", "list")
    assert listed.code == 2
    assert_one_line_error(listed)
    assert_shown_harmlessly(listed, "the profile name 'p\\x1b[2J' holds control characters")


def test_model_ids_a_server_lists_are_printed_harmlessly(fault_server: Any) -> None:
    write_config(f'[profiles.mine]\nbase_url = "{fault_server.url("models-escapes")}"\nmodel = "m"\nlocal = true\n')
    result = run_chatterm("profiles", "show", "mine", "--models")
    assert result.code == 0
    assert_shown_harmlessly(result, *(neutralize(model) for model in sorted(ESCAPE_MODELS)))


def test_a_profile_added_with_escapes_in_its_name_is_refused_harmlessly() -> None:
    result = run_chatterm("profiles", "add", "n\x1b[2J", "--base-url", "http://127.0.0.1:9/v1", "--model", "m")
    assert result.code == 2
    assert_one_line_error(result)
    assert_shown_harmlessly(result, "the profile name 'n\\x1b[2J' holds control characters")


def test_errors_of_every_command_are_printed_harmlessly(tmp_path: Path) -> None:
    hostile = tmp_path / "x\x1b[2J\x1b]52;c;eA==\x07.yaml"
    results = [
        run_chatterm("show", str(hostile)),
        run_chatterm("replay", str(hostile)),
        run_chatterm("convert", str(hostile), str(tmp_path / "out.yaml")),
        run_chatterm("serve", str(hostile)),
        run_chatterm("serve", str(hostile), "--host", "\x1b[2J"),
        run_chatterm("ask", "one", "two\x1b[2J"),  # argparse's own message
        run_chatterm("key", "status", "\x1b[2J"),
    ]
    for result in results:
        assert result.code == 2, result
        assert_one_line_error(result)
        assert_shown_harmlessly(result)
    assert "x␛[2J␛]52;c;eA==␇.yaml: no such file" in results[0].stderr
    assert "refusing to listen on ␛[2J" in results[4].stderr
    assert "unrecognized arguments: two␛[2J" in results[5].stderr


def test_a_config_value_in_an_error_is_printed_harmlessly() -> None:
    """(Config errors name what is wrong; whatever they quote of the file is printed harmlessly.)"""
    write_config('theme = 5\n[profiles.x]\nbase_url = "u"\nmodel = "m"\nread_timeout = "\\u001b[2J"\n')
    result = run_chatterm("profiles", "list")
    assert result.code == 2
    assert_one_line_error(result)
    assert_shown_harmlessly(result)


def test_convert_and_serve_say_what_they_do_harmlessly(tmp_path: Path) -> None:
    capture = sse_capture(tmp_path / "answer.sse", "hi")
    target = tmp_path / "out\x1b[2J.yaml"
    converted = run_chatterm("convert", str(capture), str(target))
    assert converted.code == 0 and target.exists()
    assert_shown_harmlessly(converted, "wrote ", "out␛[2J.yaml (vcr, 1 turn)")
    served = run_chatterm("serve", str(capture), "--host", "no\x1b[2J", "--allow-remote")
    assert served.code == 2
    assert_one_line_error(served)
    assert_shown_harmlessly(served, "warning: serving on no␛[2J,", "cannot listen on no␛[2J:0")


def test_show_on_a_terminal_shows_model_text_harmlessly_and_its_json_stays_exact(tmp_path: Path) -> None:
    hostile = "Hi\x1b[2J\x1b]52;c;ZXZpbA==\x07 csi\x9b2J del\x7f end"
    capture = sse_capture(tmp_path / "hostile.sse", hostile)
    text = on_terminal("show", str(capture))
    assert harmless(text.decode()) and f"[assistant] {neutralize(hostile)}" in text.decode()
    raw = on_terminal("show", "--json", str(capture))
    assert harmless(raw.decode()) and b"\x7f" not in raw
    assert json.loads(raw)["turns"][0]["response"]["content"] == hostile, "the same JSON, escaped"
    piped = run_chatterm("show", "--json", str(capture))
    assert json.loads(piped.stdout)["turns"][0]["response"]["content"] == hostile
    plain = run_chatterm("show", str(capture))
    assert f"[assistant] {hostile}" in plain.stdout, "piped, the text is kept exactly"
