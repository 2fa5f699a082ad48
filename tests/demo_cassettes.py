"""Make the offline demo's recordings: each prompt asked with `chatterm ask --record` of a loopback server that
streams a scripted answer (tests/demo_texts.py), so every shipped cassette is one chatterm really recorded.

    python3 -m tests.demo_cassettes [--out chatterm/demo] [--pace SECONDS]

`--pace` is the wait before each piece of an answer (the demo app plays them four times slower); 0 streams at once.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chatterm.cassette.demo import DEMO_DIR
from chatterm.cassette.demo_catalogue import CATALOGUE, words
from tests import demo_texts
from tests.scripted import Script, ScriptedServer

MODEL = "chatterm-demo"
PACE = 0.006
FIRST_TOKEN = 30
"""The wait before the first piece, in paces."""
_PIECE = re.compile(r"\s*\S+")


@dataclass
class Scripted:
    """One recording to make: the answer streamed, what ends it, and errors answered first."""

    reasoning: str
    answer: str
    finish: str = "stop"
    words_per_piece: int = 1
    refusals: dict[int, tuple[int, bytes, dict[str, str]]] = field(default_factory=dict)


SCRIPTS = {
    "hello.yaml": Scripted(demo_texts.HELLO_REASONING, demo_texts.HELLO),
    "merge_sorted.yaml": Scripted(demo_texts.MERGE_REASONING, demo_texts.MERGE),
    "terminal_history.yaml": Scripted(demo_texts.HISTORY_REASONING, demo_texts.HISTORY, words_per_piece=3),
    "primes.yaml": Scripted(demo_texts.PRIMES_REASONING, demo_texts.primes_answer(), finish="length"),
    "overloaded.yaml": Scripted(
        demo_texts.OVERLOADED_REASONING,
        demo_texts.OVERLOADED,
        refusals={1: (503, demo_texts.OVERLOADED_ERROR, {"Retry-After": "1"})},
    ),
}


def pieces(text: str, per_piece: int) -> list[str]:
    """`text` in pieces of `per_piece` words, each with the blanks before it (the last keeps those after it)."""
    found = _PIECE.findall(text)
    grouped = ["".join(found[at : at + per_piece]) for at in range(0, len(found), per_piece)]
    tail = text[len("".join(found)) :]
    if grouped and tail:
        grouped[-1] += tail
    return grouped


def _event(name: str, **fields: Any) -> bytes:
    payload = {"id": f"chatcmpl-{name}", "object": "chat.completion.chunk", "created": 1767225600, "model": MODEL}
    return b"data: " + json.dumps(payload | fields, ensure_ascii=False).encode() + b"\n\n"


def _chunk(name: str, delta: dict[str, Any], finish: str | None = None) -> bytes:
    return _event(name, choices=[{"index": 0, "delta": delta, "finish_reason": finish}])


def script(name: str, prompt: str, scripted: Scripted, pace: float) -> Script:
    """The answer as an OpenAI chat stream: reasoning, then the answer, the finish reason, usage and `[DONE]`."""
    thought = pieces(scripted.reasoning, 1)
    said = pieces(scripted.answer, scripted.words_per_piece)
    events = [_chunk(name, {"role": "assistant", "reasoning_content": part}) for part in thought[:1]]
    events += [_chunk(name, {"reasoning_content": part}) for part in thought[1:]]
    events += [_chunk(name, {"content": part}) for part in said]
    events.append(_chunk(name, {}, scripted.finish))
    completion = len(thought) + len(scripted.answer.split())
    usage = {
        "prompt_tokens": 12 + len(words(prompt)),
        "completion_tokens": completion,
        "total_tokens": 12 + len(words(prompt)) + completion,
        "completion_tokens_details": {"reasoning_tokens": len(thought)},
    }
    tail = _event(name, choices=[], usage=usage) + b"data: [DONE]\n\n"
    return [(pace * (FIRST_TOKEN if n == 0 else 1), event) for n, event in enumerate([*events, tail])]


async def record(target: Path, prompt: str, scripted: Scripted, pace: float, home: Path) -> None:
    """Ask `prompt` with `chatterm ask --record target` of a server that streams the scripted answer."""
    server = ScriptedServer(answers=[script(target.stem, prompt, scripted, pace)], refusals=scripted.refusals)
    await server.start()
    env = {k: v for k, v in os.environ.items() if not k.startswith("CHATTERM_") and not k.lower().endswith("_proxy")}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / "config"), XDG_DATA_HOME=str(home / "data"))
    env.update(PYTHON_KEYRING_BACKEND="keyring.backends.null.Keyring")
    command = ["-m", "chatterm", "ask", "--base-url", server.url, "--model", MODEL, "--record", str(target), prompt]
    try:
        process = await asyncio.create_subprocess_exec(
            sys.executable, *command, env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE
        )
        _, err = await process.communicate()
    finally:
        await server.stop()
    if process.returncode != 0:
        raise RuntimeError(f"ask --record {target.name} failed: {err.decode(errors='replace')}")


def make(out: Path, pace: float = PACE) -> None:
    """Record every scripted prompt of the catalogue into `out`."""
    out.mkdir(parents=True, exist_ok=True)
    prompts = {entry.file: entry.prompt for entry in CATALOGUE}
    with tempfile.TemporaryDirectory() as home:
        for name, scripted in SCRIPTS.items():
            target = out / name
            target.unlink(missing_ok=True)
            asyncio.run(record(target, prompts[name], scripted, pace, Path(home)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=DEMO_DIR)
    parser.add_argument("--pace", type=float, default=PACE)
    args = parser.parse_args()
    make(args.out, args.pace)
    for name in SCRIPTS:
        print(args.out / name)


if __name__ == "__main__":
    main()
