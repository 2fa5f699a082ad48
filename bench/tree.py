"""Opening a branched session: the core's part (no UI) for a 500-turn session with 50 branches against a 500-turn
linear one, both laid out as chatterm saves them (each exchange noted with its id and parent); and saving a long
session while an answer streams.

The branched one's 50 extra branches are regenerated answers (one every ten turns), and its last note switches to
the branch that leaves the main line half-way, so its active branch is spread across the file rather than at its
end. "Opened" is what the app does before it mounts anything: the tail of the active branch (`load_tail`), its
turns, and their answers decoded; "whole" is the history loaded after it (every item parsed, the tree built).

Switching branch is timed in the app (`switch_redraw`): two deep branches that part at the second turn, every turn
on screen, so that a switch there takes every turn below off the screen and draws the other branch's.

"Save while streaming" is the session store's write of a 2,000-turn session (about 11 MB) once a second while its
next answer streams, and after a branch switch: the time from asking for the save to its being on disk, and the
bytes the saving thread passed to the system (Linux's per-thread I/O counters).

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


def write_deep_branches(path: Path, turns: int) -> None:
    """Two branches of `turns` turns that part at the second turn (its answer regenerated): a switch there replaces
    every turn below it."""
    from chatterm.cassette.model import Recording
    from chatterm.cassette.write import render

    interactions: list[Any] = []
    first = [{"role": "user", "content": "question 0"}]
    interactions.append(_exchange(first, {"id": "1", "parent": None}))
    for branch in range(2):
        history = [*first, {"role": "assistant", "content": ANSWER}]
        parent = "1"
        for turn in range(1, turns):
            history.append({"role": "user", "content": f"question {turn}"})
            node = str(len(interactions) + 1)
            interactions.append(_exchange(history, {"id": node, "parent": parent}))
            parent = node
            history = [*history, {"role": "assistant", "content": ANSWER if branch else ANSWER.upper()}]
    path.write_bytes(render(Recording("vcr", interactions)))


async def _switches(path: Path, count: int) -> list[dict[str, float]]:
    """Open `path` at once, put every turn on screen, select the second answer, and time `count` switches there
    (Left and Right in turn): from the key to the frame that shows the switched answer, and the longest the event
    loop was held from the key until the app is idle again (a key waits that long)."""
    import asyncio

    from chatterm.settings.choice import choose
    from chatterm.settings.config import load_settings
    from chatterm.ui.app import ChatApp
    from chatterm.ui.screens import below, earlier_turns

    settings = load_settings()
    app = ChatApp(settings, choose(settings), replay=path, speed="instant", save_sessions=False)
    times: list[dict[str, float]] = []
    async with app.run_test(size=(160, 50)) as pilot:
        screen = app.chat_screen

        async def until(predicate: Any) -> None:
            deadline = time.monotonic() + 300
            while not predicate():
                if time.monotonic() > deadline:
                    raise TimeoutError("the app never got there")
                await pilot.pause(0.01)

        await until(lambda: screen.session is not None and screen.session.tree.nodes and not screen.busy)
        await until(lambda: screen._history is None or screen._history.done())
        while await earlier_turns.load(screen):
            pass
        await pilot.pause()
        watch: dict[str, Any] = {"armed": False, "before": None, "shown": 0.0, "held": 0.0}
        display = app._display

        def drawing(drawn_screen: Any, renderable: Any) -> None:
            display(drawn_screen, renderable)
            if watch["armed"] and drawn_screen is screen and screen.messages()[1].branch != watch["before"]:
                watch.update(armed=False, shown=time.perf_counter())

        app._display = drawing  # type: ignore[method-assign,assignment]
        view = screen.conversation_view
        for number in range(count):
            answer = screen.messages()[1]
            view.focus()
            view.select(answer)
            await pilot.pause()
            watch.update(armed=True, before=answer.branch, held=0.0)
            watcher = asyncio.create_task(_held(watch))
            started = time.perf_counter()
            await pilot.press("left" if number % 2 == 0 else "right")
            await until(lambda: not watch["armed"] and below.later(screen) is not None)
            await pilot.pause()
            watcher.cancel()
            times.append({"frame": watch["shown"] - started, "held": watch["held"]})
    return times


async def _held(watch: dict[str, Any], step: float = 0.005) -> None:
    """Note in `watch["held"]` the longest the event loop went past a `step` it was asked to wake after."""
    import asyncio

    last = time.perf_counter()
    while True:
        await asyncio.sleep(step)
        now = time.perf_counter()
        watch["held"], last = max(watch["held"], now - last - step), now


def switch_redraw(turns: int = 500, count: int = 6) -> dict[str, float]:
    """Branch switches at the second turn of a session of two `turns`-turn branches: the median and longest time to
    the frame that shows the switch, and the longest hold of the event loop."""
    import asyncio
    import os

    home = tempfile.mkdtemp(prefix="bench-switch-")
    os.environ.update({"HOME": home, "XDG_CONFIG_HOME": f"{home}/c", "XDG_DATA_HOME": f"{home}/d"})
    path = Path(home) / "deep.yaml"
    write_deep_branches(path, turns)
    times = asyncio.run(_switches(path, count))
    frames = [each["frame"] for each in times]
    return {
        "median": statistics.median(frames),
        "max": max(frames),
        "held": max(each["held"] for each in times),
        "turns": turns,
    }


def _written(thread_id: int | None) -> int:
    """The bytes a thread has passed to the system's write calls so far (0 where the system does not say)."""
    try:
        io = Path(f"/proc/self/task/{thread_id}/io").read_text()
    except OSError:
        return 0
    return int(next(line.split()[1] for line in io.splitlines() if line.startswith("wchar:")))


