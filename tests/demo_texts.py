"""What the offline demo's recordings answer (tests/demo_cassettes.py streams them from a loopback server): the
reasoning and the answer for each prompt of `chatterm.cassette.demo_catalogue.CATALOGUE`."""

from __future__ import annotations

HELLO_REASONING = (
    "The user is greeting me and asking what I can do. This is chatterm's offline demo, so the honest answer is what "
    "the demo can show, with a table of prompts to try and how to reach a real model."
)

HELLO = """Hi! I am chatterm's **offline demo**: every answer here was recorded with `chatterm ask --record` and \
ships with chatterm, so this works with no key and no network.

What you can see in this demo:

| Ask for | What it shows |
|---|---|
| Write a Python function that merges two sorted lists | reasoning live, then code and a table |
| Tell me the history of the computer terminal | a long answer that streams and scrolls |
| List every prime number below 1000 | an answer stopped at the token limit |
| What happens when the provider is overloaded? | an error, then its retry |

While an answer streams, **Escape** stops it and **Ctrl+R** asks again; **Ctrl+T** opens or closes the reasoning.

To talk to a real model, give chatterm a provider's key:

```sh
export GROQ_API_KEY=...    # or: chatterm key set groq
chatterm                   # the provider with a key is used instead of the demo
```
"""

MERGE_REASONING = (
    "Two sorted lists: walk both with an index each, take the smaller head each time, then append whatever is left "
    "of either list. That is O(n + m). heapq.merge does the same lazily, and sorted(a + b) is the shortest to write "
    "but sorts again, O((n + m) log(n + m)), although Timsort finds the two sorted runs. Use <= so equal items keep "
    "their order. Show the function with a quick check, then compare the three in a table."
)

MERGE = """Here is a merge that walks both lists once:

```python
def merge_sorted(a: list[int], b: list[int]) -> list[int]:
    \"\"\"Merge two sorted lists into one sorted list.\"\"\"
    merged: list[int] = []
    i = j = 0
    while i < len(a) and j < len(b):
        if a[i] <= b[j]:
            merged.append(a[i])
            i += 1
        else:
            merged.append(b[j])
            j += 1
    merged.extend(a[i:])
    merged.extend(b[j:])
    return merged


assert merge_sorted([1, 4, 9], [2, 3, 10]) == [1, 2, 3, 4, 9, 10]
```

Taking from `a` when the heads are equal (`<=`) keeps the merge **stable**: equal items from `a` come before \
those from `b`.

| Approach | Time | Notes |
|---|---|---|
| `merge_sorted(a, b)` | O(n + m) | one pass, stable |
| `list(heapq.merge(a, b))` | O(n + m) | lazy; merges any number of sorted inputs |
| `sorted(a + b)` | O((n + m) log(n + m)) | shortest to write; Timsort finds the two runs, so it is fast in practice |
"""

HISTORY_REASONING = (
    "A long answer is welcome here. Order it by era: teleprinters, video terminals, the VT100 and its escape "
    "sequences, termcap and terminfo, terminal emulators, then what today's terminals add, in a table."
)

