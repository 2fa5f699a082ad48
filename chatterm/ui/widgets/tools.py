"""Tool calls and their results in the conversation.

An answer's calls show under its text, each with its tool's name and its arguments, written as they stream in (raw
while they are not yet whole JSON, then pretty-printed). A recorded turn that sends results back shows each result
under the call it answers (`place`): matched by the call's id, or, where a format names only the tool (Gemini), by
its name. A call that no answer on screen made (the history of the first turn shown, a call the client made up
after an error) shows on its own, from the history, with its result. A long result is cut to a few lines, with the
rest a click (or Enter on its title) away, as the reasoning pane is.
"""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.widgets import Collapsible, Static

from chatterm.conversation.steps import CallMade, CallResult, Prompt, Step
from chatterm.conversation.tool_text import ToolUse, pretty_arguments
from chatterm.events import ToolCallDelta
from chatterm.terminal_text import neutralize
from chatterm.ui.markdown.text import TextView
from chatterm.ui.plain import escaped, plain

PREVIEW_LINES = 3
"""Lines of a long result shown while it is closed."""
PREVIEW_CHARACTERS = 240
"""Characters of a long result shown while it is closed (a result may be one line of thousands)."""


def shown_arguments(arguments: str) -> str:
    """Arguments as shown: pretty-printed once they are whole JSON (as the export writes them), as they came until
    then."""
    return pretty_arguments(arguments)


class ToolResult(Collapsible):
    """A tool's result under its call; a long one is closed on its first lines."""

    DEFAULT_CSS = """
    ToolResult { margin: 0; padding: 0; border: none; background: transparent; height: auto; }
    ToolResult > Contents { padding: 0 0 0 2; }
    ToolResult CollapsibleTitle { color: $success; padding: 0; margin: 0; }
    ToolResult .preview { display: none; padding: 0 0 0 2; color: $text-muted; }
    ToolResult.-collapsed > .preview { display: block; }
    """

    def __init__(self, text: str) -> None:
        self.text = text
        lines = text.splitlines() or [""]
        long = len(lines) > PREVIEW_LINES + 1 or len(text) > PREVIEW_CHARACTERS
        self.preview = Static(plain(_preview(lines)), classes="preview")
        self.body = Static(plain(text), classes="result-text")
        title = f"result · {len(lines)} lines" if long else "result"
        super().__init__(self.body, title=escaped(title), collapsed=long)

    def compose(self) -> ComposeResult:
        parts = iter(super().compose())
        yield next(parts)  # (the title)
        yield self.preview
        yield from parts


def _preview(lines: list[str]) -> str:
    """The first lines of a long result, and an ellipsis: at the end of a line cut short, else on a line of its own."""
    whole = "\n".join(lines[:PREVIEW_LINES])
    shown = whole[:PREVIEW_CHARACTERS]
    return f"{shown}…" if len(shown) < len(whole) else f"{shown}\n…"


class ToolCallBlock(Vertical):
    """One call: its tool's name, its arguments (as they arrive), and the results sent back for it."""

    DEFAULT_CSS = """
    ToolCallBlock { height: auto; margin: 1 2 0 2; padding: 0 0 0 1; border-left: tall $secondary 50%; }
    ToolCallBlock:first-child { margin: 0 2 0 2; }
    ToolCallBlock > .tool-name { color: $secondary; text-style: bold; }
    ToolCallBlock > .tool-arguments { color: $text-muted; padding: 0 0 0 2; }
    """

    def __init__(self, call_id: str = "", tool: str = "", arguments: str = "") -> None:
        super().__init__()
        self.call_id = call_id
        self.tool = tool
        self.arguments = ""
        """The arguments handed to the view so far (the rest waits for the next flush)."""
        self._pending: list[str] = []
        self.heading = Static(plain(self._heading()), classes="tool-name")
        self.arguments_view = TextView(classes="tool-arguments")
        self.results: list[ToolResult] = []
        self._children_made = False
        """Whether the results so far are children (those added later are mounted as they come)."""
        if arguments:
            self.add_arguments(arguments)
            self.flush()

    def _heading(self) -> str:
        return f"⚙ {self.tool or 'tool'}"

    def compose(self) -> ComposeResult:
        self._children_made = True
        yield self.heading
        yield self.arguments_view
        yield from list(self.results)

    def add_arguments(self, text: str) -> None:
        self._pending.append(text)

    def name_it(self, call_id: str | None, tool: str | None) -> None:
        if call_id:
            self.call_id = call_id
        if tool and tool != self.tool:
            self.tool = tool
            self.heading.update(plain(self._heading()))

    def flush(self) -> None:
        """Show the arguments that arrived since the last flush."""
        if not self._pending:
            return
        self.arguments += "".join(self._pending)
        self._pending.clear()
        shown = neutralize(shown_arguments(self.arguments))
        view = self.arguments_view
        if shown.startswith(view.source):
            view.append(shown[len(view.source) :])
        else:
            view.update(shown)
        view.fit_height()  # (a few lines: no room kept below them, which would push the next call down)

    def finish(self) -> None:
        self.flush()
        self.arguments_view.fit_height()  # (arguments that came before the view was laid out)

    def add_result(self, text: str) -> ToolResult:
        """A result sent back for this call, under it: a child when the call is put on screen, or, if it is on screen
        already, once `show_results` mounts it."""
        result = ToolResult(text)
        self.results.append(result)
        return result

    def use(self) -> ToolUse:
        """This call and the results under it, as the export and a copied message write them."""
        results = [CallResult(self.call_id, self.tool, result.text) for result in self.results]
        return ToolUse(CallMade(self.call_id, self.tool, self.arguments + "".join(self._pending)), results)

    async def show_results(self) -> None:
        """Mount the results added since the call was put on screen."""
        new = [result for result in self.results if result.parent is None]
        if new and self._children_made:
            await self.mount_all(new)


