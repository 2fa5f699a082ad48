"""The conversation tree's keys on the chat screen: edit a prompt, regenerate or continue an answer, switch branch,
fork, and Ctrl+R (see `message_keys` for how a key reaches its handler here).

Each acts on the turn of the selected message (`branches.turn_of`) through the session's own calls (`edit`,
`regenerate`, `continue_answer`, `switch_branch`) and changes the screen from that turn down (`below.cut`, then
the new answer streams, or `below.draw_below` draws the branch). None acts while an answer is on its way.

An edit is two steps: `e` puts the prompt into the composer under an `EditBanner`; Enter sends it as a new branch
(`submit_edit`), Escape cancels (`cancel_edit`): the chat screen asks these first.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from chatterm.conversation.tree import Turn
from chatterm.ui.plain import notify
from chatterm.ui.screens import below, branches
from chatterm.ui.widgets.edit_banner import EditBanner
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage

if TYPE_CHECKING:
    from chatterm.cassette.model import Interaction
    from chatterm.chat.session import ChatSession
    from chatterm.ui.app import ChatApp
    from chatterm.ui.screens.chat import ChatScreen

Message = UserMessage | AssistantMessage
BUSY = "An answer is on its way: wait for it to end, or stop it with Escape."


def _turn(screen: ChatScreen, message: Message) -> tuple[ChatSession, Turn] | None:
    """The session and the turn a key acts on, or None (and the user told why) when it cannot act now."""
    if screen.busy:
        notify(screen, BUSY, severity="warning")
        return None
    session = branches.ready_session(screen)
    turn = branches.turn_of(screen, message) if session is not None else None
    if session is None or turn is None:
        notify(screen, "This message is not part of the saved conversation yet.", severity="warning")
        return None
    return session, turn


# -- edit ---------------------------------------------------------------------------------------------------------


def editing(screen: ChatScreen) -> EditBanner | None:
    """The banner of the edit under way, if one is (above the composer: the footer asks on every change of the
    bindings, so the conversation's messages are not searched)."""
    beside = screen.composer.parent.children if screen.composer.parent is not None else []
    return next((banner for banner in beside if isinstance(banner, EditBanner) and not banner.ended), None)


def edit(screen: ChatScreen, message: Message) -> None:
    found = _turn(screen, message)
    if found is None:
        return
    session, turn = found
    composer = screen.composer
    number = branches.depth(session.tree, turn) + 1
    banner = editing(screen)
    if banner is not None:
        banner.retarget(number, turn.id)
    else:
        screen.query_one("#input").mount(EditBanner(number, turn.id, composer.text), before=composer)
        screen.call_after_refresh(screen.refresh_bindings)  # (Escape cancels it)
    composer.load_text(session.prompt_of(turn))
    composer.move_cursor(composer.document.end)
    composer.focus()


def cancel_edit(screen: ChatScreen) -> bool:
    """Escape: the edit under way ends, the composer holds again what it held before it (False: none was)."""
    banner = editing(screen)
    if banner is None:
        return False
    banner.end()
    screen.call_after_refresh(screen.refresh_bindings)
    screen.composer.load_text(banner.kept)
    screen.composer.move_cursor(screen.composer.document.end)
    return True


def submit_edit(screen: ChatScreen, text: str) -> bool:
    """Enter during an edit: `text` goes as a new branch from the edited prompt (False: no edit is under way)."""
    banner = editing(screen)
    if banner is None:
        return False
    banner.end()
    screen.run_worker(_send_edit(screen, banner.turn, text, banner.kept), group="submit")
    return True


async def _send_edit(screen: ChatScreen, turn_id: str, text: str, kept: str) -> None:
    session = branches.ready_session(screen)
    if session is None or turn_id not in session.tree or screen.busy:
        notify(screen, BUSY if screen.busy else "The edited message is gone.", severity="warning")
        screen.composer.give_back(text)
        return
    turn = session.tree.turns(turn_id)[-1]
    screen._sending = True
    try:
        with screen.app.batch_update():
            await below.cut(screen, turn)
            session.edit(turn.id, text)
            await screen._add_prompt(text)
            await screen._start_answer()
    finally:
        screen._sending = False
    if kept and not screen.composer.text:
        screen.composer.load_text(kept)


# -- regenerate, continue ----------------------------------------------------------------------------------------


async def regenerate(screen: ChatScreen, message: Message) -> None:
    found = _turn(screen, message)
    if found is not None:
        await _regenerate(screen, *found)


async def _regenerate(screen: ChatScreen, session: ChatSession, turn: Turn) -> None:
    """Turn `turn`'s request asked again, by the profile and model of now: its answer gets a sibling."""
    with screen.app.batch_update():
        await below.cut(screen, turn)
        session.regenerate(turn.id)
        calls = below.calls_above(screen)
        await screen.conversation_view.mount_all(below.opening(screen, turn, calls))
        await below.show_results(calls)
        branches.mark(screen)  # (the prompt drawn again says which of its alternatives it is)
        await screen._start_answer()
    screen.composer.focus()


async def continue_answer(screen: ChatScreen, message: Message) -> None:
    """The rest of a cut-short answer, streamed on after its text as one answer."""
    found = _turn(screen, message)
    if found is None:
        return
    session, turn = found
    partial = session.answer_of(turn)
    if not partial.content:
        notify(screen, "Nothing to continue: this answer has no text (r asks again).", severity="warning")
        return
    with screen.app.batch_update():
        await below.cut(screen, turn)
        session.continue_answer(turn.last)
        answer = AssistantMessage(show_reasoning=screen.show_reasoning)
        if partial.reasoning:
            answer.add_reasoning(partial.reasoning)
        answer.add_answer(partial.content)
        calls = below.calls_above(screen)
        await screen.conversation_view.mount_all([*below.opening(screen, turn, calls), answer])
        await below.show_results(calls)
        branches.mark(screen)
        screen.conversation_view.follow()
        screen._worker = screen._answer(answer)
    screen.composer.focus()


async def retry(screen: ChatScreen) -> None:
    """Ctrl+R: after an error or a stop, ask again; otherwise regenerate the last answer."""
    await below.to_end(screen)
    if screen.busy:
        return
    session = screen.session
    if session is None:
        return
    tree = session.tree
    failed = session.last_failed and session.last_exchange in (None, tree.active)
    if not failed and tree.nodes:
        await _regenerate(screen, session, tree.turns()[-1])
        return
    if not session.prepare_retry():
        notify(screen, "Nothing to retry.", severity="warning")
        return
    await screen._start_answer()


# -- branches -----------------------------------------------------------------------------------------------------


async def next_branch(screen: ChatScreen, message: Message) -> None:
    await _switch(screen, message, 1)


async def previous_branch(screen: ChatScreen, message: Message) -> None:
    await _switch(screen, message, -1)


async def _switch(screen: ChatScreen, message: Message, step: int) -> None:
    """Show the alternative `step` places from the message's (`branches.alternatives`), and the branch below it as
    it was last seen."""
    found = _turn(screen, message)
    if found is None:
        return
    session, turn = found
    among = branches.alternatives(session, turn.id, isinstance(message, UserMessage))
    index = among.index(turn.id) + step
    if not 0 <= index < len(among):
        screen.app.bell()
        return
    sibling = among[index]
    view = screen.conversation_view
    with screen.app.batch_update():
        await below.cut(screen, turn)
        session.switch_branch(sibling)
        await below.draw_below(screen, session.tree.turns(sibling)[-1])
        branches.mark(screen)
        _show_last_answer(screen, session)
        same = [widget for widget in view.selectable() if type(widget) is type(message) and widget.turn == sibling]
        if same:
            view.focus()
            view.select(same[0])


def _show_last_answer(screen: ChatScreen, session: ChatSession) -> None:
    """The status line shows the model and usage of the branch's last answer, the end of the conversation now."""
    from chatterm.ui.screens.recorded import answered_by

    last = session.tree.turns()[-1]
    reply = session.answer_of(last)
    screen.status.show_answer(answered_by(session.exchange(last.last), reply), reply.usage)


# -- fork ---------------------------------------------------------------------------------------------------------


def fork(screen: ChatScreen, message: Message) -> None:
    """A new session with the branch up to the selected message: up to an answer, its turn; up to a prompt, the
    turns before it, the prompt in the new composer."""
    found = _turn(screen, message)
    if found is None:
        return
    session, turn = found
    tree = session.tree
    prompt = None
    upto: str | None = turn.last
    if isinstance(message, UserMessage):
        above = tree.turns(turn.id)[:-1]
        upto, prompt = (above[-1].last if above else None), session.prompt_of(turn)
    exchanges = [copy.deepcopy(session.exchange(node)) for node in tree.path(upto)] if upto is not None else []
    origin = session.path.name if session.path is not None else "this chat"
    fork_of = _fork(screen.app, session.recorder.recording.format, exchanges, prompt, origin)
    screen.app.run_worker(fork_of, group="fork")


async def _fork(app: ChatApp, format: str, exchanges: list[Interaction], prompt: str | None, origin: str) -> None:
    from chatterm.cassette.model import Recording
    from chatterm.ui.widgets.messages import InfoMessage

    await app.start_chat(welcome=not exchanges)
    screen = app.chat_screen
    said = f"Forked from {origin}, which stays as it was (Ctrl+O opens it). Type to go on in this new session."
    if exchanges:
        await screen.replay(Recording(format, exchanges), 1.0, True).wait()
        ended = screen.conversation_view.children[-1] if screen.conversation_view.children else None
        if isinstance(ended, InfoMessage):  # (what a replay says at its end: nothing was replayed here)
            ended.show(said)
    else:
        await screen.info(said)
    session = app.session
    if session is not None and exchanges:
        session.save()
    if prompt is not None:
        screen.composer.load_text(prompt)
        screen.composer.move_cursor(screen.composer.document.end)
    where = f" ({session.path.name})" if session is not None and session.path is not None and exchanges else ""
    notify(screen, f"Forked into a new session{where}.")
