"""The screen shows exactly what was received: every frame the app sends to the terminal, played into an emulator,
against fresh renders of the text received (tests/ui/oracle.py), for every recording the project holds, for the
cases users met, and for what Hypothesis makes up."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot

from chatterm.cassette.branches import active_answers
from chatterm.cassette.load import load_recording
from chatterm.cassette.model import Recording
from chatterm.ui.app import SPEEDS, ChatApp
from chatterm.ui.widgets.messages import AssistantMessage, ReasoningPane
from tests.conftest import recordings
from tests.scripted import ScriptedServer, sse_script
from tests.ui.helpers import app_for, send, wait_for
from tests.ui.oracle import Oracle, ending, final, quiet

SIZE = (100, 30)
REPLAY_SECONDS = 1.0
"""How long a recording's replay lasts at most (its pace is scaled up to fit): long enough for many frames."""

Steps = Callable[[Pilot[None], ChatApp], Awaitable[None]]


def answers_done(app: ChatApp, count: int) -> bool:
    messages = app.chat_screen.messages() if len(app.screen_stack) > 1 else []
    return len(messages) >= count and all(message.finished for message in messages)


async def checked(app: ChatApp, steps: Steps, size: tuple[int, int] = SIZE) -> Oracle:
    """Run `steps` in the app with the oracle watching every frame, then compare the end with a fresh render;
    fail with every difference found."""
    oracle = Oracle(app)
    async with app.run_test(size=size) as pilot:
        await steps(pilot, app)
        await quiet(pilot)
        problems = [str(problem) for problem in oracle.problems]
        end = ending(oracle)
    problems += await final(end)
    assert not problems, "\n".join(problems)
    assert oracle.settled, "no frame was drawn with its layout settled: the terminal was never compared"
    return oracle


def _paced(recording: Recording) -> str:
    """A replay speed at which the recording lasts at most REPLAY_SECONDS (a key of the app's SPEEDS)."""
    longest = 0.0
    for interaction in recording.interactions:
        response = interaction.response
        if response.offsets:
            longest += response.offsets[-1][0]
        elif response.duration:
            longest += response.duration
    speed = max(longest / REPLAY_SECONDS, 1.0)
    label = f"{speed:.3g}x"
    SPEEDS.setdefault(label, (speed, False))
    return label


STOCK_SAMPLE = {
    "xai_grok_simple_streaming.yaml": "reasoning, a long run of empty deltas, then the answer",
    "pydai__test_deepseek__test_deepseek_model_thinking_stream.yaml": "long reasoning, wrapped as it streams",
    "lls__responses__c5854583e81d04cc57890b0fed35f17c451329a69ad8f8a4f00b88d70f98081f.json": "a long answer",
    "fantasy__TestOpenAICommon__openai-gpt-4o__multi_tool_streaming.yaml": "parallel tool calls, then their results",
    "fantasy__TestAnthropicThinking__claude-sonnet-4__thinking-streaming.yaml": "thinking, then a tool call's JSON",
    "fantasy__TestGoogleThinking__gemini-2.5-flash__thinking-streaming.yaml": "thought parts, then a function call",
    "lls__inference__65eba1be095a7037c4f197f4168b310ebc8afc00aba3946ba498abe2fdbe6a63.json": "<think> in the text",
    "pydai__test_openrouter__test_openrouter_stream_error.yaml": "an answer cut by an error: its notice",
    "lls__inference__28a43dc80443ccae98eee165c58522090fd6f0637031153b0105399093d39c52.json": "an error, no answer",
    "fantasy__TestOpenAICommon__openai-gpt-4o__simple.yaml": "an answer not streamed: all of it at once",
}
"""The recordings the stock-render pass replays (`stock_sample`, .ci/run), one for each kind of thing a replay puts on
screen. The render paths differ in how the screen is drawn, not in how a recording decodes, so a recording whose
only difference from these is its wire format shows nothing new there (every one replays in the main pass)."""


def _sampled(path: Path) -> Any:
    return pytest.param(path, marks=pytest.mark.stock_sample) if path.name in STOCK_SAMPLE else path


