r"""Patterns plain enough to match without RE2: anchored runs of ASCII character sets.

Most patterns in contracts are identifiers: `^[a-z0-9][a-z0-9-]{2,62}$`, `^run_[A-Za-z0-9]{12,48}$`,
`^CR-[0-9]{1,10}$`. Loading RE2 costs a one-shot check about a third of what starting Python
costs, and such a pattern needs none of it. Read as a sequence of runs (an ASCII set, repeated
between a low and a high count), where every run of variable length is followed by a run that
takes at least one character from a disjoint set, a pattern has only one way to match: each run
takes as many characters as it can. So a greedy left-to-right reading is exact, and linear.

The source is what `regex.translate` emits (RE2 syntax): `^`, then literals (`A`, `\x{2d}`),
classes (`[0-9a-z]`, `[\x{2d}0-9]`, `[^\x{40}]`) and counts (`{2,62}`, `{3}`, `+`, `*`, `?`),
then `\z` or nothing. Anything else (alternation, groups, dots, flags, a code point beyond
ASCII, neighbours that overlap) stays RE2's: `plain` says None. `Matcher` asks here first, and
only for ASCII text, so a string beyond ASCII (or holding a lone surrogate) gets RE2's answer.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence

_LITERALS = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_COUNTS = {"*": (0, -1), "+": (1, -1), "?": (0, 1)}
_UNBOUNDED = -1
_ASCII = "".join(map(chr, range(128)))


class PlainPattern:
    r"""Runs of (characters, low, high): `high` -1 is unbounded; `to_end`: the source ends in \z."""

    __slots__ = ("runs", "steps", "to_end")

    def __init__(self, runs: Sequence[tuple[str, int, int]], *, to_end: bool) -> None:
        self.runs = tuple(runs)
        self.to_end = to_end
        # NOTE: what runs once, one character each (`run_`), is one literal to compare. A run
        # of every ASCII character but one (`[^@]`) ends at that one: a `find`, where `lstrip`
        # would compare each character with the 127 others.
        steps: list[tuple[str, str, str, int, int]] = []  # literal, characters, stop, low, high
        for characters, low, high in self.runs:
            if low == high == 1 and len(characters) == 1:
                if steps and steps[-1][0]:
                    steps[-1] = (steps[-1][0] + characters, "", "", 0, 0)
                    continue
                steps.append((characters, "", "", 0, 0))
            elif len(characters) == len(_ASCII) - 1:
                stop = next(c for c in _ASCII if c not in characters)
                steps.append(("", characters, stop, low, high))
            else:
                steps.append(("", characters, "", low, high))
        self.steps = tuple(steps)

    def search(self, text: str) -> bool:
        """What RE2 answers for the source anchored at the start (`^`), on ASCII `text`."""
        end = self._end(text)
        return end is not None and (not self.to_end or end == len(text))

    def fullmatch(self, text: str) -> bool:
        """What RE2 answers for the whole of ASCII `text`."""
        return self._end(text) == len(text)

    def function_source(self, name: str) -> str:
        """Python source of `def name(text)`: `search` on ASCII text, its steps unrolled.

        A schema's `pattern` runs once per string of a large document: the generated validator
        calls such a function of its own module for ASCII text (`pattern_keywords.py`), in
        about half the time of a call through `Matcher` and a loop over the steps.
        """
        lines = [f"def {name}(text):", "    at = 0"]
        for literal, characters, stop, low, high in self.steps:
            if literal:
                lines += [
                    f"    if not text.startswith({literal!r}, at):",
                    "        return False",
                    f"    at += {len(literal)}",
                ]
                continue
            end = "len(text)" if high == _UNBOUNDED else f"min(at + {high}, len(text))"
            if stop:
                lines += [
                    f"    end = {end}",
                    f"    found = text.find({stop!r}, at, end)",
                    "    taken = (end if found < 0 else found) - at",
                ]
            else:
                segment = "text[at:]" if high == _UNBOUNDED else f"text[at : at + {high}]"
                lines += [
                    f"    segment = {segment}",
                    f"    taken = len(segment) - len(segment.lstrip({characters!r}))",
                ]
            if low:
                lines += [f"    if taken < {low}:", "        return False"]
            lines.append("    at += taken")
        lines.append("    return at == len(text)" if self.to_end else "    return True")
        return "\n".join(lines) + "\n"

    def _end(self, text: str) -> int | None:
        """Where the one possible match ends, or None if there is none."""
        at = 0
        for literal, characters, stop, low, high in self.steps:
            if literal:
                if not text.startswith(literal, at):
                    return None
                at += len(literal)
                continue
            segment = text[at:] if high == _UNBOUNDED else text[at : at + high]
            if stop:
                taken = segment.find(stop)
                taken = len(segment) if taken < 0 else taken
            else:
                taken = len(segment) - len(segment.lstrip(characters))
            if taken < low:
                return None
            at += taken
        return at


def plain(source: str) -> PlainPattern | None:
    """`source` as runs matched greedily, exactly; None if it is not that plain."""
    if not source.startswith("^"):
        return None
    body, to_end = (source[1:-2], True) if source.endswith("\\z") else (source[1:], False)
    runs: list[tuple[str, int, int]] = []
    at = 0
    while at < len(body):
        read = _atom(body, at)
        if read is None:
            return None
        characters, at = read
        low, high, at = _count(body, at)
        if low < 0:
            return None
        runs.append((characters, low, high))
    return PlainPattern(runs, to_end=to_end) if _greedy_is_exact(runs) else None


def _greedy_is_exact(runs: list[tuple[str, int, int]]) -> bool:
    """Every run of variable length is followed by one taking a character it cannot take."""
    for index in range(len(runs) - 1):
        (characters, low, high), (following, after_low, _) = runs[index], runs[index + 1]
        if low != high and (after_low < 1 or not set(characters).isdisjoint(following)):
            return False
    return True


def _atom(body: str, at: int) -> tuple[str, int] | None:
    """The characters the atom at `at` takes, and where it ends.

    A negated class (`[^@]`) takes every ASCII character but its own: `Matcher` asks only
    for ASCII text, where that is exactly what RE2's class takes (line ends included).
    """
    if body[at] != "[":
        return _char(body, at)
    at += 1
    negated = body.startswith("^", at)
    if negated:
        at += 1
    characters: list[str] = []
    while at < len(body) and body[at] != "]":
        first = _char(body, at)
        if first is None:
            return None
        low, at = first
        if body.startswith("-", at) and not body.startswith("-]", at):
            last = _char(body, at + 1)
            if last is None or last[0] < low:
                return None
            high, at = last
            characters.extend(map(chr, range(ord(low), ord(high) + 1)))
        else:
            characters.append(low)
    if at == len(body) or not characters:
        return None
    taken = set(characters)
    if negated:
        taken = set(_ASCII) - taken
        if not taken:
            return None
    return "".join(sorted(taken)), at + 1


def _char(body: str, at: int) -> tuple[str, int] | None:
    r"""One ASCII character, itself or as `\x{...}`, and where it ends."""
    if body[at] in _LITERALS:
        return body[at], at + 1
    if not body.startswith("\\x{", at):
        return None
    end = body.find("}", at)
    digits = body[at + 3 : end]
    if end < 0 or not 0 < len(digits) <= 2 or not all(d in "0123456789abcdef" for d in digits):
        return None
    code_point = int(digits, 16)
    return (chr(code_point), end + 1) if code_point < 0x80 else None


def _count(body: str, at: int) -> tuple[int, int, int]:
    """(low, high, end) of the count at `at`: once if none; low -1 for what is not plain."""
    if at == len(body):
        return 1, 1, at
    if body[at] in _COUNTS:
        low, high = _COUNTS[body[at]]
        at += 1
    elif body[at] == "{":
        end = body.find("}", at)
        low_text, comma, high_text = body[at + 1 : end].partition(",")
        if end < 0 or not _digits(low_text) or not (_digits(high_text) or not high_text):
            return -1, 0, at
        low = int(low_text)
        high = int(high_text) if high_text else (_UNBOUNDED if comma else low)
        at = end + 1
    else:
        return 1, 1, at
    if body.startswith("?", at) or (high != _UNBOUNDED and high < low):
        return -1, 0, at  # a lazy count: RE2's
    return low, high, at


def _digits(text: str) -> bool:
    return text.isascii() and text.isdigit()
