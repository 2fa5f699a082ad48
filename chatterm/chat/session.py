"""A chat session without a UI: the conversation, the client for the chosen profile, and the session file.

The app drives it (and so can a test or a script): `stream()` yields the events of one answer while the
exchange is recorded and saved (after every turn, and every second while an answer streams).

The conversation is a tree (`tree`, see `chatterm.conversation.tree`): each exchange is noted in the session file
with its id and the exchange it followed. What the next `stream()` asks is said first, each from an exchange of
the tree: `add_prompt` (a prompt after the active branch), `edit` (another prompt in place of an exchange's: a new
branch beside it), `regenerate` (the same prompt asked again: a sibling answer), `continue_answer` (the rest of a
cut-short answer, read joined to it); `switch_branch` makes another branch active, recorded in the file as a short
note. The UI reads the active branch as `tree.turns()` and each turn's prompt and answer with `prompt_of` and
`answer_of`.
"""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import httpx

from chatterm.cassette.branches import recorded_tree
from chatterm.cassette.model import Interaction, Recording, Switch
from chatterm.cassette.replay import ReplayTransport
from chatterm.cassette.secrets import known
from chatterm.cassette.store import ELSEWHERE, SessionSaver, new_session_path
from chatterm.cassette.summary import answers, reply_of
from chatterm.chat.branching import Branches, recorded_system
from chatterm.conversation.continuation import Continuation, continuation, without_echo
from chatterm.conversation.history import Conversation, turn_prompt
from chatterm.conversation.reply import Reply
from chatterm.conversation.tree import ConversationTree, Node, Turn
from chatterm.events import Event, StreamError
from chatterm.net.apis import EFFORTS
from chatterm.net.client import ChatClient
from chatterm.net.recorder import Recorder
from chatterm.net.sampling import ChatParams, check
from chatterm.settings.choice import Choice


