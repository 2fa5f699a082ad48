"""A request's history read as steps (prompts, tool calls, tool results), in any API's shape.

A tool-using conversation sends the model its calls back with their results: OpenAI as an assistant message's
`tool_calls` and a `tool` message per result (with the `tool_call_id` it answers), Anthropic as `tool_use` blocks in
an assistant message and `tool_result` blocks in a user message, Gemini as `functionCall` parts in a `model` content
and `functionResponse` parts after it, the Responses API as `function_call` and `function_call_output` input items.
Each message reads here as the same few steps, so whatever shows a recorded turn (the app, `show`, the export) shows
the calls and results of every format alike, and never a result as something the user typed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from chatterm.conversation.history import message_text
from chatterm.conversation.reply import Reply
from chatterm.conversation.tools import tool_calls

ASSISTANT_ROLES = ("assistant", "model")
RESPONSES_ITEMS = ("function_call", "function_call_output", "reasoning", "item_reference")
"""The Responses API's input items that are no message: calls, results, and what holds no text of the user's."""


@dataclass(frozen=True)
class Prompt:
    """What the user typed."""

    text: str


@dataclass(frozen=True)
class CallMade:
    """A tool call an earlier answer made, as the history sends it back (arguments as JSON text)."""

    id: str
    name: str
    arguments: str


@dataclass(frozen=True)
class CallResult:
    """A tool's result; `call_id` names the call it answers ("" when the format names only the tool)."""

    call_id: str
    name: str
    text: str


Step = Prompt | CallMade | CallResult


def message_steps(message: Any) -> list[Step]:
    """The steps one message of a request's history holds (none for a system message or an answer's text)."""
    if not isinstance(message, dict):
        return []
    role = message.get("role")
    if role is None and message.get("type") in RESPONSES_ITEMS:
        return _item(message)
    if role in ("tool", "function") and "parts" not in message:  # OpenAI's results (and its older function role)
        call_id, name = message.get("tool_call_id"), message.get("name")
        return [CallResult(_text(call_id), _text(name), _joined(message.get("content")))]
    if role in ASSISTANT_ROLES:
        return _calls(message)
    if role == "system":
        return []
    blocks = message.get("content") if "content" in message else message.get("parts")
    if not isinstance(blocks, list):
        return [Prompt(message_text(message))]
    results = [_result(block) for block in blocks if isinstance(block, dict)]
    steps: list[Step] = [result for result in results if result is not None]
    if not steps or message_text(message):  # (a message of results only is no prompt)
        steps.append(Prompt(message_text(message)))
    return steps


def turn_steps(messages: list[Any], earlier: list[Any]) -> list[Step]:
    """What a turn's request adds before its answer: the steps of the messages after the previous turn's (`earlier`),
    or, when the history is not that turn's carried on (or is the same question asked again), those from its last
    prompt."""
    if earlier and messages[: len(earlier)] == earlier and len(messages) > len(earlier):
        return [step for message in messages[len(earlier) :] for step in message_steps(message)]
    steps = [step for message in messages for step in message_steps(message)]
    last = max((n for n, step in enumerate(steps) if isinstance(step, Prompt)), default=0)
    return steps[last:]


def answer_calls(reply: Reply) -> list[CallMade]:
    """The tool calls an answer made, in order."""
    return [CallMade(call.id, call.name, call.arguments) for _, call in sorted(reply.tool_calls.items())]


def added_messages(messages: list[Any], earlier: list[Any]) -> list[Any]:
    """The messages a turn's request adds to the previous turn's (`earlier`): a conversation sends its whole history
    each turn. All of them when the history is not that one carried on."""
    if earlier and messages[: len(earlier)] == earlier:
        return messages[len(earlier) :]
    return list(messages)


def sent_back(call: CallMade, answered: list[CallMade]) -> bool:
    """Whether a call in a request's history is one of the answer before it (`answered`), sent back with its results:
    the same id, or, where either has none, the same tool with the same arguments."""
    for made in answered:
        if call.id and made.id:
            if call.id == made.id:
                return True
        elif call.name == made.name and _value(call.arguments) == _value(made.arguments):
            return True
    return False


def request_tools(
    messages: list[Any], earlier: list[Any], answered: list[CallMade]
) -> tuple[list[CallMade], list[CallResult]]:
    """The calls and the results a turn's request adds to the previous turn's: calls from its history that the answer
    before it (`answered`) did not make, and the results, each with its tool's name."""
    added = [step for message in added_messages(messages, earlier) for step in message_steps(message)]
    known = [step for message in messages for step in message_steps(message) if isinstance(step, CallMade)]
    calls = [step for step in added if isinstance(step, CallMade) and not sent_back(step, answered)]
    results = [with_name(step, [*known, *answered]) for step in added if isinstance(step, CallResult)]
    return calls, results


def with_name(result: CallResult, calls: list[CallMade]) -> CallResult:
    """`result` with its tool's name, from the call its id names, where the format names only the call (Anthropic,
    chat completions, Responses)."""
    if result.name or not result.call_id:
        return result
    name = next((call.name for call in calls if call.id == result.call_id), "")
    return CallResult(result.call_id, name, result.text)


def _value(arguments: str) -> Any:
    try:
        return json.loads(arguments)
    except ValueError:
        return arguments


def _calls(message: dict[str, Any]) -> list[Step]:
    steps: list[Step] = [CallMade(call["id"], call["name"], call["arguments"]) for call in tool_calls(message)]
    blocks = message.get("content") if isinstance(message.get("content"), list) else message.get("parts")
    for block in blocks if isinstance(blocks, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_use":  # Anthropic
            steps.append(CallMade(_text(block.get("id")), _text(block.get("name")), _json(block.get("input", {}))))
        call = block.get("functionCall") if isinstance(block, dict) else None
        if isinstance(call, dict):  # Gemini
            steps.append(CallMade(_text(call.get("id")), _text(call.get("name")), _json(call.get("args", {}))))
    return steps


def _item(item: dict[str, Any]) -> list[Step]:
    """A Responses input item: a call the model made, a result sent back, or nothing to show."""
    call_id = _text(item.get("call_id"))
    if item.get("type") == "function_call":
        arguments = item.get("arguments")
        return [CallMade(call_id, _text(item.get("name")), arguments if isinstance(arguments, str) else _json({}))]
    if item.get("type") == "function_call_output":
        return [CallResult(call_id, "", _joined(item.get("output")))]
    return []


def _result(block: dict[str, Any]) -> CallResult | None:
    if block.get("type") == "tool_result":  # Anthropic
        return CallResult(_text(block.get("tool_use_id")), "", _joined(block.get("content")))
    response = block.get("functionResponse")
    if isinstance(response, dict):  # Gemini
        answer = response.get("response")
        text = answer if isinstance(answer, str) else json.dumps(answer, indent=2, ensure_ascii=False)
        return CallResult(_text(response.get("id")), _text(response.get("name")), text)
    return None


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _joined(content: Any) -> str:
    """A result's text: a string, or the text of its parts, one after another."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = [str(part["text"]) for part in content if isinstance(part, dict) and "text" in part]
        return "\n".join(text.removesuffix("\n") for text in texts)
    return "" if content is None else _json(content)


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""