HISTORY = """# A short history of the computer terminal

## Teleprinters

The first interactive terminals were **teleprinters**: electromechanical typewriters that sent each key over a \
serial line and printed what came back on a roll of paper. The Teletype Model 33, introduced in 1963, was cheap \
enough to be everywhere, and printed about ten characters a second.

Much of what terminals still do comes from that machine:

- *Carriage return* and *line feed* are separate characters because they were separate motions: one moved the \
print head back to the left margin, the other advanced the paper.
- `BEL` (Ctrl+G) rang a real bell.
- Unix still calls a terminal a `tty`, short for teletype.

## Glass teletypes

Video display terminals put a screen in place of the paper. The first ones behaved like a teleprinter that never \
ran out of paper: text came in at the bottom and scrolled off the top. Then terminals learned to move the cursor, \
clear the screen and insert lines, each maker with control codes of its own, so a program had to know exactly which \
terminal it was talking to.

## The VT100 and its escape sequences

Digital Equipment Corporation's VT100 (1978) was among the first terminals to follow the ANSI X3.64 standard \
(also published as ECMA-48): commands that start with `ESC [`, such as `ESC [2J` to clear the screen or `ESC [1m` \
for bold. It sold in huge numbers, and "VT100-compatible" became the common language of terminals. Its screen was \
80 columns wide, a width that goes back to IBM's 80-column punched cards.

```text
ESC [ 2 J        clear the screen
ESC [ 10 ; 5 H   move the cursor to row 10, column 5
ESC [ 1 ; 32 m   bold green text
ESC [ 0 m        back to normal
```

## termcap, terminfo and curses

With hundreds of different terminals in use, Unix grew databases describing them: termcap at Berkeley, then \
terminfo. The curses library used them to let a program say "move to row 10" and have the right bytes sent for \
whatever terminal was attached. Full-screen editors such as vi were built on this.

## Terminal emulators

In the 1980s the terminal became a program rather than a device. xterm, written for the X Window System, emulated \
the VT100 in a window, and every terminal emulator since, from macOS's Terminal to Windows Terminal, speaks a \
dialect of the same escape sequences.

## Today

Terminal emulators have added what the hardware never had:

| Feature | What it gives programs |
|---|---|
| 256 colours, then 24-bit colour | themes and syntax highlighting |
| UTF-8 and wide characters | every script, and emoji |
| Mouse reporting | clicks and scrolling in full-screen apps |
| Bracketed paste | pasted text that is not mistaken for typed commands |
| OSC 8 hyperlinks, OSC 52 clipboard | links, and copying from remote sessions |

Frameworks such as Textual, on which chatterm is built, use all of this to draw whole applications in the same \
grid of characters the VT100 had, and they still send the same `ESC [` sequences to do it.
"""

PRIMES_REASONING = (
    "There are 168 primes below 1000, 25 of them below 100. Grouping them by hundreds keeps the list readable."
)

OVERLOADED_REASONING = (
    "The question is what chatterm does when a provider is overloaded. This very answer shows it: the first attempt "
    "was refused with 503 and Retry-After: 1, and this is the retry."
)

OVERLOADED = """This answer is the **second attempt**. The first request was refused with `503 Service \
Unavailable` and `Retry-After: 1`: chatterm said so in a warning, waited the second the server asked for, and \
asked again.

How chatterm handles a provider in trouble:

- It **retries** only before an answer begins, at most twice: on 408, 409, 429, 5xx and 529, and when the \
provider says it is overloaded, waiting as long as `Retry-After` asks (or a short backoff).
- Once text has arrived, an error **ends** the answer instead: everything received stays on screen, with one line \
saying what happened.
- **Ctrl+R** asks again whenever an answer ended in an error or was stopped with Escape.
"""

OVERLOADED_ERROR = (
    b'{"error": {"message": "The server is overloaded, please try again in a moment.", '
    b'"type": "server_error", "code": "overloaded"}}'
)


def primes_below(limit: int) -> list[int]:
    sieve = [True] * limit
    sieve[:2] = [False, False]
    for number in range(2, int(limit**0.5) + 1):
        if sieve[number]:
            sieve[number * number :: number] = [False] * len(sieve[number * number :: number])
    return [number for number, prime in enumerate(sieve) if prime]


def primes_answer(shown_hundreds: int = 6, then: int = 5) -> str:
    """The primes below 1000 by hundreds, stopped (as a token limit stops an answer) `then` numbers into the
    hundred after `shown_hundreds` whole ones."""
    primes = primes_below(1000)
    lines = [f"Here are the prime numbers below 1000, a hundred at a time ({len(primes)} in all):", ""]
    for hundred in range(shown_hundreds + 1):
        group = [str(p) for p in primes if hundred * 100 <= p < hundred * 100 + 100]
        if hundred == shown_hundreds:
            lines.append(f"- **{hundred * 100}–{hundred * 100 + 99}:** " + ", ".join(group[:then]) + ",")
        else:
            lines.append(f"- **{hundred * 100}–{hundred * 100 + 99}:** " + ", ".join(group))
    return "\n".join(lines)
