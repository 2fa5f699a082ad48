"""Reading and copying answers: selecting text with the mouse, copying any message or code block."""

from __future__ import annotations

import pytest
from textual.pilot import Pilot
from textual.strip import Strip

from chatterm.ui.app import ChatApp
from chatterm.ui.markdown.view import MarkdownView
from chatterm.ui.widgets.messages import AssistantMessage
from tests.scripted import ScriptedServer, sse_script
from tests.ui.helpers import app_for, run_command, send, wait_for


async def answered(pilot: Pilot[None], app: ChatApp, prompt: str = "q") -> AssistantMessage:
    before = len(app.chat_screen.messages())
    await send(pilot, app, prompt)
    screen = app.chat_screen
    await wait_for(pilot, lambda: len(screen.messages()) > before and screen.messages()[-1].finished)
    await pilot.pause()
    return screen.messages()[-1]


def selected_cells(line: Strip, app: ChatApp) -> str:
    """The characters of a drawn line shown in the screen's selection style."""
    selection = app.screen.get_component_rich_style("screen--selection")
    return "".join(seg.text for seg in line if seg.style is not None and seg.style.bgcolor == selection.bgcolor)


async def drag(pilot: Pilot[None], view: MarkdownView, start: tuple[int, int], end: tuple[int, int]) -> None:
    """Drag the mouse from one cell of the view's text to another (cells of its content, inside its padding)."""
    gutter = view.content_region.offset - view.region.offset
    await pilot.mouse_down(view, offset=gutter + start)
    await pilot.hover(view, offset=gutter + end)
    await pilot.mouse_up(view, offset=gutter + end)
    await pilot.pause()


async def test_a_drag_over_an_answer_highlights_it_and_ctrl_c_copies_exactly_that(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("Alpha beta gamma delta.\n\nSecond paragraph here.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        message = await answered(pilot, app)
        view = message.markdown
        assert view.lines[0].text.startswith("Alpha beta gamma")
        await drag(pilot, view, (6, 0), (15, 0))  # (the cell under the pointer is selected)
        assert selected_cells(view.render_line(0), app) == "beta gamma"
        await pilot.press("ctrl+c")
        assert app.clipboard == "beta gamma"

        await drag(pilot, view, (11, 0), (5, 2))  # across lines: no padding at the ends of lines
        await pilot.press("ctrl+c")
        assert app.clipboard == "gamma delta.\n\nSecond"


async def test_a_drag_over_the_reasoning_copies_exactly_that(scripted: ScriptedServer) -> None:
    scripted.answers = [sse_script("The answer.", reasoning="First I weigh the options carefully.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        message = await answered(pilot, app)
        message.toggle_reasoning()
        await pilot.pause()
        view = message.reasoning_pane.body
        await wait_for(pilot, lambda: view.region.height > 0)
        await drag(pilot, view, (6, 0), (12, 0))
        assert selected_cells(view.render_line(0), app) == "I weigh"
        await pilot.press("ctrl+c")
        assert app.clipboard == "I weigh"


FIRST = "Two ways:\n\n```python\nprint('one')\n```\n\n1. Or:\n\n   ```bash\n   echo two\n   ```\n"
SECOND = "A third:\n\n```\nthree()\n```\n"


async def test_any_message_can_be_copied_from_the_palette(scripted: ScriptedServer) -> None:
    from chatterm.ui.screens.copying import PickScreen

    scripted.answers = [sse_script("The first answer."), sse_script("The second answer.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(100, 30)) as pilot:
        await answered(pilot, app, "first prompt")
        await answered(pilot, app, "second prompt")
        await run_command(pilot, app, "copy message")
        await wait_for(pilot, lambda: isinstance(app.screen, PickScreen))
        await pilot.press("down", "down", "enter")  # newest first: the second answer, its prompt, the first answer
        await wait_for(pilot, lambda: not isinstance(app.screen, PickScreen))
        assert app.clipboard == "The first answer."
        await run_command(pilot, app, "copy message")
        await wait_for(pilot, lambda: isinstance(app.screen, PickScreen))
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: not isinstance(app.screen, PickScreen))
        assert app.clipboard == "second prompt"


async def test_code_blocks_show_numbers_on_through_the_conversation_and_any_is_copied(
    scripted: ScriptedServer,
) -> None:
    from chatterm.ui.screens.copying import PickScreen
    from tests.ui.helpers import shown_text

    scripted.answers = [sse_script(FIRST), sse_script(SECOND)]
    app = app_for(scripted.url)
    async with app.run_test(size=(100, 50)) as pilot:
        first = await answered(pilot, app)
        second = await answered(pilot, app)
        tops = [line.text for line in map(first.markdown.render_line, range(first.markdown.line_count))]
        assert [line.rstrip()[-3:] for line in tops if line.rstrip().endswith("]")] == ["[1]", "[2]"]
        assert "[3]" in shown_text(app.export_screenshot())
        assert second.markdown.code_base == 2
        assert "[1]" not in "".join(line.text for line in first.markdown.lines), "drawn over the lines, not in them"

        await run_command(pilot, app, "copy code block 2")
        assert app.clipboard == "echo two\n"
        await run_command(pilot, app, "copy code block…")
        await wait_for(pilot, lambda: isinstance(app.screen, PickScreen))
        await pilot.press("down", "down", "enter")  # newest first
        await wait_for(pilot, lambda: not isinstance(app.screen, PickScreen))
        assert app.clipboard == "print('one')\n"


async def test_prose_is_drawn_at_most_the_reading_width_wide(scripted: ScriptedServer) -> None:
    prose = " ".join(f"word{n}" for n in range(120))
    scripted.answers = [sse_script(prose, reasoning=prose)]
    app = app_for(scripted.url)
    assert app.settings.reading_width == 100
    async with app.run_test(size=(200, 40)) as pilot:
        message = await answered(pilot, app)
        assert message.markdown.content_region.width == 100
        assert max(len(line.text.rstrip()) for line in message.markdown.lines) <= 100
        message.toggle_reasoning()
        await wait_for(pilot, lambda: message.reasoning_pane.body.content_region.width > 0)
        assert message.reasoning_pane.body.content_region.width == 100
    app = app_for(scripted.url)
    app.settings.reading_width = 60
    async with app.run_test(size=(200, 40)) as pilot:
        message = await answered(pilot, app)
        assert message.markdown.content_region.width == 60


async def test_with_no_color_a_selection_is_shown_reversed(
    scripted: ScriptedServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    scripted.answers = [sse_script("Alpha beta gamma delta.")]
    app = app_for(scripted.url)
    async with app.run_test(size=(80, 24)) as pilot:
        view = (await answered(pilot, app)).markdown
        await drag(pilot, view, (6, 0), (9, 0))
        reversed_text = "".join(seg.text for seg in view.render_line(0) if seg.style is not None and seg.style.reverse)
        assert reversed_text == "beta"
