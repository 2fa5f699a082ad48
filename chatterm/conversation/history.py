"""The messages of a chat, in the order the model sees them, and the text of a message in any API's shape."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from chatterm.conversation.reply import Reply
from chatterm.conversation.tools import with_results


def turn_prompt(messages: list[Any] | None) -> str:
    """What the user sent for a turn, from its request's messages (None: no request recorded): the last user
    message, or the tool result it sent. The app's branch markers and `show`'s read a turn's prompt so."""
    if messages is None:
        return "(no request recorded)"
    for message in reversed(messages):
        if not isinstance(message, dict):
            continue
        if message.get("role") == "tool" and isinstance(message.get("content"), str):
            return f"[tool result] {message['content']}"
        if message.get("role") == "user" or isinstance(message.get("parts"), list):  # Gemini has parts
            return message_text(message)
    return "(no user message)"


def message_text(message: Any) -> str:
    """The text of a chat message: string content, text parts of list content, or Gemini's `parts`."""
    if not isinstance(message, dict):
        return ""
    content = message.get("content")
    if isinstance(content, str):
        return content
    parts = content if isinstance(content, list) else message.get("parts")
    if isinstance(parts, list):
        return " ".join(str(p["text"]) for p in parts if isinstance(p, dict) and "text" in p)
    return ""


@dataclass
class Conversation:
    """The messages of a chat, in the order the model sees them."""

    system: str | None = None
    messages: list[dict[str, Any]] = field(default_factory=list)

    def request_messages(self) -> list[dict[str, Any]]:
        """The system prompt and the messages, each tool call answered (`with_results`)."""
        head = [{"role": "system", "content": self.system}] if self.system else []
        return head + with_results(self.messages)

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})

    def add_reply(self, reply: Reply, include_reasoning: bool = False) -> None:
        """Keep an answer in the history; error notices never reach it, a partial answer does."""
        if reply.content or reply.tool_calls:
            self.messages.append(reply.as_message(include_reasoning))
