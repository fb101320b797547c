r"""Python `re` patterns (ASCII classes, matched in full) -> RE2 patterns with the same meaning.

`matches_context_pattern` rules are written in Python's syntax and were run by `re.fullmatch`
with `re.ASCII`. They run on response data, so they now run on RE2 (`matcher.py`). The pattern
is parsed by Python's own parser (`re._parser`, so every construct is read exactly as `re`
reads it) and re-emitted with explicit code point ranges: `\s` is `[\t\n\v\f\r ]`, `(?i)`
folds ASCII letters only, `.` excludes only `\n`. What RE2 cannot run (backreferences,
lookaround, atomic groups, possessive repeats, conditionals) or would read differently (`\B`,
whose meaning in an empty string changed in Python 3.14; a `$` with more pattern after it, which
Python also matches before a final newline) is refused with a `ValueError`.
"""

from __future__ import annotations

import importlib
import re
from typing import Any

from toolguard.schema import charsets
from toolguard.schema.charsets import Ranges
from toolguard.schema.regex import MAX_COUNT, emit_char, emit_class

_ALL: Ranges = ((0, charsets.MAX_CODE_POINT),)
_CATEGORIES: dict[str, Ranges] = {
    "CATEGORY_DIGIT": ((0x30, 0x39),),
    "CATEGORY_SPACE": ((0x09, 0x0D), (0x20, 0x20)),  # \t \n \v \f \r and space
    "CATEGORY_WORD": ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A)),
}
_REFUSED = {
    "GROUPREF": "a backreference",
    "GROUPREF_EXISTS": "a conditional group",
    "ASSERT": "a lookaround assertion",
    "ASSERT_NOT": "a lookaround assertion",
    "ATOMIC_GROUP": "an atomic group",
    "POSSESSIVE_REPEAT": "a possessive repeat",
}


def translate_python(pattern: str) -> str:
    """The RE2 pattern that fully matches exactly what `re.fullmatch(pattern, s, re.ASCII)` does.

    Raises `ValueError` for a pattern `re` refuses or that RE2 cannot run the same way.
    """
    parser: Any = importlib.import_module("re._parser")  # no type stubs for re's own parser
    try:
        parsed = parser.parse(pattern, re.ASCII)
        return _Emitter(parser).sequence(list(parsed), parsed.state.flags, tail=True)
    except (re.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {exc}") from None
    except ValueError as exc:
        raise ValueError(f"pattern {pattern!r} {exc}") from None


class _Emitter:
    """Walks `re`'s parse tree, emitting RE2 syntax.

    `flags` are the `re` flags in force; `tail` says that nothing in the pattern can follow
    the node, where Python's `$` can only match at the very end.
    """

    def __init__(self, parser: Any) -> None:
        self.p = parser

    def sequence(self, items: list[tuple[Any, Any]], flags: int, *, tail: bool) -> str:
        last = len(items) - 1
        return "".join(
            self.item(op, av, flags, tail=tail and i == last) for i, (op, av) in enumerate(items)
        )

    def item(self, op: Any, av: Any, flags: int, *, tail: bool) -> str:
        p = self.p
        name = str(op)
        if name in _REFUSED:
            raise ValueError(
                f"uses {_REFUSED[name]}, which RE2 does not run (it is linear-time only without)"
            )
        if op is p.LITERAL:
            folded = self.fold(((av, av),), flags)
            return (
                emit_char(av) if len(folded) == 1 and folded[0] == (av, av) else emit_class(folded)
            )
        if op is p.NOT_LITERAL:
            return emit_class(self.fold(((av, av),), flags), negate=True)
        if op is p.ANY:
            return emit_class(
                _ALL if flags & re.DOTALL else ((0x0A, 0x0A),), negate=not flags & re.DOTALL
            )
        if op is p.IN:
            return self.character_class(av, flags)
        if op is p.BRANCH:
            return (
                "(?:" + "|".join(self.sequence(list(alt), flags, tail=tail) for alt in av[1]) + ")"
            )
        if op is p.SUBPATTERN:
            group, add, remove, body = av
            inner = self.sequence(list(body), (flags | add) & ~remove, tail=tail)
            return f"({inner})" if group is not None else f"(?:{inner})"
        if op in (p.MAX_REPEAT, p.MIN_REPEAT):
            return self.repeat(av, flags, lazy=op is p.MIN_REPEAT)
        if op is p.AT:
            return self.assertion(str(av), flags, tail=tail)
        raise ValueError(f"uses {name}, which toolguard does not translate")

    def repeat(self, av: tuple[int, int, Any], flags: int, *, lazy: bool) -> str:
        low, high, body = av
        unbounded = high == self.p.MAXREPEAT
        if low > MAX_COUNT or (not unbounded and high > MAX_COUNT):
            raise ValueError(
                "repeats more than 1000 times, RE2's limit: bound the length another way"
            )
        counts = f"{{{low},}}" if unbounded else f"{{{low},{high}}}"
        return f"(?:{self.sequence(list(body), flags, tail=False)}){counts}{'?' if lazy else ''}"

    def assertion(self, at: str, flags: int, *, tail: bool) -> str:
        multiline = flags & re.MULTILINE
        if at == "AT_BEGINNING":
            return "(?m:^)" if multiline else "\\A"
        if at == "AT_BEGINNING_STRING":
            return "\\A"
        if at == "AT_END_STRING":
            return "\\z"
        if at == "AT_END":
            if multiline:
                return "(?m:$)"
            if not tail:
                raise ValueError(
                    "has a `$` with more pattern after it, which Python also matches before a "
                    "final newline and RE2 cannot: write \\Z"
                )
            return "\\z"  # under a full match, `$` can only stand at the very end
        if at == "AT_BOUNDARY":
            return "\\b"  # ASCII in both
        if at == "AT_NON_BOUNDARY":
            raise ValueError("uses \\B, which Python matches in an empty string only from 3.14 on")
        raise ValueError(f"uses {at}, which toolguard does not translate")

    def character_class(self, items: list[tuple[Any, Any]], flags: int) -> str:
        p = self.p
        negate = False
        spans: list[tuple[int, int]] = []
        for op, av in items:
            if op is p.NEGATE:
                negate = True
            elif op is p.LITERAL:
                spans.append((av, av))
            elif op is p.RANGE:
                spans.append(av)
            elif op is p.CATEGORY:
                spans.extend(self.category(str(av)))
            else:
                raise ValueError(f"uses {op} in a class, which toolguard does not translate")
        return emit_class(self.fold(charsets.union(spans), flags), negate=negate)

    def category(self, name: str) -> Ranges:
        if name in _CATEGORIES:
            return _CATEGORIES[name]
        positive = name.replace("_NOT_", "_")
        if positive in _CATEGORIES and positive != name:
            return charsets.complement(_CATEGORIES[positive])
        raise ValueError(f"uses {name}, which toolguard does not translate")

    def fold(self, ranges: Ranges, flags: int) -> Ranges:
        """With `(?i)` under `re.ASCII`, a set also holds the other case of its ASCII letters."""
        if not flags & re.IGNORECASE:
            return ranges
        extra = [
            (ord(char.swapcase()), ord(char.swapcase()))
            for low, high in ranges
            for char in map(chr, range(max(low, 0x41), min(high, 0x7A) + 1))
            if char.isascii() and char.isalpha()
        ]
        return charsets.union([*ranges, *extra])
