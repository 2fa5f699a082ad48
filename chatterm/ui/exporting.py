"""Export to Markdown from the app: the conversation as shown (its active branch: Ctrl+E, "Export conversation"), or
the whole tree of the session ("Export whole tree": every branch, nested `<details>`). Each goes to a file of its
own in the data dir's `exports`, named for the session, with the session's secrets masked."""

from __future__ import annotations

from typing import TYPE_CHECKING

from chatterm import locations
from chatterm.conversation.export import to_markdown
from chatterm.private_files import write_private
from chatterm.ui.plain import notify

if TYPE_CHECKING:
    from chatterm.ui.app import ChatApp

NOTHING = "Nothing to export yet."


def export_branch(app: ChatApp) -> None:
    from chatterm.ui.screens.below import whole_turns

    turns = whole_turns(app.chat_screen)
    if not turns:
        notify(app, NOTHING, severity="warning")
        return
    _write(app, to_markdown(turns), "")


def export_tree(app: ChatApp) -> None:
    from chatterm.chat.tree_export import tree_markdown

    session = app.session
    if session is None or not session.tree.nodes:
        notify(app, NOTHING, severity="warning")
        return
    _write(app, tree_markdown(session), "-tree")


def _write(app: ChatApp, text: str, suffix: str) -> None:
    session = app.session
    stem = session.path.stem if session and session.path else "conversation"
    target = locations.data_dir() / "exports" / f"{stem}{suffix}.md"
    if session is not None:
        from chatterm.cassette.secrets import mask_text

        text = mask_text(text, session.secrets)
    try:
        write_private(target, text.encode())
    except OSError as exc:
        notify(app, f"cannot write {target} ({exc.strerror or exc})", severity="error")
        return
    notify(app, f"Exported to {target}")
