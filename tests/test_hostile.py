"""Hostile and broken recordings: refused or opened as data, exit 2 and one line, nothing executed."""

from __future__ import annotations

import contextlib
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chatterm.cassette.load import parse_recording
from chatterm.cassette.model import RecordingError
from chatterm.cassette.summary import summarize
from tests.conftest import SEEDS, assert_one_line_error, run_chatterm

CANARY = "chatterm-canary-was-executed"


def alias_bomb(levels: int, width: int) -> str:
    """A billion-laughs document: each level refers `width` times to the one before."""
    lines = ["l0: &l0 [" + ", ".join(["x"] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(lines) + f"\ninteractions: [*l{levels - 1}]\n"


HOSTILE = {
    "python-object.yaml": f"""interactions:
- request: !!python/object/apply:os.system ["touch {CANARY}"]
  response: {{status: {{code: 200}}}}
""",
    "python-name.yaml": "interactions: !!python/name:os.system\n",
    "alias-bomb.yaml": alias_bomb(levels=10, width=10),
    "deep.json": "[" * 100_000 + "]" * 100_000,
    "deep.yaml": "a: " + "[" * 50_000 + "]" * 50_000 + "\n",
    "deep-mappings.yaml": "a: " + "{b: " * 50_000 + "1" + "}" * 50_000 + "\n",
    "deep-dashes.yaml": "- " * 50_000 + "x\n",
    "deep-indents.yaml": "".join(" " * level + "k:\n" for level in range(2_000)) + " " * 2_000 + "v\n",
    "truncated.yaml": (SEEDS / "xai_grok_simple_streaming.yaml").read_text()[:1500],
    "truncated.json": (SEEDS / "llama_stack_together_stream.json").read_text()[:700],
    "garbage.bin": bytes(range(256)).decode("latin-1") * 10,
    "empty.yaml": "",
    "not-a-recording.yaml": "name: value\nlist: [1, 2]\n",
    "scalar.json": "42",
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_file_exits_2_with_one_line(name: str, tmp_path: Path) -> None:
    path = tmp_path / name
    content = HOSTILE[name]
    path.write_bytes(content.encode("latin-1") if name.endswith(".bin") else content.encode())
    result = run_chatterm("show", str(path), "--json", env={"PWD": str(tmp_path)})
    assert result.code == 2, (result.code, result.stdout[:300], result.stderr)
    assert_one_line_error(result)
    assert str(path) in result.stderr
    assert not (tmp_path / CANARY).exists() and not Path(CANARY).exists()


def test_type_fields_are_only_strings(tmp_path: Path) -> None:
    """llama-stack's `__type__` names a class; it is read as a string and nothing is imported."""
    recording = json.loads((SEEDS / "llama_stack_together_stream.json").read_text())
    for item in recording["response"]["body"]:
        item["__type__"] = "os.system"
    path = tmp_path / "typed.json"
    path.write_text(json.dumps(recording))
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0
    assert json.loads(result.stdout)["turns"][0]["response"]["content"].startswith("Hello!")


def test_missing_file_and_directory(tmp_path: Path) -> None:
    for target in (tmp_path / "nope.yaml", tmp_path):
        result = run_chatterm("show", str(target))
        assert result.code == 2
        assert_one_line_error(result)


def test_unknown_body_is_explained_not_crashed(tmp_path: Path) -> None:
    cassette = {
        "interactions": [
            {
                "request": {"method": "POST", "uri": "http://x/v1/embeddings", "body": "{}", "headers": {}},
                "response": {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "<<binary>>"}},
            }
        ],
        "version": 1,
    }
    path = tmp_path / "odd.json"
    path.write_text(json.dumps(cassette))
    result = run_chatterm("show", str(path), "--json")
    assert result.code == 0
    assert json.loads(result.stdout)["turns"] == [], "an embeddings call is no chat turn"
    shown = run_chatterm("show", str(path))
    assert shown.code == 0 and "[skipped] POST http://x/v1/embeddings: text that is not JSON" in shown.stdout


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2048))
def test_readers_raise_only_their_own_error(data: bytes) -> None:
    try:
        summarize(parse_recording(data, "fuzz"))
    except RecordingError as exc:
        assert str(exc).startswith("fuzz: ")


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=400))
def test_readers_on_arbitrary_text(text: str) -> None:
    for prefix in ("", "interactions:\n", "data: ", '{"request": {}, "response": '):
        with contextlib.suppress(RecordingError):
            summarize(parse_recording((prefix + text).encode(), "fuzz"))


OTHER_FILES = {
    "pyproject.toml": '[project]\nname = "x"\nversion = "1"\n',
    "README.md": "# Title\n\nSome text: with a colon\nand: more\n- a list\n",
    "notes.txt": "just a line of text\n",
}


@pytest.mark.parametrize("command", ["show", "replay"])
@pytest.mark.parametrize("name", sorted(OTHER_FILES))
def test_a_file_that_is_no_recording_is_called_so(name: str, command: str, tmp_path: Path) -> None:
    """A config file or a README opened by mistake is named for what it is not (a recording), not for a parser's
    complaint about its syntax ("not valid JSON" about a TOML file)."""
    path = tmp_path / name
    path.write_text(OTHER_FILES[name])
    result = run_chatterm(command, str(path))
    assert result.code == 2
    assert_one_line_error(result)
    assert f"{path}: not a recording chatterm reads" in result.stderr
    assert "JSON" not in result.stderr and "YAML" not in result.stderr