def test_the_stock_sample_is_of_recordings_the_suite_holds() -> None:
    assert set(STOCK_SAMPLE) <= {path.name for path in recordings()}


@pytest.mark.parametrize("path", [_sampled(path) for path in recordings()], ids=lambda p: p.name[:50])
async def test_every_recording_replays_on_screen_exactly(path: Path) -> None:
    recording = load_recording(path)
    app = app_for(replay=recording, speed=_paced(recording), save_sessions=False)

    async def replayed(pilot: Pilot[None], app: ChatApp) -> None:
        await wait_for(pilot, lambda: answers_done(app, len(active_answers(recording).interactions)), 60)
        await wait_for(pilot, lambda: "Replay finished" in str(app.chat_screen.conversation_view.children[-1].render()))

    await checked(app, replayed)


async def test_reasoning_shows_what_the_model_sent_however_late_its_pane_appears(
    scripted: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reasoning that arrives while its pane is being mounted (a busy machine) was shown twice: `Hmmmm, the user`
    where the model sent `Hmm, the user` (the deepseek recording, replayed at its pace)."""
    mount = AssistantMessage.mount

    async def slow_mount(self: AssistantMessage, *widgets: Any, **where: Any) -> None:
        if any(isinstance(widget, ReasoningPane) for widget in widgets):
            await asyncio.sleep(0.15)
        await mount(self, *widgets, **where)

    monkeypatch.setattr(AssistantMessage, "mount", slow_mount)
    reasoning = 'Hmm, the user just said "Hello". It\'s a simple greeting but I wonder if there\'s more to it.'
    script = sse_script("Hello there!", reasoning, answer_cuts=[5], reasoning_cuts=range(1, 90, 3), gaps=[0.01])
    scripted.answers = [script]
    app = app_for(base_url=scripted.url)

    async def asked(pilot: Pilot[None], app: ChatApp) -> None:
        await send(pilot, app, "Hello")
        await wait_for(pilot, lambda: answers_done(app, 1))
        await wait_for(pilot, lambda: app.chat_screen.messages()[-1].reasoning == reasoning)

    await checked(app, asked)


LONG_ANSWER = (
    "## Steps\n\n"
    + "".join(f"{n}. Step number {n} of the plan, with enough words to wrap at a narrow width.\n" for n in range(1, 13))
    + "\n```python\n"
    + "".join(f"def f{n}(x):\n    return x * {n}  # a comment that runs past a narrow edge\n" for n in range(8))
    + "```\n\n| name | value | note |\n|---|---|---|\n"
    + "".join(f"| row {n} | {n * n} | the {n}th row of the table |\n" for n in range(10))
    + "\nThe last line of the answer."
)


async def test_a_resize_storm_while_an_answer_streams_leaves_it_whole(scripted: ScriptedServer) -> None:
    """Rapid resizes while an answer streams (a tiling window manager, a tmux split being dragged) left the finished
    answer cut off on screen: the tail of a code block, a table, the last line never drawn."""
    scripted.answers = [sse_script(LONG_ANSWER, "Planning the steps.", answer_cuts=range(3, 2000, 9), gaps=[0.004])]
    app = app_for(base_url=scripted.url)
    sizes = [(100, 30), (64, 22), (120, 40), (40, 12), (90, 26), (72, 30), (100, 18), (100, 30)]

    async def storm(pilot: Pilot[None], app: ChatApp) -> None:
        await send(pilot, app, "Plan it")
        await wait_for(pilot, lambda: bool(app.chat_screen.messages()) and bool(app.chat_screen.messages()[-1].answer))
        for size in sizes * 3:
            await pilot.resize_terminal(*size)
            await asyncio.sleep(0.03)
        await wait_for(pilot, lambda: answers_done(app, 1))

    await checked(app, storm)


async def test_a_terminal_made_shorter_mid_answer_goes_on_following(scripted: ScriptedServer) -> None:
    """Opening a tmux split under the app makes it shorter while an answer streams: the answer finished off screen."""
    scripted.answers = [sse_script(LONG_ANSWER, answer_cuts=range(3, 2000, 11), gaps=[0.006])]
    app = app_for(base_url=scripted.url)

    async def shorter(pilot: Pilot[None], app: ChatApp) -> None:
        await send(pilot, app, "Plan it")
        await wait_for(pilot, lambda: "Step number 4" in app.chat_screen.messages()[-1].answer)
        await pilot.resize_terminal(100, 14)
        await wait_for(pilot, lambda: answers_done(app, 1))
        assert "The last line" in app.chat_screen.messages()[-1].answer

    await checked(app, shorter)


async def test_an_empty_answer_shows_its_turn_and_says_it_was_empty(scripted: ScriptedServer) -> None:
    """An answer with no content was not drawn at all: the prompt disappeared and the status said ready."""
    scripted.answers = [sse_script("")]
    app = app_for(base_url=scripted.url)

    async def asked(pilot: Pilot[None], app: ChatApp) -> None:
        await send(pilot, app, "Say nothing")
        await wait_for(pilot, lambda: answers_done(app, 1))
        message = app.chat_screen.messages()[-1]
        assert message.has_notice and "empty" in str(message.notice.render())
        assert "ready" not in str(app.chat_screen.status.render())

    await checked(app, asked)


async def test_a_message_selected_while_an_answer_streams_is_drawn_as_a_fresh_render_draws_it(
    scripted: ScriptedServer,
) -> None:
    """The cursor's selection is drawn in the frames around it (the bar comes and goes without leaving a trace) and
    at the end, with an answer selected, the screen is what a fresh render of it draws."""
    scripted.answers = [sse_script("A short first answer."), sse_script(LONG_ANSWER, answer_cuts=range(3, 2000, 40))]
    app = app_for(base_url=scripted.url)

    async def selecting(pilot: Pilot[None], app: ChatApp) -> None:
        screen = app.chat_screen
        await send(pilot, app, "First")
        await wait_for(pilot, lambda: answers_done(app, 1))
        await send(pilot, app, "Plan it")
        await wait_for(pilot, lambda: len(screen.messages()) == 2 and "Step number 2" in screen.messages()[-1].answer)
        await pilot.press("tab")
        await wait_for(pilot, lambda: screen.conversation_view.selected is screen.messages()[-1])
        await wait_for(pilot, lambda: answers_done(app, 2))
        await pilot.press("home", "j", "escape", "tab", "up", "up")
        await wait_for(pilot, lambda: screen.conversation_view.selected is screen.messages()[0])

    await checked(app, selecting)


async def test_branches_switched_and_regenerated_on_screen_exactly(scripted: ScriptedServer) -> None:
    """An edit, a regeneration and branch switches: every frame is what a whole render draws, and the end (markers
    on the prompt and the answer, the switched message selected) is what a fresh render of it draws."""
    scripted.answers = [sse_script(f"Answer {n}, " * 30, answer_cuts=range(5, 400, 37)) for n in range(4)]
    app = app_for(base_url=scripted.url)

    async def branching(pilot: Pilot[None], app: ChatApp) -> None:
        screen = app.chat_screen
        for number, prompt in enumerate(("First", "Second"), 1):
            await send(pilot, app, prompt)
            await wait_for(pilot, lambda: answers_done(app, number) and not screen.busy)  # noqa: B023
        await pilot.press("tab", "home", "e")
        await wait_for(pilot, lambda: screen.composer.text == "First")
        await pilot.press(*" again", "enter")
        await wait_for(pilot, lambda: len(scripted.requests) == 3 and answers_done(app, 1) and not screen.busy)
        await pilot.press("tab", "r")
        await wait_for(pilot, lambda: len(scripted.requests) == 4 and answers_done(app, 1) and not screen.busy)
        await pilot.press("tab", "home", "left")
        await wait_for(pilot, lambda: len(screen.messages()) == 2)
        await pilot.press("right")
        await wait_for(pilot, lambda: len(screen.messages()) == 1 and screen.messages()[0].branch == (2, 2))

    await checked(app, branching, size=(80, 24))
