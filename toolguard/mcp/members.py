"""Where a member's value stands in a line the strict parser has read: byte spans, not values.

The contract's limits apply to the payload's exact bytes as they stand in the server's line,
so the bytes of `result.structuredContent` are found here, in a line `parse` already accepted
whole (or, for an unreadable line, in the part of it `parse` read before it failed: that is
how a failed line's id is established). This is a scanner over text the strict parser has
validated, not a second parser: it only skips strings and brackets to find where values end.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from toolguard.errors import Rejection
from toolguard.limits import Limits
from toolguard.parse import parse

CONTAINER: Any = object()  # a member whose value is an object or an array
AMBIGUOUS: Any = object()  # a member name read twice: its value is not established

_SPACE = re.compile(rb"[ \t\r\n]*")
# Validated JSON: every backslash starts a valid escape; unrolled, so matching stays linear.
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NAME = re.compile(rb'[ \t\r\n]*("[^"\\]*(?:\\.[^"\\]*)*")[ \t\r\n]*(:?)[ \t\r\n]*', re.DOTALL)
_NEXT = re.compile(rb"[ \t\r\n]*(,?)")
# Everything up to the next bracket that is not inside a string, strings included, in C.
_FILLER = re.compile(rb'(?:[^"\[\]{}]++|"[^"\\]*+(?:\\.[^"\\]*+)*+")*+', re.DOTALL)
_SCALAR_END = re.compile(rb"[ \t\r\n,\]}]")


def span(line: bytes, path: tuple[str, ...]) -> tuple[int, int] | None:
    """The byte span of the value at `path` (member names) in a line `parse` accepted."""
    at = 0
    for name in path:
        found = _find(line, at, name)
        if found is None:
            return None
        at = found
    end = _skip(line, at)
    return None if end is None else (at, end)


def _find(line: bytes, at: int, wanted: str) -> int | None:
    """Where the value of member `wanted` of the object at `at` starts.

    NOTE: only the members before it are skipped (the value itself is not): a line `parse`
    accepted holds no name twice, so the first is the one.
    """
    for name, start, end in members(line, at, until=wanted):
        if name == wanted and start >= 0:
            return start
        if end < 0:
            return None
    return None


def members(
    line: bytes, at: int = 0, *, until: str | None = None
) -> Iterator[tuple[str, int, int]]:
    """(name, value start, value end) for each member of the object at `at`, in order.

    Stops quietly where the text ends (a prefix) or is not an object; a name whose value the
    prefix does not hold ends it with an end of -1 (and a start of -1 if not even its `:`).
    The member named `until` is yielded with an end of -1, unskipped, and ends it.
    """
    at = _SPACE.match(line, at).end()  # type: ignore[union-attr] # always matches
    if line[at : at + 1] != b"{":
        return
    at += 1
    while (member := _NAME.match(line, at)) is not None:
        token = member.group(1)
        # NOTE: most names hold no escape: decoding them needs no JSON decoder.
        name: str = json.loads(token) if b"\\" in token else token[1:-1].decode("utf-8")
        if not member.group(2):
            yield name, -1, -1
            return
        start = member.end()
        end = None if name == until else _skip(line, start)
        if end is None:
            yield name, start, -1  # the value runs past the end of a prefix (or is wanted)
            return
        yield name, start, end
        after = _NEXT.match(line, end)
        if not after.group(1):  # type: ignore[union-attr] # always matches
            return
        at = after.end()  # type: ignore[union-attr]


def leading_members(raw: bytes, limits: Limits) -> dict[str, Any]:
    """The top-level members of an unreadable object line, read completely before it failed.

    A member counts once the `,` or `}` after its value was read; a name read twice is
    `AMBIGUOUS`; objects and arrays are `CONTAINER`. The part before the failure is parsed
    again until it fails only by ending: its bytes are then a valid start of a JSON text.
    """
    prefix = raw
    while True:
        try:
            parse(prefix, limits)
        except Rejection as failure:
            offset = failure.offset if failure.offset is not None else 0
            if failure.reason == "duplicate_member":
                # NOTE: the offset is the name's closing quote: with it, the prefix holds the
                # name read twice, which must void the first reading when it is top-level.
                prefix = prefix[: offset + 1]
                break
            if offset >= len(prefix):
                break  # it fails only by ending early
            prefix = prefix[:offset]
            continue
        break  # a complete value: every member was read
    found: dict[str, Any] = {}
    seen: set[str] = set()
    for name, start, end in members(prefix):
        if name in seen:
            found[name] = AMBIGUOUS
            continue
        seen.add(name)
        after = _SPACE.match(prefix, end).end() if end >= 0 else -1  # type: ignore[union-attr]
        if end < 0 or prefix[after : after + 1] not in (b",", b"}"):
            continue  # not completely read: a number may go on, a string may be another key
        first = prefix[start : start + 1]
        found[name] = CONTAINER if first in (b"{", b"[") else json.loads(prefix[start:end])
    return found


def _skip(line: bytes, at: int) -> int | None:
    """Where the value at `at` ends, or None if the text ends first."""
    first = line[at : at + 1]
    if first == b'"':
        string = _STRING.match(line, at)
        return string.end() if string else None
    if first not in (b"{", b"["):
        end = _SCALAR_END.search(line, at)
        return end.start() if end else None
    depth = 0
    while True:
        char = line[at : at + 1]
        if char in (b"{", b"["):
            depth += 1
        elif char in (b"}", b"]"):
            depth -= 1
        else:
            return None  # the text ends (a prefix), or inside a string
        at += 1
        if depth == 0:
            return at
        at = _FILLER.match(line, at).end()  # type: ignore[union-attr] # always matches
