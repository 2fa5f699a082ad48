"""`ask --record` under a flood: each save while the answer streams renders what arrived since the last one, not the
whole answer again, and the file it leaves is the whole answer. (How fast is measured by `bench/run.py`, not here.)"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette import vcr_yaml
from chatterm.cassette.load import load_recording
from chatterm.cassette.summary import summarize
from chatterm.cli.main import main
from chatterm.net import recorder
from tests.conftest import TEST_KEY, run_chatterm
from tests.faultserver import LINES, FaultServer


def test_saves_while_an_answer_streams_render_only_what_arrived_since(
    fault_server: FaultServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(recorder, "FLUSH_INTERVAL", 0.0)  # a save for every piece that arrives
    fault_server.gap = 0.005
    rendered: list[int] = []
    original = vcr_yaml._block_text

    def counted(data: bytes) -> str | None:
        rendered.append(len(data))
        return original(data)

    monkeypatch.setattr(vcr_yaml, "_block_text", counted)
    record = tmp_path / "flood.yaml"
    monkeypatch.setenv("FAULT_KEY", TEST_KEY)
    argv = ["ask", "--base-url", fault_server.url("lines"), "--model", "fault-model", "--api-key-env", "FAULT_KEY"]
    argv += ["--record", str(record)]
    assert main([*argv, "hi"]) == 0
    assert capsys.readouterr().out == "".join(LINES)
    (interaction,) = load_recording(record).interactions
    body = len(interaction.response.body)
    assert len(rendered) > len(LINES) / 2, "a save for (about) every event"
    assert sum(rendered) < 2 * body, f"{sum(rendered)} bytes rendered for a body of {body}: the whole body each save"
    (turn,) = summarize(load_recording(record))["turns"]
    assert turn["response"]["content"] == "".join(LINES) and turn["response"]["error"] is None
    assert interaction.meta["model"] == "fault-model"


def test_a_record_file_that_cannot_be_written_is_one_warning(fault_server: Any, tmp_path: Path) -> None:
    """A name the file may have, but whose temporary file (the name and a suffix, renamed over it once written) is
    longer than a folder's entries may be: the path is fine when checked, each write fails."""
    record = tmp_path / ("r" * 245 + ".yaml")
    fault_server.gap = 0.3  # a few saves while the answer streams
    result = run_chatterm("ask", "--base-url", fault_server.url("paced"), "--record", str(record), "hi")
    assert result.code == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and str(record) in warnings[0], result.stderr
    assert "Traceback" not in result.stderr
