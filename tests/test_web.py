"""`chatterm web`: what it refuses, what it warns of, and the app command it serves (each browser tab runs it).

Serving itself is held by the end-to-end test in a browser (tests/e2e/test_web.py); here `serve` is replaced where
a test would otherwise listen on an address other machines can reach.
"""

from __future__ import annotations

import shlex
import socket
import sys
from typing import Any

import pytest

from chatterm.cli.main import main
from tests.conftest import assert_one_line_error, run_chatterm


class Served:
    """What `chatterm web` would have served: the server it made (its `serve` replaced)."""

    def __init__(self) -> None:
        self.servers: list[Any] = []


@pytest.fixture
def served(monkeypatch: pytest.MonkeyPatch) -> Served:
    from chatterm.ui import web

    record = Served()

    def serve(server: Any, debug: bool = False) -> None:
        record.servers.append(server)

    monkeypatch.setattr(web.WebServer, "serve", serve)
    return record


def test_a_non_loopback_host_is_refused_without_allow_remote() -> None:
    result = run_chatterm("web", "--host", "0.0.0.0", "--base-url", "http://127.0.0.1:9/v1")
    assert result.code == 2
    assert_one_line_error(result)
    assert len(result.stderr.splitlines()) == 1, result.stderr
    assert "0.0.0.0" in result.stderr and "--allow-remote" in result.stderr


def test_allow_remote_serves_there_with_a_warning_about_the_keys(
    served: Served, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(["web", "--host", "0.0.0.0", "--allow-remote", "--base-url", "http://127.0.0.1:9/v1"])
    assert code == 0
    (server,) = served.servers
    assert (server.host, server.port) == ("0.0.0.0", 8000)
    warnings = [line for line in capsys.readouterr().err.splitlines() if "warning" in line]
    assert len(warnings) == 1, warnings
    assert "0.0.0.0:8000" in warnings[0] and "API keys" in warnings[0]


def test_loopback_serves_without_a_warning(served: Served, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["web", "--port", "8123", "--base-url", "http://127.0.0.1:9/v1"]) == 0
    (server,) = served.servers
    assert (server.host, server.port, server.public_url) == ("127.0.0.1", 8123, "http://127.0.0.1:8123")
    assert "warning" not in capsys.readouterr().err


def test_each_tab_runs_the_app_with_the_options_given_quoted(served: Served) -> None:
    url = "http://127.0.0.1:9/v1?a=1&b=$(touch${IFS}x)`id`"
    code = main(["--model", "it's; rm -rf ~", "web", "--base-url", url, "--read-timeout", "7", "--allow-link-local"])
    assert code == 0
    (server,) = served.servers
    words = shlex.split(server.command)
    assert words[:3] == [sys.executable, "-m", "chatterm"]
    options = words[3:]
    assert options[options.index("--model") + 1] == "it's; rm -rf ~"
    assert options[options.index("--base-url") + 1] == url
    assert float(options[options.index("--read-timeout") + 1]) == 7
    assert "--allow-link-local" in options
    assert len(options) == 7


def test_a_profile_that_cannot_be_used_stops_before_serving(served: Served) -> None:
    result = run_chatterm("web", "--profile", "nosuch")
    assert result.code == 2
    assert_one_line_error(result)
    assert "nosuch" in result.stderr
    assert not served.servers


def test_a_port_in_use_is_one_line() -> None:
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = run_chatterm("web", "--port", str(port), "--base-url", "http://127.0.0.1:9/v1")
    assert result.code == 2
    assert_one_line_error(result)
    assert f"127.0.0.1:{port}" in result.stderr and "in use" in result.stderr and "--port" in result.stderr


@pytest.mark.parametrize("port", ["0", "65536", "http"])
def test_a_port_that_cannot_be_served_is_refused(port: str) -> None:
    result = run_chatterm("web", "--port", port)
    assert result.code == 2
    assert_one_line_error(result)
    assert port in result.stderr
