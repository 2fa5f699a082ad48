"""Compressed answers (gzip and deflate `Content-Encoding`) lose nothing received: the recording and the session
file hold the text as the client read it, so a body cut short still reads as far as it got; and a compressed body
cut short in a cassette written elsewhere reads as far as it goes."""

from __future__ import annotations

import gzip
import zlib
from pathlib import Path
from typing import Any

import pytest

from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Interaction, Recording, Request, Response
from chatterm.cassette.vcr_yaml import write_vcr
from tests.conftest import ask_faults as ask
from tests.conftest import show_json
from tests.faultserver import ANSWER, PARTIAL, WORDS, FaultServer, chunk
from tests.ui.helpers import app_for
from tests.ui.test_faults import finished_answer, saved


@pytest.mark.parametrize("scenario", ["gzip-drop", "deflate-drop"])
def test_a_compressed_answer_cut_short_is_recorded_as_far_as_it_got(
    fault_server: Any, tmp_path: Path, scenario: str
) -> None:
    record = tmp_path / "answer.yaml"
    result = ask(fault_server.url(scenario), "--record", str(record))
    assert result.code == 1 and result.stdout == PARTIAL
    assert "the connection was lost mid-answer" in result.stderr
    (turn,) = show_json(record)["turns"]
    assert turn["response"]["content"] == PARTIAL
    assert "the connection was lost mid-answer" in turn["response"]["error"]["message"]
    (interaction,) = load_recording(record).interactions
    assert interaction.response.body.startswith(b"data: "), "the text as the client read it, not the wire's bytes"


def test_a_whole_compressed_answer_is_recorded_as_text(fault_server: Any, tmp_path: Path) -> None:
    record = tmp_path / "answer.yaml"
    result = ask(fault_server.url("gzip-ok"), "--record", str(record), "--no-reasoning")
    assert (result.code, result.stdout) == (0, ANSWER)
    raw = record.read_text()
    assert "data: [DONE]" in raw and "!!binary" not in raw
    (turn,) = show_json(record)["turns"]
    assert turn["response"]["content"] == ANSWER and turn["response"]["error"] is None


@pytest.mark.parametrize("scenario", ["gzip-drop", "deflate-drop"])
async def test_the_session_file_holds_a_compressed_answer_cut_short(faults: FaultServer, scenario: str) -> None:
    app = app_for(faults.url(scenario))
    async with app.run_test(size=(100, 30)) as pilot:
        message = await finished_answer(pilot, app)
        assert message.answer == PARTIAL
        turn = saved(app)[-1]
        assert turn["response"]["content"] == PARTIAL and turn["response"]["error"] is not None


@pytest.mark.parametrize("coding", ["gzip", "deflate", "raw-deflate"])
def test_a_compressed_body_cut_short_in_a_cassette_reads_as_far_as_it_goes(tmp_path: Path, coding: str) -> None:
    compressor = zlib.compressobj(wbits={"gzip": 31, "deflate": 15, "raw-deflate": -15}[coding])
    cut = b"".join(compressor.compress(chunk(word)) + compressor.flush(zlib.Z_SYNC_FLUSH) for word in WORDS[:4])
    with pytest.raises(zlib.error):
        zlib.decompress(cut, wbits=47 if coding != "raw-deflate" else -15)  # (not a whole body: no end, no checksum)
    header = "gzip" if coding == "gzip" else "deflate"
    response = Response(
        status=200, headers={"Content-Type": ["text/event-stream"], "Content-Encoding": [header]}, body=cut
    )
    request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=b'{"messages": []}')
    path = tmp_path / "cut.yaml"
    path.write_bytes(write_vcr(Recording("vcr", [Interaction(request, response)])))
    (turn,) = show_json(path)["turns"]
    assert turn["response"]["content"] == PARTIAL
    assert turn["response"]["error"]["message"].startswith("the answer was cut short")


def test_a_truncated_gzip_body_without_its_header_still_reads() -> None:
    """As chatterm wrote compressed answers before: the wire's bytes, the Content-Encoding header dropped."""
    compressor = zlib.compressobj(wbits=31)
    cut = b"".join(compressor.compress(chunk(word)) + compressor.flush(zlib.Z_SYNC_FLUSH) for word in WORDS[:4])
    with pytest.raises(EOFError):
        gzip.decompress(cut)
    response = Response(status=200, headers={"Content-Type": ["text/event-stream"]}, body=cut)
    loaded = load_recording_bytes(write_vcr(Recording("vcr", [Interaction(None, response)])))
    assert loaded.interactions[0].response.body == b"".join(chunk(word) for word in WORDS[:4])


def load_recording_bytes(data: bytes) -> Recording:
    from chatterm.cassette.load import parse_recording

    return parse_recording(data, "<test>")
