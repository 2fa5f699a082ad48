"""Keys never leave chatterm unmasked: a hostile server on 127.0.0.1 echoes the key (in a 401 body, in an error
event inside a 200 stream, split across two SSE events, cut across two TCP writes), and neither `ask`'s stdout and
stderr nor its `--record` cassette nor what `show` reads from that cassette holds it in any form."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus

import keyring
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from chatterm import locations
from chatterm.cassette.bodymask import BodyMask, mask_body
from chatterm.cassette.load import load_recording
from chatterm.cassette.redact import MASK
from chatterm.cassette.secrets import TextMask, mask_text
from chatterm.cassette.summary import summarize
from chatterm.conversation.reply import Reply
from chatterm.decode.body import SSE, decode_all
from chatterm.net.client import ChatClient
from chatterm.net.recorder import Recorder
from chatterm.settings.choice import choose
from chatterm.settings.config import load_settings
from tests.conftest import TEST_KEY, assert_one_line_error, run_chatterm
from tests.faultserver import PARTIAL, FaultServer

SLASH_KEY = "sk-test/SLASH+key=9f8e/7d6c5b4a"
"""A key JSON may carry as `\\/` and a URL as `%2F`."""
QUOTE_KEY = 'sk-test/SECRET+123=="x\\y-5e6f7a8b'
"""A key JSON writes with `\\"` and `\\\\`, and a JSON string holding that JSON with `\\\\\\"` and `\\\\\\\\`."""
ECHOED = f"{PARTIAL} with the key {MASK} echoed."
"""What the user gets of an answer that held the key."""
ECHOED_JSON = f'{PARTIAL} with {{"key": "{MASK}"}} echoed.'
"""What the user gets of an answer that held the key inside a JSON document (`echo-json`)."""


def forms(key: str) -> list[str]:
    """Every way a key can be written in a text: as is, JSON-escaped (with and without `\\/`), URL-encoded (also every
    character but letters and digits, or every character, in capitals or small letters); and each
    of those as a JSON string holds it (an event's JSON, a JSON or YAML file: `\\"` and `\\\\` escaped again)."""
    escaped = json.dumps(key)[1:-1]
    shown = {key, escaped, escaped.replace("/", "\\/"), quote(key, safe=""), quote_plus(key), quote(key)}
    for every in (False, True):
        for digits in ("%%%02X", "%%%02x"):
            shown.add("".join(c if c.isalnum() and not every else "".join(digits % b for b in c.encode()) for c in key))
    held = {json.dumps(form)[1:-1] for form in shown}
    return sorted(shown | held | {form.replace("/", "\\/") for form in held})


def assert_masked(text: str, key: str, where: str) -> None:
    for form in forms(key):
        assert form not in text, f"the key ({form}) reached {where}: {text!r}"


def ask(base_url: str, key: str, *extra: str) -> Any:
    options = ["--base-url", base_url, "--model", "fault-model", "--api-key-env", "FAULT_KEY"]
    return run_chatterm("ask", *options, *extra, "hi", env={"FAULT_KEY": key})


SCENARIOS = [
    ("echo-401", 1, "", f"HTTP 401: Incorrect API key provided: {MASK}"),
    ("echo-error-event", 1, PARTIAL, f"upstream rejected the key {MASK}"),
    ("echo-escaped", 1, PARTIAL, f"upstream rejected the key {MASK}"),
    ("echo-split", 0, ECHOED, None),
    ("echo-tcp", 0, ECHOED, None),
]
ECHOED_PERCENT = f"{PARTIAL} with the key {MASK} or {MASK} or {MASK} or {MASK} echoed."
"""What the user gets of an answer that held the key in four percent-encoded forms (`echo-percent`)."""
ENCODED = [
    ("echo-json", 0, ECHOED_JSON, None),
    ("echo-url-split", 0, ECHOED, None),
    ("echo-percent", 0, ECHOED_PERCENT, None),
]
"""The key JSON-escaped inside the JSON of an event, URL-encoded across two events, percent-encoded past what URLs
need (`echo-percent`)."""


@pytest.mark.parametrize(
    ("key", "scenario", "code", "stdout", "words"),
    [(key, *scenario) for key in (TEST_KEY, SLASH_KEY) for scenario in SCENARIOS]
    + [(key, *scenario) for key in (TEST_KEY, QUOTE_KEY) for scenario in ENCODED]
    + [(QUOTE_KEY, *scenario) for scenario in SCENARIOS[:2]],
)
def test_ask_masks_an_echoed_key_everywhere(
    fault_server: FaultServer, tmp_path: Path, key: str, scenario: str, code: int, stdout: str, words: str | None
) -> None:
    record = tmp_path / "out.yaml"
    result = ask(fault_server.url(scenario), key, "--record", str(record))
    assert result.code == code, result.stderr
    assert result.stdout == stdout
    assert_masked(result.stderr, key, "ask's stderr")
    if words is not None:
        assert_one_line_error(result)
        assert words in result.stderr.splitlines()[-1]
    assert_masked(record.read_text(), key, "the --record cassette")
    (turn,) = summarize(load_recording(record))["turns"]
    assert turn["response"]["content"] == stdout, "the cassette decodes to what the user saw"
    for show in (run_chatterm("show", str(record)), run_chatterm("show", "--json", str(record))):
        assert show.code == 0, show.stderr
        assert_masked(show.stdout, key, "what show reads from the cassette")


def test_offsets_stay_on_event_boundaries_when_the_key_is_masked(fault_server: FaultServer, tmp_path: Path) -> None:
    record = tmp_path / "out.yaml"
    assert ask(fault_server.url("echo-split"), SLASH_KEY, "--record", str(record)).code == 0
    response = load_recording(record).interactions[0].response
    assert response.offsets is not None
    ends = [end for _, end in response.offsets]
    assert ends[-1] == len(response.body)
    assert all(response.body[end - 2 : end] == b"\n\n" for end in ends), "each offset ends an SSE event"


async def test_the_profiles_other_keys_are_masked_too(faults: FaultServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """The key in use comes from the environment; the one in the keyring for the same profile is masked as well."""
    kept = "sk-test-KEYRING-0a1b2c3d4e5f"
    keyring.set_password("chatterm", "groq", kept)
    monkeypatch.setenv("GROQ_API_KEY", TEST_KEY)
    monkeypatch.setenv("CHATTERM_PROFILES__GROQ__BASE_URL", faults.url("echo-error-event"))
    choice = choose(load_settings(), "groq")
    assert choice.endpoint.api_key == TEST_KEY
    faults.echo = kept
    recorder = Recorder()
    reply = Reply()
    async with ChatClient(choice.endpoint, recorder=recorder) as client:
        async for event in client.stream([{"role": "user", "content": "hi"}]):
            reply.add(event)
    assert reply.error is not None and reply.error.message.endswith(f"upstream rejected the key {MASK}")
    assert kept.encode() not in recorder.interactions[0].response.body


# -- the masking itself, for any way a key is cut --------------------------------------------------------------------

_FILLER = st.text(alphabet='ab sk-/\\"é\n', max_size=12)


@settings(max_examples=300, deadline=None)
@given(st.lists(_FILLER | st.just(SLASH_KEY), max_size=6), st.lists(st.integers(0, 200), max_size=8))
def test_text_in_pieces_is_masked_as_the_whole_text_is(parts: list[str], cuts: list[int]) -> None:
    whole = "".join(parts)
    bounds = sorted({0, len(whole), *(cut for cut in cuts if cut < len(whole))})
    mask = TextMask((SLASH_KEY,))
    shown = "".join(mask.feed(whole[a:b]) for a, b in itertools.pairwise(bounds)) + mask.flush()
    assert shown == mask_text(whole, (SLASH_KEY,))
    assert_masked(shown, SLASH_KEY, "the masked text")


def _event(text: str) -> bytes:
    return b"data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": text}}]}).encode() + b"\n\n"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(_FILLER, min_size=1, max_size=4),
    st.lists(st.integers(1, len(SLASH_KEY) - 1), max_size=3),
    st.lists(st.integers(0, 2000), max_size=10),
)
def test_a_key_spread_over_events_is_masked_in_the_body_as_it_grows(
    filler: list[str], splits: list[int], reads: list[int]
) -> None:
    """The key in an answer's text, cut into several events: the body masked as it grows (saved at any point)
    equals the body masked at once, decodes to the answer with the key masked, and keeps each event's end."""
    bounds = sorted({0, len(SLASH_KEY), *splits})
    texts = [*filler, *(SLASH_KEY[a:b] for a, b in itertools.pairwise(bounds)), *filler]
    events = [_event(text) for text in texts]
    body = b"".join(events)
    ends = list(itertools.accumulate(len(event) for event in events))
    growing = BodyMask((SLASH_KEY,), deep=True)
    for read in sorted(reads):
        growing.update(body[: min(read, len(body))])
    masked = growing.update(body, final=True)
    at_once, mask = mask_body(body, (SLASH_KEY,))
    assert masked == at_once
    reply = Reply()
    reply.extend(decode_all(masked, SSE))
    assert reply.content == mask_text("".join(texts), (SLASH_KEY,))
    assert_masked(reply.content, SLASH_KEY, "the decoded body")
    new_ends = [mask.position(end) for end in ends]
    assert new_ends[-1] == len(masked)
    assert all(masked[end - 2 : end] == b"\n\n" for end in new_ends)


def test_profiles_show_masks_keys_in_the_profiles_headers() -> None:
    key = "sk-test-HEADER-5a4b3c2d1e0f"
    config = locations.config_file()
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(
        '[profiles.gateway]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'
        f'headers = {{ "x-api-key" = "{key}", "X-Title" = "my app" }}\n'
    )
    result = run_chatterm("profiles", "show", "gateway")
    assert result.code == 0, result.stderr
    assert_masked(result.stdout, key, "profiles show")
    assert "my app" in result.stdout, "a header that is no credential is shown as it is"