class ChatSession:
    """One conversation, saved as it goes.

    Args:
        choice: the profile and endpoint that answers (switchable with `switch`).
        session_path: the session file (a new one in the sessions dir by default); None with save=False.
        on_save_error: told, once, when the session cannot be saved.
        transport: an httpx transport in place of the network (tests, replay).
        secrets: keys to mask besides the choice's own (those of profiles used before, in an earlier chat).

    The chat's system prompt (`system`) and its own parameters (`params`, over the profile's) hold for the next
    requests, whoever answers them; each turn is recorded with them, as with its profile and model, and a session
    opened again takes back those of its last turn.
    """

    def __init__(
        self,
        choice: Choice,
        session_path: Path | None = None,
        save: bool = True,
        on_save_error: Callable[[str], None] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        send_reasoning: bool = False,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.choice = choice
        self.conversation = Conversation()
        self.send_reasoning = send_reasoning
        self.replies: list[Reply] = []
        self.params = ChatParams()
        """The parameters this chat asks with over its profile's (`set_params`)."""
        self.on_settings: Callable[[], None] | None = None
        """Told when the system prompt or the parameters change other than by `system` and `set_params` (a session
        opened again takes back its own)."""
        self.on_loaded: Callable[[], None] | None = None
        """Told when a recording's tree has become this session's (`load_history`): what shows it can find its
        turns in the tree."""
        self._transport = transport
        self.secrets = known(choice.endpoint.secrets, secrets)
        """Every key of every profile this session has used, or was told of: masked in all it shows and saves."""
        self.saver = SessionSaver(session_path or new_session_path(), self.secrets, on_save_error) if save else None
        self.recorder = Recorder(on_update=self._save, secrets=self.secrets, on_exchange=self._placed)
        self.client = self._client(transport)
        self._last_failed = False
        self.branches = Branches()
        self._place: tuple[str | None, str | None] | None = None
        """Where the next exchange goes (the exchange it follows, the one it continues); None: after the active
        branch."""
        self._continuation: Continuation | None = None
        """The request of the next `stream()` when it continues a cut-short answer."""
        self._asking: tuple[str | None, str | None, list[dict[str, Any]]] | None = None
        """The place and messages of the answer streaming now."""
        self._asked: str | None = None
        """The exchange of the answer streaming now (the last attempt's, when it was retried)."""
        self._started = 0.0
        """When the answer streaming now (or the last one) was asked for."""
        self._last_exchange: str | None = None
        """The exchange the last `stream()` made (None when no request went out)."""
        self._continues: tuple[Path, int] | None = None
        self._prompts: dict[str, tuple[Interaction, str]] = {}
        """Each exchange's prompt as read from its request (`prompt_of`), with the interaction it was read from."""

    def _client(self, transport: httpx.AsyncBaseTransport | None) -> ChatClient:
        """A client on a copy of the choice's endpoint, which takes this chat's parameters (the choice's stays the
        profile's own: the next chat starts from it)."""
        endpoint = replace(self.choice.endpoint)
        client = ChatClient(endpoint, recorder=self.recorder, transport=transport, secrets=self.secrets)
        self._apply(client)
        return client

    def _apply(self, client: ChatClient) -> None:
        client.endpoint.sampling = self.params.sampling()
        client.endpoint.effort = self.params.effort if self.params.effort is not None else self.choice.endpoint.effort

    @property
    def tree(self) -> ConversationTree:
        """The conversation's tree of exchanges, and its active branch."""
        return self.branches.tree

    @property
    def effort(self) -> str | None:
        """The reasoning effort of the next answers (`chatterm.net.apis.EFFORTS`): the chat's, else the profile's;
        None leaves the provider's default."""
        return self.client.endpoint.effort

    @effort.setter
    def effort(self, value: str | None) -> None:
        if value is not None and value not in EFFORTS:
            raise ValueError(f"no reasoning effort {value!r} (one of {', '.join(EFFORTS)})")
        self.set_params(replace(self.params, effort=value))

    def set_params(self, params: ChatParams) -> None:
        """Ask the next answers with `params` over the profile's (a ValueError when one cannot be sent)."""
        for name, value in params.as_dict().items():
            try:
                check(name, value)
            except ValueError as exc:
                raise ValueError(f"{name} {exc}") from None
        self.params = replace(params)
        self._apply(self.client)

    @property
    def system(self) -> str | None:
        """The system prompt of the next requests (None: none)."""
        return self.conversation.system

    @system.setter
    def system(self, text: str | None) -> None:
        self.conversation.system = text if text and text.strip() else None

    @property
    def path(self) -> Path | None:
        return self.saver.path if self.saver else None

    @property
    def last_failed(self) -> bool:
        """Whether the last answer ended in an error or was stopped."""
        return self._last_failed

    @property
    def last_exchange(self) -> str | None:
        """The exchange the last `stream()` made (None when no request went out)."""
        return self._last_exchange

    def save(self) -> None:
        """Write the session file now (a session that starts from a recording has it at once)."""
        self._save(self.recorder)

    def _save(self, recorder: Recorder) -> None:
        self.secrets = known(self.secrets, recorder.secrets)  # with those the client learnt (a keyring's)
        if self.saver is not None and recorder.interactions:
            self.saver.secrets = self.secrets
            self.saver.save(recorder.recording)

    async def switch(self, choice: Choice, transport: httpx.AsyncBaseTransport | None = None) -> None:
        """Answer the next turns from another profile or model; the conversation goes on."""
        await self.client.aclose()
        self.choice = choice
        self.secrets = known(self.secrets, choice.endpoint.secrets)
        self.recorder.secrets = self.secrets
        if self.saver is not None:
            self.saver.secrets = self.secrets
        self._transport = transport
        self.client = self._client(transport)

    def add_prompt(self, prompt: str) -> None:
        """A prompt after the active branch, for the next `stream()`."""
        self.conversation.add_user(prompt)
        self._continuation = None

    def edit(self, node_id: str, prompt: str) -> None:
        """`prompt` in place of exchange `node_id`'s, for the next `stream()`: a new branch beside it (it stays)."""
        parent = self.tree.nodes[node_id].parent
        self.conversation.messages = [*self.branches.history(parent, self.send_reasoning)]
        self.conversation.add_user(prompt)
        self._place, self._continuation = (parent, None), None

    def regenerate(self, node_id: str) -> None:
        """Exchange `node_id`'s request asked again (with the profile and model of now), for the next `stream()`:
        its answer gets a sibling. A continuation is asked for again (in the words of whoever answers now)."""
        node = self.tree.nodes[node_id]
        if node.continues is not None:
            self.continue_answer(node.continues)
            return
        self.conversation.messages = self.branches.sent(node_id)
        self._place, self._continuation = (node.parent, None), None

    def continue_answer(self, node_id: str) -> None:
        """The rest of the answer that ends with exchange `node_id` (a turn's `last`), for the next `stream()`; the
        continuation is read joined to it. It is asked for in the way of the endpoint's API or server
        (`chatterm.conversation.continuation`)."""
        asked = self.branches.sent(self.branches.chain(node_id)[0])
        partial = self.branches.answer(node_id)
        endpoint = self.client.endpoint
        self._continuation = continuation(asked, partial, endpoint.api, endpoint.server, endpoint.base_url)
        self.conversation.messages = self._continuation.messages
        self._place = (node_id, node_id)

    def switch_branch(self, node_id: str) -> str:
        """Make the branch through exchange `node_id` active (below it, the branch last seen there); the next
        prompt follows it. The switch is saved as a short note. Returns the new active leaf."""
        before = self.tree.active
        leaf = self.tree.switch(node_id)
        self.conversation.messages = self.branches.history(leaf, self.send_reasoning)
        self._place, self._continuation = None, None
        if leaf != before:
            self.recorder.recording.switches.append(Switch(leaf, len(self.recorder.interactions)))
            self._save(self.recorder)
        return leaf

    def prompt_of(self, turn: Turn) -> str:
        """What the user typed for a turn (or the tool results it sent). Read once per exchange: its request holds
        the whole history before it, and the markers of every message on screen ask after every answer."""
        interaction = self.branches.exchanges[turn.id]
        known = self._prompts.get(turn.id)
        if known is None or known[0] is not interaction:
            known = self._prompts[turn.id] = (interaction, user_text(interaction))
        return known[1]

    def answer_of(self, turn: Turn) -> Reply:
        """A turn's answer: a cut-short answer joined with its continuations."""
        return self.branches.turn_answer(turn)

    def exchange(self, node_id: str) -> Interaction:
        """The recorded interaction of an exchange (its request, response and notes)."""
        return self.branches.exchanges[node_id]

    def _placed(self, interaction: Interaction) -> None:
        """A new exchange (the recorder's): noted with its place in the tree; an attempt that replaces one retried
        takes its place."""
        if self._asking is None:
            parent, continues, sent = self.tree.active, None, self.conversation.messages
        else:
            parent, continues, sent = self._asking
        if self._asked is not None:
            self.branches.drop(self._asked)
        node = Node(self.branches.new_id(), parent, continues)
        self.branches.add(interaction, node, sent)
        self._asked = node.id
        interaction.meta.update(self.asked_with(self._started))  # (a save while it streams names who was asked)

    async def stream(self) -> AsyncIterator[Event]:
        """The events of the answer to the conversation as it stands; the reply is kept as `replies[-1]`."""
        reply = Reply()
        self.replies.append(reply)
        first = len(self.recorder.interactions)
        started = self._started = time.time()
        finished = False
        parent, continues = self._place if self._place is not None else (self.tree.active, None)
        self._place, self._asked = None, None
        self._asking = (parent, continues, list(self.conversation.messages))
        try:
            async for event in self._events():
                reply.add(event)
                yield event
            finished = True
        finally:
            for interaction in self.recorder.interactions[first:]:
                interaction.meta.update(self.asked_with(started))
                if reply.model:  # (the model the provider says answered: the sessions list shows it)
                    interaction.meta["answered"] = reply.model
                interaction.done = finished
            self._last_failed = reply.error is not None or not finished
            asked, self._asking, self._asked = self._asked, None, None
            self._last_exchange = asked
            if asked is not None:
                self.branches.answered(asked, reply)
                self.conversation.messages = self.branches.history(asked, self.send_reasoning)
            else:  # (no request went out)
                self.conversation.add_reply(reply, include_reasoning=self.send_reasoning)
            if self.recorder.interactions:
                self._save(self.recorder)

    def _events(self) -> AsyncIterator[Event]:
        """The events of the next answer: a continuation's asked its own way, an echo of the partial answer left
        out."""
        continuing, self._continuation = self._continuation, None
        messages = self.conversation.request_messages()
        if continuing is None:
            return self.client.stream(messages)
        events = self.client.stream(messages, base_url=continuing.base_url, extra=continuing.body)
        return without_echo(events, continuing.partial)

    def asked_with(self, started: float) -> dict[str, object]:
        """What a turn is recorded with: who answered it, when, and the system prompt and parameters it was asked
        with (each only when there is one)."""
        meta: dict[str, object] = {"profile": self.choice.profile, "model": self.choice.endpoint.model}
        meta["started"] = round(started, 3)
        if self.conversation.system:
            meta["system"] = self.conversation.system
        if self.params.as_dict():
            meta["params"] = self.params.as_dict()
        return meta

    def prepare_retry(self) -> bool:
        """Drop the last (failed or stopped) answer from the history so the same question can be asked again: the
        last exchange is regenerated (a sibling answer)."""
        if not self.replies:
            return False
        last = self.replies.pop()
        leaf = self.tree.active
        if leaf is not None and leaf == self._last_exchange:
            self.regenerate(leaf)
            return True
        messages = self.conversation.messages
        if messages and messages[-1].get("role") == "assistant" and (last.content or last.tool_calls):
            messages.pop()
        return bool(messages) and messages[-1].get("role") in ("user", "tool")

    def go_on_in(self, path: Path, exchanges: int) -> None:
        """This conversation continues the session saved at `path` (`exchanges` in all): once its whole history is
        loaded (`load_history`), it goes on in that file, not in a new one. A history loaded in part, or from a file
        in another format than chatterm saves, goes on in a new file (the one opened stays as it was)."""
        self._continues = (path, exchanges)

    def load_history(self, recording: Recording, last: Reply | None = None) -> None:
        """Continue from a replayed recording: its tree becomes this session's (and its file's), the active branch
        the history, each request read in the words of its API (`native_history`); the system prompt and parameters
        are those the active branch's last turn was asked with. `last`: the reply of the recording's last turn when
        the caller has decoded it already (a long answer takes seconds)."""
        answered = answers(recording).interactions  # (the last turn, not a call recorded beside the chat)
        if not answered:
            return
        if not self.tree.nodes:
            recorded = recorded_tree(recording)
            self.branches.adopt(recorded)
            final = {id(value): key for key, value in recorded.exchanges.items()}.get(id(answered[-1]))
            if last is not None and final is not None:
                self.branches.answered(final, last)
            leaf = self.tree.active
            assert leaf is not None
            exchange = self.branches.exchanges[leaf]
            self.conversation.system = recorded_system(exchange)
            if isinstance(exchange.meta.get("system"), str):  # (what chatterm recorded it asked with)
                self.conversation.system = exchange.meta["system"]
            self.set_params(ChatParams.from_dict(exchange.meta.get("params")))
            if self.on_settings is not None:
                self.on_settings()
            self.conversation.messages = self.branches.history(leaf, self.send_reasoning)
            self.recorder.recording.switches[:0] = recording.switches  # (the interactions go first, below)
        for interaction in recording.interactions:
            interaction.done = True
        self.recorder.recording.interactions[:0] = list(recording.interactions)
        continues, self._continues = self._continues, None
        if continues is not None and self.saver is not None:
            path, exchanges = continues
            if recording.format == "vcr" and len(recording.interactions) == exchanges:
                refused = self.saver.go_on_in(path)
                if refused == ELSEWHERE and self.saver.on_error is not None:
                    self.saver.on_error(f"{path.name} is {ELSEWHERE}: this chat goes on in a new session")
        if self.on_loaded is not None:
            self.on_loaded()

    async def aclose(self) -> None:
        await self.client.aclose()
        if self.saver is not None:
            self.saver.close()


def user_text(interaction: Interaction) -> str:
    """The last user message of a recorded request (what the user typed that turn)."""
    return turn_prompt(interaction.request.messages if interaction.request is not None else None)


def replay_client(recording: Recording, speed: float, instant: bool, choice: Choice) -> ChatClient:
    """A client whose answers come from a recording, at its pace (never retrying: the attempts were recorded)."""
    transport = ReplayTransport(recording, speed=speed, instant=instant)
    return ChatClient(choice.endpoint, transport=transport, retries=0)


async def replayed(client: ChatClient, interaction: Interaction) -> AsyncIterator[Event]:
    """A recorded turn played again by a `replay_client`, ending as it ended when it was recorded: with the error it
    was saved with (a stop, a lost connection, no answer at all), which its bytes alone cannot tell."""
    recorded = reply_of(interaction).error
    async for event in client.stream(request_messages(interaction)):
        if not (recorded is not None and isinstance(event, StreamError)):
            yield event
    if recorded is not None:
        yield recorded


def request_messages(interaction: Interaction) -> list[Any]:
    payload = interaction.request.json() if interaction.request else None
    messages = payload.get("messages") if isinstance(payload, dict) else None
    return messages if isinstance(messages, list) else []