def _timed_save(saver: Any, recording: Any) -> tuple[float, int]:
    """One save, waited for: its seconds and the bytes it wrote."""
    thread = saver._thread.native_id
    before, started = _written(thread), time.perf_counter()
    saver.save(recording)
    saver.flush(60)
    return time.perf_counter() - started, _written(thread) - before


def save_while_streaming(turns: int = 2000, saves: int = 10) -> dict[str, float]:
    """Medians of `saves` saves of a long session while its next answer streams (a second's more words each), and a
    branch switch's save; with the file's size."""
    from chatterm.cassette.model import Recording, Switch
    from chatterm.cassette.store import SessionSaver

    folder = Path(tempfile.mkdtemp(prefix="bench-save-"))
    saver = SessionSaver(folder / "session.yaml")
    interactions: list[Any] = []
    history: list[dict[str, str]] = []
    for turn in range(turns):
        history = [*history[-8:], {"role": "user", "content": f"question {turn}"}]
        interactions.append(_long_exchange(history, {"id": str(turn + 1), "parent": str(turn) if turn else None}))
        interactions[-1].done = True
        history.append({"role": "assistant", "content": ANSWER * 4})
    recording = Recording("vcr", interactions)
    _timed_save(saver, recording)
    size = saver.path.stat().st_size
    streaming = _long_exchange(history, {"id": str(turns + 1), "parent": str(turns)})
    whole = streaming.response.body
    recording.interactions.append(streaming)
    times, sizes = [], []
    for second in range(1, saves + 1):
        streaming.response.body = whole[: len(whole) * second // saves]
        seconds, written = _timed_save(saver, recording)
        times.append(seconds)
        sizes.append(written)
    streaming.done = True
    _timed_save(saver, recording)
    recording.switches.append(Switch(str(turns // 2), len(recording.interactions)))
    switch_seconds, switch_bytes = _timed_save(saver, recording)
    saver.close()
    return {
        "file_mb": size / 2**20,
        "stream_save_s": statistics.median(times),
        "stream_save_kb": statistics.median(sizes) / 1024,
        "switch_save_s": switch_seconds,
        "switch_save_kb": switch_bytes / 1024,
    }


def _long_exchange(history: list[dict[str, str]], meta: dict[str, Any]) -> Any:
    """An exchange of a long session: an answer four times `ANSWER`, with its event offsets."""
    from chatterm.cassette.model import Interaction, Request, Response

    words = (ANSWER * 4).split(" ")
    chunks = [
        "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": word + " "}}]}) + "\n\n" for word in words
    ]
    request = Request("POST", "http://127.0.0.1/v1/chat/completions", body=json.dumps({"messages": history}).encode())
    body = ("".join(chunks) + "data: [DONE]\n\n").encode()
    response = Response(200, {"content-type": ["text/event-stream"]}, body)
    ends = [sum(len(chunk) for chunk in chunks[: n + 1]) for n in range(len(chunks))]
    response.offsets = [(0.02 * n, end) for n, end in enumerate(ends)]
    return Interaction(request, response, meta)


if __name__ == "__main__":
    print(json.dumps({"open": compare(), "switch": switch_redraw(), "save": save_while_streaming()}, indent=2))
