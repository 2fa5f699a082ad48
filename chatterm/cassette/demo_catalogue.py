"""What the offline demo answers: its recordings' prompts, the words that lead to each, and which is closest to a
prompt.

Kept apart from the recordings (`demo`) so the app can offer the prompts in its first frame without reading a
cassette. Closeness is plain word overlap: the demo holds a handful of answers, and a user who asks something
else is better served by being told so (`demo.fallback_text`) than by the least bad of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONFIGURE = (
    "To use a real model, put a provider's key in the environment (for example `export GROQ_API_KEY=...`) or in "
    "the system keyring (`chatterm key set groq`), then start chatterm again or switch profile with Ctrl+L."
)
"""How to leave the demo, in the README's words (a test keeps the two the same)."""

STOP_WORDS = frozenset(
    re.findall(
        r"\w+",
        "a an the and or of to in on at for with is are be it its this that me my i you your we do does did can "
        "could would will please what how why which who some about tell give show",
    )
)
"""Words that say nothing of what is asked; a phrase keyword can still hold them ("what can you do")."""

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class DemoEntry:
    """One shipped recording: its file in `chatterm/demo/`, the prompt it answers, what it shows, and the words
    (or phrases) that lead to it besides those of its prompt."""

    file: str
    prompt: str
    shows: str
    keywords: tuple[str, ...] = ()


CATALOGUE = (
    DemoEntry(
        "hello.yaml",
        "Hello, what can you do?",
        "what the demo holds",
        ("hi", "hey", "hello", "greetings", "help", "demo", "chatterm", "features", "what can you do", "who are you"),
    ),
    DemoEntry(
        "merge_sorted.yaml",
        "Write a Python function that merges two sorted lists",
        "live reasoning, then code and a table",
        ("code", "program", "script", "merge", "merging", "sort", "sorting", "list", "algorithm", "markdown", "table"),
    ),
    DemoEntry(
        "terminal_history.yaml",
        "Tell me the history of the computer terminal",
        "a long answer",
        ("long", "history", "terminals", "teletype", "vt100", "xterm", "essay", "story", "article", "explain"),
    ),
    DemoEntry(
        "primes.yaml",
        "List every prime number below 1000",
        "an answer stopped at the token limit",
        ("prime", "primes", "numbers", "count", "stopped", "cut", "short", "tokens", "maximum", "max"),
    ),
    DemoEntry(
        "overloaded.yaml",
        "What happens when the provider is overloaded?",
        "an error, then its retry",
        ("error", "errors", "retry", "retries", "fail", "failed", "failure", "overload", "503", "429", "busy", "down"),
    ),
    DemoEntry(
        "xai_grok_simple_streaming.yaml",
        "Say hi in Portuguese",
        "a real provider's reasoning stream",
        ("portuguese", "translate", "translation", "language", "oi", "ola"),
    ),
)


def words(text: str) -> list[str]:
    """The words of `text`, lower case, in order."""
    return _WORD.findall(text.lower())


def score(entry: DemoEntry, prompt: str) -> int:
    """How close `prompt` is to what `entry` answers: the prompt's meaningful words found in the entry's prompt or
    keywords, and two for each of its phrase keywords the prompt holds."""
    asked = words(prompt)
    known = set(words(entry.prompt))
    phrases = []
    for keyword in entry.keywords:
        if " " in keyword:
            phrases.append(" ".join(words(keyword)))
        else:
            known.add(keyword)
    overlap = {word for word in asked if word not in STOP_WORDS and word in known}
    spaced = f" {' '.join(asked)} "
    return len(overlap) + 2 * sum(f" {phrase} " in spaced for phrase in phrases)


def closest(prompt: str) -> DemoEntry | None:
    """The entry closest to `prompt` (the first of those as close), or None when none shares a word with it."""
    best, best_score = None, 0
    for entry in CATALOGUE:
        points = score(entry, prompt)
        if points > best_score:
            best, best_score = entry, points
    return best
