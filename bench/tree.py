"""Opening a branched session: the core's part (no UI) for a 500-turn session with 50 branches against a 500-turn
linear one, both laid out as chatterm saves them (each exchange noted with its id and parent).

The branched one's 50 extra branches are regenerated answers (one every ten turns), and its last note switches to
the branch that leaves the main line half-way, so its active branch is spread across the file rather than at its
end. "Opened" is what the app does before it mounts anything: the tail of the active branch (`load_tail`), its
turns, and their answers decoded; "whole" is the history loaded after it (every item parsed, the tree built).

    python3 -m bench.tree
"""

from __future__ import annotations

import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

ANSWER = "Here is a **short** answer with `code` and a list:\n\n- one\n- two\n"


def _exchange(history: list[dict[str, str]], meta: dict[str, Any]) -> Any:
    from chatterm.cassette.model import Interaction, Request, Response

    chunks = "".join(
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": word + " "}}]}) + "\n\n"
        for word in ANSWER.split(" ")
    )
    request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=json.dumps({"messages": history}).encode())
    body = (chunks + "data: [DONE]\n\n").encode()
    return Interaction(request, Response(200, {"content-type": ["text/event-stream"]}, body), meta)


def write_session(path: Path, turns: int, branches: int) -> None:
    """`turns` exchanges, `branches` of them regenerated answers beside the main line (and then a switch to the
    first of those past half-way); none for a linear session."""
    from chatterm.cassette.model import Recording, Switch
    from chatterm.cassette.write import render

    interactions: list[Any] = []
    history: list[dict[str, str]] = []
    parent: str | None = None
    main_turns = turns - branches
    every = main_turns // branches if branches else 0
    middle = None
    for turn in range(main_turns):
        history.append({"role": "user", "content": f"question {turn}"})
        main = str(len(interactions) + 1)
        interactions.append(_exchange(history, {"id": main, "parent": parent}))
        if every and turn % every == every - 1:
            sibling = str(len(interactions) + 1)
            interactions.append(_exchange(history, {"id": sibling, "parent": parent}))
            if middle is None and turn >= main_turns // 2:
                middle = sibling
        parent = main
        history = [*history, {"role": "assistant", "content": ANSWER}]
    switches = [Switch(middle, len(interactions))] if middle else []
    path.write_bytes(render(Recording("vcr", interactions, switches)))


def open_core(path: Path) -> dict[str, float]:
    from chatterm.cassette import load
    from chatterm.cassette.branches import active_answers
    from chatterm.cassette.load import load_recording, load_tail
    from chatterm.cassette.summary import reply_of

    load._last = None  # (no reading kept from an earlier call)
    started = time.perf_counter()
    tail, _ = load_tail(path, 20)
    for interaction in active_answers(tail).interactions:
        reply_of(interaction)
    opened = time.perf_counter() - started
    started = time.perf_counter()
    active_answers(load_recording(path))
    return {"opened": opened, "whole": time.perf_counter() - started}


def compare(turns: int = 500, branches: int = 50, runs: int = 5) -> dict[str, dict[str, float]]:
    """Medians of `runs` openings of each session, in turn."""
    folder = Path(tempfile.mkdtemp(prefix="bench-tree-"))
    paths = {"linear": folder / "linear.yaml", "branched": folder / "branched.yaml"}
    write_session(paths["linear"], turns, 0)
    write_session(paths["branched"], turns, branches)
    figures: dict[str, list[dict[str, float]]] = {name: [] for name in paths}
    for _ in range(runs):
        for name, path in paths.items():
            figures[name].append(open_core(path))
    return {
        name: {key: statistics.median(run[key] for run in runs_of) for key in runs_of[0]}
        for name, runs_of in figures.items()
    }


if __name__ == "__main__":
    print(json.dumps(compare(), indent=2))
