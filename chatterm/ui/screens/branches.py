"""The conversation tree on the chat screen: which turn each message shows, and the `‹ 2/3 ›` markers.

Each prompt and answer on screen knows the turn of the session's tree it shows (`turn`: the id of the exchange that
asked). A live answer learns it when it ends (`answered`), a drawn one when it is drawn (`below.draw_below`); the
messages of an opened recording, shown before its tree was read, get theirs from their place (`tag`): they are the
active branch's last turns, in order (a continued answer is one).

A turn with siblings says which of them it is: its prompt counts the prompts they asked (an edited prompt is another),
its answer the siblings that asked the same prompt (a regenerated answer is another); Left/Right on either move
between those (`alternatives`). Switching branch, editing, regenerating and continuing change the conversation from
one turn down (`below`).
"""

from __future__ import annotations

import itertools
from typing import TYPE_CHECKING

from chatterm.conversation.tree import ConversationTree, Turn
from chatterm.ui.widgets.messages import AssistantMessage, UserMessage

if TYPE_CHECKING:
    from chatterm.chat.session import ChatSession
    from chatterm.ui.screens.chat import ChatScreen

Message = UserMessage | AssistantMessage


def ready_session(screen: ChatScreen) -> ChatSession | None:
    """The screen's session once it holds a tree (None before the first exchange, or while a recording loads)."""
    session = screen.session
    return session if session is not None and session.tree.nodes else None


def tag(screen: ChatScreen) -> None:
    """Give the messages on screen that do not know their turn yet the one their place says (see the module)."""
    session = ready_session(screen)
    if session is None:
        return
    view = screen.conversation_view
    answers = [child for child in view.children if isinstance(child, AssistantMessage)]
    untagged = list(itertools.takewhile(lambda answer: answer.turn is None and answer.finished, answers))
    if untagged:
        branch = [turn.id for turn in session.tree.turns()]
        following = next((answer.turn for answer in answers if answer.turn is not None), None)
        end = branch.index(following) if following in branch else len(branch)
        ids = branch[max(end - len(untagged), 0) : end]
        for answer, turn_id in zip(untagged[len(untagged) - len(ids) :], ids, strict=True):
            answer.turn = turn_id
    below: str | None = None
    for child in reversed(view.children):  # (a prompt is the turn of the answer under it)
        if isinstance(child, AssistantMessage):
            below = child.turn
        elif isinstance(child, UserMessage) and child.turn is None:
            child.turn = below


def turn_of(screen: ChatScreen, message: Message) -> Turn | None:
    """The turn of the tree a message on screen shows (None: not known, or not in the tree)."""
    session = ready_session(screen)
    if session is None:
        return None
    tag(screen)
    if message.turn is None or message.turn not in session.tree:
        return None
    for turn in session.tree.turns():
        if turn.id == message.turn:
            return turn
    return session.tree.turns(message.turn)[-1]  # (a turn beside the active branch: an answer asked again below it)


def depth(tree: ConversationTree, turn: Turn) -> int:
    """How many turns come before `turn` on its branch."""
    return len(tree.turns(turn.id)) - 1


def answered(screen: ChatScreen, message: AssistantMessage) -> None:
    """A live answer ended: it and the prompts above it learn their turn, and the markers are brought up to date."""
    session = screen.session
    exchange = session.last_exchange if session is not None else None
    if session is None or exchange is None or exchange not in session.tree:
        return
    message.turn = session.tree.turns(exchange)[-1].id
    mark(screen)


def alternatives(session: ChatSession, turn_id: str, of_prompt: bool) -> list[str]:
    """The turns Left/Right move between from turn `turn_id`, oldest first: from its prompt, one per prompt its
    siblings asked (itself for its own, else the one that asked it seen last, or the newest); from its answer, the
    siblings that asked its prompt (regenerated answers)."""
    siblings = session.tree.siblings(turn_id)
    if len(siblings) == 1:
        return siblings
    prompts = {sibling: session.prompt_of(Turn((sibling,))) for sibling in siblings}
    own = prompts[turn_id]
    if not of_prompt:
        return [sibling for sibling in siblings if prompts[sibling] == own]
    tree = session.tree
    chosen: dict[str, str] = {}  # (of the siblings that asked a prompt, the one seen last; else the newest)
    for sibling in siblings:
        prompt = prompts[sibling]
        if prompt not in chosen or tree.seen(sibling) >= tree.seen(chosen[prompt]):
            chosen[prompt] = sibling
    chosen[own] = turn_id
    return list(chosen.values())


def place_among(session: ChatSession, turn_id: str, of_prompt: bool) -> tuple[int, int] | None:
    """Which of its alternatives a turn's prompt or answer is, of how many; None when it has none."""
    found = alternatives(session, turn_id, of_prompt)
    return (found.index(turn_id) + 1, len(found)) if len(found) > 1 else None


def mark(screen: ChatScreen) -> None:
    """Each message on screen shows which of its alternatives it is (a turn's last prompt and its last answer)."""
    session = ready_session(screen)
    if session is None:
        return
    tag(screen)
    tree = session.tree
    last: dict[tuple[str, bool], Message] = {}
    for child in screen.conversation_view.children:
        if isinstance(child, (UserMessage, AssistantMessage)):
            if child.turn is not None and child.turn in tree:
                last[(child.turn, isinstance(child, UserMessage))] = child
            child.show_branch(None)
    for (turn_id, of_prompt), message in last.items():
        message.show_branch(place_among(session, turn_id, of_prompt))
