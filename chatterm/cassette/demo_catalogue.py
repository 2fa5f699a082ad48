"""What the offline demo answers: its recordings' prompts, the words that lead to each, and which is closest to a
prompt.

Kept apart from the recordings (`demo`) so the app can offer the prompts in its first frame without reading a
cassette. Closeness is counted in words each recording is about: one that only it is about is enough, words many
prompts hold ("list", "write", "code") lead to it only together. The demo holds a handful of answers, and a user
who asks something else is better served by being told so (`demo.fallback_text`) than by the least bad of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

CONFIGURE = (
    "To use a real model, put a provider's key in the environment (for example `export GROQ_API_KEY=...`) or in "
    "the system keyring (`chatterm key set groq`), then start chatterm again or switch profile with Ctrl+L."
)
"""How to leave the demo, in the README's words (a test keeps the two the same)."""

ENOUGH = 2
"""The score a prompt needs to be answered with a recording: one word the recording alone is about, or two words
it is about among others."""

MODEL = "chatterm-demo"
"""The demo's model: named before any answer, and in the demo's own answers (its recordings' and the one it makes up
when none is close)."""

_WORD = re.compile(r"[a-z0-9]+")


@dataclass(frozen=True)
class DemoEntry:
    """One shipped recording: its file in `chatterm/demo/`, the prompt it answers, what it shows, the words (or
    phrases) that are enough to lead to it (`topics`), and those that lead to it only together (`hints`: words many
    prompts hold, such as "list" or "code")."""

    file: str
    prompt: str
    shows: str
    topics: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()


CATALOGUE = (
    DemoEntry(
        "hello.yaml",
        "Hello, what can you do?",
        "what the demo holds",
        ("hi", "hey", "hello", "greetings", "what can you do", "who are you"),
        ("help", "demo", "chatterm", "features", "prompts", "try"),
    ),
    DemoEntry(
        "merge_sorted.yaml",
        "Write a Python function that merges two sorted lists",
        "live reasoning, then code and a table",
        ("merge", "merging", "merged", "mergesort"),
        ("python", "function", "code", "program", "script", "sort", "sorting", "sorted", "list", "array", "algorithm"),
    ),
    DemoEntry(
        "terminal_history.yaml",
        "Tell me the history of the computer terminal",
        "a long answer",
        ("teletype", "teletypes", "vt100", "vt52", "xterm", "long answer"),
        ("history", "terminal", "computer", "console", "long"),
    ),
    DemoEntry(
        "primes.yaml",
        "List every prime number below 1000",
        "an answer stopped at the token limit",
        ("prime", "primes", "token limit", "max tokens"),
        ("number", "below", "stopped", "cut", "tokens", "limit"),
    ),
    DemoEntry(
        "overloaded.yaml",
        "What happens when the provider is overloaded?",
        "an error, then its retry",
        ("overloaded", "overload", "503", "529"),
        ("error", "errors", "retry", "retries", "fail", "failed", "failure", "provider", "busy", "down", "429"),
    ),
    DemoEntry(
        "xai_grok_simple_streaming.yaml",
        "Say hi in Portuguese",
        "a real provider's reasoning stream",
        ("portuguese", "oi", "ola"),
        ("say", "translate", "translation", "language", "reasoning"),
    ),
)


def words(text: str) -> list[str]:
    """The words of `text`, lower case, in order."""
    return _WORD.findall(text.lower())


def _stem(word: str) -> str:
    """`word` without a plural's "s", so that "lists" is "list" (applied alike to prompts and to keywords)."""
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _phrase(text: str) -> str:
    return " ".join(_stem(word) for word in words(text))


def score(entry: DemoEntry, prompt: str) -> int:
    """How close `prompt` is to what `entry` answers: ENOUGH for each of its topics the prompt holds (a word or a
    phrase), one for each of its hints."""
    asked = {_stem(word) for word in words(prompt)}
    spaced = f" {_phrase(prompt)} "
    points = 0
    for weight, keywords in ((ENOUGH, entry.topics), (1, entry.hints)):
        for keyword in {_phrase(keyword) for keyword in keywords}:
            found = f" {keyword} " in spaced if " " in keyword else keyword in asked
            points += weight if found else 0
    return points


def closest(prompt: str) -> DemoEntry | None:
    """The entry closest to `prompt` (the first of those as close), or None when none scores ENOUGH."""
    best, best_score = None, ENOUGH - 1
    for entry in CATALOGUE:
        points = score(entry, prompt)
        if points > best_score:
            best, best_score = entry, points
    return best
