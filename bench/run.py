"""Run the streaming benchmarks and print a table with ratios against the bare client of the same run.

    python3 -m bench.run            # every scenario (several minutes on 2 cores)
    python3 -m bench.run --quick    # a short smoke of each (CI runs this as its own step)
    python3 -m bench.run --app "elia" --ready "Send"   # S1/S2 for another app (see bench/README.md)
    python3 -m bench.run --only over-time   # only the rows of bench/overtime.py (printed, not written)
    python3 -m bench.tree                   # only the branched session's opening (bench/tree.py), printed

Writes bench/RESULTS.md unless --no-write.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

from bench.bare import bare_client
from bench.blackbox import Terminal, first_frame, fresh_env, run_app
from bench.headless import headless, resize_stall
from bench.native import SHAPES
from bench.server import BenchServer, Scenario
from bench.tree import compare as branched_open
from bench.tree import save_while_streaming
from bench.tree import switch_redraw as branch_switch

ROOT = Path(__file__).resolve().parent
NATIVE = tuple(SHAPES)
"""The native APIs R1 is run in besides chat completions, each against the bare client reading the same shape."""


def chatterm(base_url: str) -> str:
    return f"{shutil.which('chatterm')} --base-url {base_url} --model bench-model"


def speaking(api: str) -> Any:
    """The chatterm command line for a profile of a native API."""

    def command(base_url: str) -> str:
        return f"{chatterm(base_url)} --api {api}"

    return command


def floor(base_url: str) -> str:
    return f"sh -c 'cd {ROOT.parent} && exec {sys.executable} -m bench.floor {base_url}'"


def blackbox_vs_bare(command: Any, scenario: Scenario, ready: str, label: str, runs: int = 1) -> dict[str, Any]:
    """The bare client and the app on the same server, `runs` times in turn; each figure is the median of its runs
    (app and bare client alike): this machine's speed drifts by up to 2x within minutes, as much as the
    differences being measured, and one run of each is not enough to tell."""
    return in_turn(command, {label: scenario}, ready, runs)[label]


def in_turn(command: Any, scenarios: dict[str, Scenario], ready: str, runs: int) -> dict[str, dict[str, Any]]:
    """`blackbox_vs_bare` for several scenarios, one run of each in every round, so that a figure compared with
    another's (S3's 12k with its 6k) comes from the same minutes of the machine."""
    apps: dict[str, list[dict[str, float]]] = {label: [] for label in scenarios}
    bares: dict[str, list[dict[str, float]]] = {label: [] for label in scenarios}
    for _ in range(runs):
        for label, scenario in scenarios.items():
            server = BenchServer(scenario)
            base_url = server.start()
            try:
                bares[label].append(bare_client(server, base_url))
                try:
                    apps[label].append(run_app(command(base_url), server, ready=ready, timeout=120))
                except TimeoutError as exc:
                    print(f"{label}: retrying after a timeout ({str(exc).splitlines()[0]})", file=sys.stderr)
                    apps[label].append(run_app(command(base_url), server, ready=ready, timeout=120))
            finally:
                server.stop()
    return {
        label: {"scenario": label, "app": _medians(apps[label]), "bare": _medians(bares[label])} for label in scenarios
    }


def _medians(results: list[dict[str, float]]) -> dict[str, float]:
    return {key: statistics.median(result[key] for result in results) for key in results[0]}


def version_time(runs: int = 5) -> float:
    times = []
    for _ in range(runs):
        started = time.monotonic()
        subprocess.run([shutil.which("chatterm") or "chatterm", "--version"], capture_output=True, check=True)
        times.append(time.monotonic() - started)
    return statistics.median(times)


def big_session(turns: int, path: Path) -> None:
    from chatterm.cassette.model import Interaction, Recording, Request, Response
    from chatterm.cassette.write import render

    interactions = []
    history: list[dict[str, str]] = []
    answer = "Here is a **short** answer with `code` and a list:\n\n- one\n- two\n"
    for turn in range(turns):
        history.append({"role": "user", "content": f"question {turn}"})
        chunks = "".join(
            "data: " + json.dumps({"choices": [{"index": 0, "delta": {"content": w + " "}}]}) + "\n\n"
            for w in answer.split(" ")
        )
        body = (chunks + "data: [DONE]\n\n").encode()
        request = Request(
            "POST", "http://127.0.0.1/v1/chat/completions", body=json.dumps({"messages": history}).encode()
        )
        interactions.append(Interaction(request, Response(200, {"content-type": ["text/event-stream"]}, body)))
        history = [*history, {"role": "assistant", "content": answer}]
    path.write_bytes(render(Recording("vcr", interactions)))


def open_session(path: Path) -> dict[str, float]:
    terminal = Terminal(f"bench-open-{os.getpid()}-{time.monotonic_ns()}")
    try:
        started = time.monotonic()
        terminal.start(f"{shutil.which('chatterm')} replay {path} --instant", fresh_env())
        ready = terminal.wait_for("Replay finished", 120) - started
        pid = terminal.pane_pid()
        rss = _tree_rss_mb(pid)
        return {"interactive": ready, "rss_mb": rss}
    finally:
        terminal.close()


def _tree_rss_mb(root: int) -> float:
    total = 0.0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(entry) == root or int(stat[1]) == root:
            for line in status.splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1]) / 1024
    return total


def show_big(size_mb: float) -> float:
    path = Path(tempfile.mkdtemp()) / "big.sse"
    server = BenchServer(Scenario(answer_tokens=1000))
    block = b"".join(server.events())
    path.write_bytes(block * max(1, int(size_mb * 2**20 / len(block))))
    started = time.monotonic()
    subprocess.run(
        [shutil.which("chatterm") or "chatterm", "show", "--json", str(path)], capture_output=True, check=True
    )
    return time.monotonic() - started


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="small sizes: a smoke test of the harness")
    parser.add_argument("--app", help="a command line to measure instead of chatterm; {base_url} is replaced")
    parser.add_argument("--ready", default="Enter sends", help="text on screen when the app is ready")
    parser.add_argument("--no-write", action="store_true", help="do not write bench/RESULTS.md")
    parser.add_argument("--only", choices=["over-time"], help="only these rows (printed, bench/RESULTS.md not written)")
    args = parser.parse_args()
    # Measure chatterm as installed: pip compiles an installed package's bytecode, an editable install compiles
    # it on first import, unless PYTHONDONTWRITEBYTECODE is set (as on some CI machines): compile it here.
    import chatterm as package

    compileall.compile_dir(Path(package.__file__).parent, quiet=1)
    scale = 0.1 if args.quick else 1.0
    n = lambda tokens: max(50, int(tokens * scale))  # noqa: E731
    command = (lambda url: args.app.replace("{base_url}", url)) if args.app else chatterm
    rows: list[tuple[str, str, str, str]] = []

    def add(name: str, value: str, ratio: str, target: str) -> None:
        rows.append((name, value, ratio, target))
        print(f"{name:<44} {value:<34} {ratio:<12} {target}", flush=True)

    if args.only == "over-time":
        over_time(add, args.quick)
        return 0
    s1 = blackbox_vs_bare(command, Scenario(n(3000)), args.ready, "S1", runs=3)
    add(
        "S1 first byte -> last token on screen",
        f"{s1['app']['first_to_last']:.2f} s (bare {s1['bare']['first_to_last']:.2f} s)",
        f"{s1['app']['first_to_last'] / s1['bare']['first_to_last']:.1f}x",
        "<= 8x",
    )
    add("S1 longest time with no screen change", f"{s1['app']['longest_still']:.2f} s", "", "")
    paced_runs = 1 if args.quick else 3
    s2 = blackbox_vs_bare(command, Scenario(n(3000), rate=300), args.ready, "S2", runs=paced_runs)
    add("S2 lag after the last byte (300 tok/s)", f"{s2['app']['lag']:.2f} s", "", "<= 0.1 s")
    add(
        "S2 CPU during the stream",
        f"{s2['app']['cpu']:.2f} s (bare {s2['bare']['cpu']:.2f} s)",
        f"{s2['app']['cpu'] / max(s2['bare']['cpu'], 0.01):.1f}x",
        "<= 4x",
    )
    if not args.app:
        least = blackbox_vs_bare(floor, Scenario(n(3000), rate=300), "Enter sends", "S2-floor", runs=paced_runs)
        add(
            "S2 CPU of a minimal Textual app (bench/floor.py)",
            f"{least['app']['cpu']:.2f} s (bare {least['bare']['cpu']:.2f} s)",
            f"{least['app']['cpu'] / max(least['bare']['cpu'], 0.01):.1f}x",
            "(reference)",
        )
    r1 = blackbox_vs_bare(
        command, Scenario(n(3000), reasoning_tokens=n(1000), rate=300), args.ready, "R1", runs=paced_runs
    )
    add("R1 lag (1,000 reasoning + 3,000 answer)", f"{r1['app']['lag']:.2f} s", "", "<= 0.1 s")
    add(
        "R1 CPU during the stream",
        f"{r1['app']['cpu']:.2f} s (bare {r1['bare']['cpu']:.2f} s)",
        f"{r1['app']['cpu'] / max(r1['bare']['cpu'], 0.01):.1f}x",
        "<= 4x",
    )
    if args.app:
        return _finish(rows, args, "(other app)")
    for api in NATIVE:
        scenario = Scenario(n(3000), reasoning_tokens=n(1000), rate=300, api=api)
        native = blackbox_vs_bare(speaking(api), scenario, args.ready, api, runs=paced_runs)
        add(f"R1 lag, {api} API", f"{native['app']['lag']:.2f} s", "", "<= 0.1 s")
        add(
            f"R1 CPU, {api} API",
            f"{native['app']['cpu']:.2f} s (bare {native['bare']['cpu']:.2f} s)",
            f"{native['app']['cpu'] / max(native['bare']['cpu'], 0.01):.1f}x",
            "<= 4x",
        )
    s3 = in_turn(
        command,
        {"S3-6k": Scenario(n(6000), kind="code"), "S3-12k": Scenario(n(12000), kind="code")},
        args.ready,
        runs=3 if args.quick else 5,
    )
    s3a, s3b = s3["S3-6k"], s3["S3-12k"]
    add(
        "S3 6,000 code-heavy tokens, full speed",
        f"{s3a['app']['first_to_last']:.2f} s (bare {s3a['bare']['first_to_last']:.2f} s)",
        f"{s3a['app']['first_to_last'] / s3a['bare']['first_to_last']:.1f}x",
        "",
    )
    add(
        "S3 12,000 code-heavy tokens, full speed",
        f"{s3b['app']['first_to_last']:.2f} s (bare {s3b['bare']['first_to_last']:.2f} s)",
        f"{s3b['app']['first_to_last'] / s3a['app']['first_to_last']:.2f}x the 6k",
        "<= 2.2x",
    )
    h1 = headless(Scenario(n(6000), rate=300), warm_turns=50 if not args.quick else 5)
    add("H1 lag, 6,000 tokens after 50 messages", f"{h1['lag']:.2f} s", "", "<= 0.1 s")
    add(
        "H1 event-loop stall p50 / p99 / max",
        f"{h1['stall_ms_p50']:.0f} / {h1['stall_ms_p99']:.0f} / {h1['stall_ms_max']:.0f} ms",
        "",
        "p99 <= 50 ms",
    )
    add(
        "H1 frames, mean / p99 frame time",
        f"{h1['frames']}, {h1['frame_ms_mean']:.0f} / {h1['frame_ms_p99']:.0f} ms",
        "",
        "",
    )
    add("H1 final Markdown source == answer", str(h1["source_ok"]), "", "True")
    answers = 20 if not args.quick else 3
    held = resize_stall(Scenario(n(3000)), answers)
    add(f"resize after {answers} answers of {n(3000):,} tokens: longest stall", f"{held * 1000:.0f} ms", "", "")
    frames, floor_frames = [], []
    for _ in range(5):  # in turn with the floor app, which shows how fast the machine starts a Textual app just now
        frames.append(first_frame(chatterm("http://127.0.0.1:9/v1")))
        floor_frames.append(first_frame(floor("http://127.0.0.1:9/v1")))
    add(
        "startup: first frame (median of 5)",
        f"{statistics.median(frames):.2f} s (floor app {statistics.median(floor_frames):.2f} s)",
        f"{statistics.median(frames) / statistics.median(floor_frames):.1f}x the floor app",
        "<= 0.5 s",
    )
    add("startup: chatterm --version (median of 5)", f"{version_time():.3f} s", "", "<= 0.2 s")
    session = Path(tempfile.mkdtemp()) / "session.yaml"
    big_session(500 if not args.quick else 50, session)
    opened = open_session(session)
    add("500-turn session: time to interactive", f"{opened['interactive']:.2f} s", "", "<= 1.5 s")
    add("500-turn session: RSS", f"{opened['rss_mb']:.0f} MB", "", "<= 250 MB")
    branched_turns, branches = (500, 50) if not args.quick else (50, 5)
    tree = branched_open(branched_turns, branches, runs=5 if not args.quick else 1)
    for key, what in (("opened", "opened (tail of the active branch)"), ("whole", "whole history")):
        branched, linear = tree["branched"][key], tree["linear"][key]
        add(
            f"{branched_turns} turns, {branches} branches: {what}, core",
            f"{branched:.2f} s (linear {linear:.2f} s)",
            f"{branched / linear:.2f}x",
            "<= 1.1x the linear",
        )
    switched = branch_switch(branched_turns, count=4 if not args.quick else 2)
    add(
        f"{branched_turns} turns, branch switch at the second turn: redraw",
        f"{switched['median'] * 1000:.0f} ms (longest {switched['max'] * 1000:.0f} ms)",
        "",
        "<= 100 ms",
    )
    add(
        f"{branched_turns} turns, branch switch: longest hold of the event loop",
        f"{switched['held'] * 1000:.0f} ms",
        "",
        "",
    )
    saved_turns = 2000 if not args.quick else 200
    saving = save_while_streaming(saved_turns)
    add(
        f"{saved_turns:,}-turn session ({saving['file_mb']:.0f} MB): a save while an answer streams",
        f"{saving['stream_save_s'] * 1000:.0f} ms, {saving['stream_save_kb']:,.0f} KB written",
        "",
        "",
    )
    add(
        f"{saved_turns:,}-turn session: the save of a branch switch",
        f"{saving['switch_save_s'] * 1000:.0f} ms, {saving['switch_save_kb']:,.0f} KB written",
        "",
        "",
    )
    add("show --json of a 10 MB recording", f"{show_big(10 * scale):.2f} s", "", "<= 1.5 s")
    over_time(add, args.quick)
    return _finish(rows, args, "chatterm")


def _range(figure: tuple[float, float, float], unit: str = " s") -> str:
    """A median and the range of its runs."""
    median, low, high = figure
    return f"{median:.2f}{unit} ({low:.2f}-{high:.2f})"


def over_time(add: Any, quick: bool) -> None:
    """The rows of bench/overtime.py: medians, with the range of the runs (this machine is shared)."""
    from bench import overtime

    runs = 1 if quick else 3
    events = 3_000 if quick else 30_000
    flood = overtime.record_flood(events, runs=3 if quick else 5)
    add(
        f"ask --record under a flood ({events:,} events)",
        f"{flood['recorded']:.2f} s (without --record {flood['plain']:.2f} s)",
        f"{flood['ratio']:.2f}x ({flood['ratio_low']:.2f}-{flood['ratio_high']:.2f})",
        "<= 1.5x",
    )
    count = 500 if quick else 5000
    sessions = overtime.sessions_dialog(count, runs)
    for state, label in (("cold", "no index"), ("warm", "indexed")):
        figures = sessions[state]
        add(f"Ctrl+O, {count:,} sessions, {label}: first rows", _range(figures["first"]), "", "at once")
        add(f"Ctrl+O, {count:,} sessions, {label}: full list", _range(figures["full"]), "", "<= 2 s")
        add(f"Ctrl+O, {count:,} sessions, {label}: longest hold", _range(figures["stall"]), "", "")
    profiles = 20 if quick else 200
    probed = overtime.profiles_dialog(profiles, runs)
    add(f"Ctrl+L, {profiles} local profiles: the dialog", _range(probed["dialog"]), "", "at once")
    add(f"Ctrl+L, {profiles} local profiles: all servers asked", _range(probed["filled"]), "", "")
    megabytes = 3.7 if quick else 37
    for shape, figures in overtime.replay_shapes(megabytes, runs).items():
        add(f"replay --instant, {megabytes:g} MB go-vcr, {shape}", _range(figures["seconds"]), "", "<= 5 s")
        add("  (its CPU by then)", _range(figures["cpu"]), "", "")


def _finish(rows: list[tuple[str, str, str, str]], args: argparse.Namespace, subject: str) -> int:
    if args.no_write:
        return 0
    import textual

    from chatterm import __version__

    lines = [
        "# Benchmark results",
        "",
        f"{subject} {__version__}, {date.today()}, {'quick smoke' if args.quick else 'full run'}; "
        f"{os.cpu_count()} cores, Python {platform.python_version()}, Textual {textual.__version__}, tmux 160x50.",
        "Ratios are against the bare httpx-sse client measured in the same run, in a process of its own as the app",
        "runs (its CPU is that process's during the stream); each figure is the median of 3 runs, the bare client and",
        "the app in turn (1 in a quick smoke; S3: 5 rounds of a 6k and a 12k run, 3 in a quick smoke). The first",
        "frame is started in turn with the floor app (bench/floor.py). `python3 -m bench.run` regenerates this file.",
        "",
        "| measure | value | ratio | target |",
        "|---|---|---|---|",
        *[f"| {a} | {b} | {c} | {d} |" for a, b, c, d in rows],
        "",
    ]
    (ROOT / "RESULTS.md").write_text("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
