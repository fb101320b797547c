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
_STRUCTURE = re.compile(rb'["\[\]{}]')
_SCALAR_END = re.compile(rb"[ \t\r\n,\]}]")


def span(line: bytes, path: tuple[str, ...]) -> tuple[int, int] | None:
    """The byte span of the value at `path` (member names) in a line `parse` accepted."""
    start, end = 0, len(line)
    for name in path:
        found = next(((s, e) for key, s, e in members(line, start) if key == name), None)
        if found is None:
            return None
        start, end = found
    return start, end


def members(line: bytes, at: int = 0) -> Iterator[tuple[str, int, int]]:
    """(name, value start, value end) for each member of the object at `at`, in order.

    Stops quietly where the text ends (a prefix) or is not an object; a name whose value the
    prefix does not hold ends it with an end of -1 (and a start of -1 if not even its `:`).
    """
    at = _SPACE.match(line, at).end()  # type: ignore[union-attr] # always matches
    if line[at : at + 1] != b"{":
        return
    at += 1
    while True:
        at = _SPACE.match(line, at).end()  # type: ignore[union-attr]
        key = _STRING.match(line, at)
        if key is None:
            return  # `}`, or the end of a prefix
        name: str = json.loads(key.group())
        at = _SPACE.match(line, key.end()).end()  # type: ignore[union-attr]
        if line[at : at + 1] != b":":
            yield name, -1, -1
            return
        start = _SPACE.match(line, at + 1).end()  # type: ignore[union-attr]
        end = _skip(line, start)
        if end is None:
            yield name, start, -1  # the value runs past the end of a prefix
            return
        yield name, start, end
        at = _SPACE.match(line, end).end()  # type: ignore[union-attr]
        if line[at : at + 1] != b",":
            return
        at += 1


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
    while (mark := _STRUCTURE.search(line, at)) is not None:
        char = mark.group()
        if char == b'"':
            string = _STRING.match(line, mark.start())
            if string is None:
                return None
            at = string.end()
            continue
        depth += 1 if char in (b"{", b"[") else -1
        at = mark.end()
        if depth == 0:
            return at
    return None
