"""A recording as the conversation it holds: the `show --json` schema of CONTRACT.md."""

from __future__ import annotations

from typing import Any

from chatterm.cassette.branches import recorded_tree
from chatterm.cassette.decoded import reply_of
from chatterm.cassette.exchange import RETRIED, other_call, turns
from chatterm.cassette.model import Interaction, Recording
from chatterm.conversation.steps import CallMade, request_tools

__all__ = ["RETRIED", "answers", "asked_with", "reply_of", "request_summary", "skipped", "summarize", "turns"]


def request_summary(interaction: Interaction) -> dict[str, Any] | None:
    request = interaction.request
    if request is None:
        return None
    return {"method": request.method, "url": request.url, "model": request.model, "messages": request.messages}


def asked_with(interaction: Interaction) -> dict[str, Any] | None:
    """What chatterm recorded a turn was asked with (`show --json`'s `asked_with`): the profile and model, the system
    prompt (null: none) and the chat's own parameters over the profile's; null for a turn chatterm did not record."""
    meta = interaction.meta
    if not isinstance(meta.get("profile"), str):
        return None
    params = meta.get("params")
    return {
        "profile": meta["profile"],
        "model": _text_or_none(meta.get("model")),
        "system": _text_or_none(meta.get("system")),
        "params": dict(params) if isinstance(params, dict) else {},
    }


def _text_or_none(value: object) -> str | None:
    return value if isinstance(value, str) else None


def answers(recording: Recording) -> Recording:
    """The recording with only the attempt that answered each turn (what a replay plays)."""
    return Recording(format=recording.format, interactions=[turn[-1] for turn in turns(recording.interactions)])


def skipped(recording: Recording) -> list[str]:
    """The calls recorded beside the chat, each as `METHOD URL: what it is`."""
    out = []
    for interaction in recording.interactions:
        what = other_call(interaction)
        if what is not None and interaction.request is not None:
            out.append(f"{interaction.request.method} {interaction.request.url}: {what}")
    return out


def summarize(recording: Recording, think_tags: bool = True) -> dict[str, Any]:
    """The `show --json` document: one entry per turn in the order recorded, each with its `id` and `parent` in the
    conversation tree (and `continues` for the continuation of a cut-short answer), the attempts retried before its
    answer under `retried`; `active` lists the ids of the active branch, root first."""
    recorded = recorded_tree(recording)
    entries = []
    for node_id, attempts in recorded.attempts.items():
        node = recorded.tree.nodes[node_id]
        entry: dict[str, Any] = {"id": node.id, "parent": node.parent}
        if node.continues is not None:
            entry["continues"] = node.continues
        entry["request"] = request_summary(attempts[-1])
        entry["asked_with"] = asked_with(attempts[-1])
        entry["response"] = reply_of(attempts[-1], think_tags).as_dict()
        entry["retried"] = [reply_of(attempt, think_tags).as_dict() for attempt in attempts[:-1]]
        entries.append(entry)
    add_request_tools(entries)
    return {"format": recording.format, "turns": entries, "active": recorded.tree.branch()}


def add_request_tools(entries: list[dict[str, Any]]) -> None:
    """Give each request the tool calls and results it adds to its parent's (`tool_calls`: calls from its history
    that the parent's answer did not make; `tool_results`: each with the name of its tool), in one shape whatever the
    API: the answer's own calls are its response's `tool_calls`."""
    by_id = {entry["id"]: entry for entry in entries}
    for entry in entries:
        request = entry["request"]
        if request is None:
            continue
        parent = by_id.get(entry["parent"])
        earlier = (parent["request"] or {}).get("messages") or [] if parent is not None else []
        made = parent["response"]["tool_calls"] if parent is not None else []
        answered = [CallMade(call["id"], call["name"], call["arguments"]) for call in made]
        calls, results = request_tools(request["messages"], earlier, answered)
        request["tool_calls"] = [{"id": c.id, "name": c.name, "arguments": c.arguments} for c in calls]
        request["tool_results"] = [{"call_id": r.call_id, "name": r.name, "content": r.text} for r in results]