class ToolCalls(Vertical):
    """The calls of one answer (or, on their own, calls only a request's history holds)."""

    DEFAULT_CSS = """
    ToolCalls { height: auto; margin: 0; padding: 0; }
    ToolCalls.-spaced { margin-top: 1; }
    """

    def __init__(self, spaced: bool = False) -> None:
        super().__init__(classes="-spaced" if spaced else None)
        self.blocks: list[ToolCallBlock] = []
        self._streamed: dict[int, ToolCallBlock] = {}
        self._children_made = False

    def compose(self) -> ComposeResult:
        self._children_made = True
        yield from list(self.blocks)

    def add(self, delta: ToolCallDelta) -> None:
        """A fragment of a streamed call (fragments with the same index are one call)."""
        block = self._streamed.get(delta.index)
        if block is None:
            block = self._streamed[delta.index] = ToolCallBlock()
            self.blocks.append(block)
        block.name_it(delta.id, delta.name)
        if delta.arguments:
            block.add_arguments(delta.arguments)

    def add_block(self, block: ToolCallBlock) -> None:
        self.blocks.append(block)

    async def flush(self) -> None:
        """Mount the calls that started since the last flush and show the arguments that arrived."""
        new = [block for block in self.blocks if block.parent is None]
        if new and self._children_made:
            await self.mount_all(new)
        for block in self.blocks:
            block.flush()

    def finish(self) -> None:
        for block in self.blocks:
            block.finish()


def _match(blocks: list[ToolCallBlock], call_id: str, tool: str, taken: set[int]) -> ToolCallBlock | None:
    """The call `call_id` names, or, when it or the call has no id, the first call of `tool` not yet `taken`."""
    for block in blocks:
        if call_id and block.call_id == call_id:
            return block
    for block in blocks:
        if (not call_id or not block.call_id) and tool and block.tool == tool and id(block) not in taken:
            return block
    return None


def place(steps: list[Step], shown: list[ToolCallBlock]) -> list[str | ToolCalls]:
    """What a recorded turn shows before its answer: its prompts (text, for the caller's user messages) and groups of
    calls not on screen yet, in order. Each result goes under the call it answers: one of `shown` (the calls of the
    answer above), else one of the turn's own; once, so a turn drawn again under the same answer (a branch switched
    back to) adds none its calls show already."""
    placed: list[str | ToolCalls] = []
    known = list(shown)
    claimed: set[int] = set()
    answered: set[int] = set()

    def own(block: ToolCallBlock) -> None:
        if not placed or not isinstance(placed[-1], ToolCalls):
            placed.append(ToolCalls(spaced=True))
        group = placed[-1]
        assert isinstance(group, ToolCalls)
        group.add_block(block)
        known.append(block)

    for step in steps:
        if isinstance(step, Prompt):
            placed.append(step.text)
        elif isinstance(step, CallMade):
            block = _match(known, step.id, step.name, claimed)
            if block is None:
                block = ToolCallBlock(step.id, step.name, step.arguments)
                own(block)
            claimed.add(id(block))
        else:
            block = _match(known, step.call_id, step.name, answered)
            if block is None:
                block = ToolCallBlock(step.call_id, step.name)
                own(block)
            if not any(result.text == step.text for result in block.results):  # (drawn under it already)
                block.add_result(step.text)
            answered.add(id(block))
    return placed
