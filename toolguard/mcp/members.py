"""Where a member's value stands in a line the strict parser has read: byte spans, not values.

The contract's limits apply to the payload's exact bytes as they stand in the server's line,
so the bytes of `result.structuredContent` are found here, in a line `parse` already accepted
whole (or, for an unreadable line, in the part of it `parse` read before it failed: that is
how a failed line's id is established). This is a scanner over text the strict parser has
validated, not a second parser: it only finds where values end.

NOTE: values are skipped by `json`'s C scanner, run over the line decoded as Latin-1: one
character per byte, so its offsets are the line's byte offsets, and UTF-8 sequences (which
only occur inside strings) are characters it passes over. Numbers are kept as text, so no
number is too long to skip. A name that is not ASCII that way is read again from its bytes.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from json.scanner import make_scanner
from typing import Any

from toolguard.errors import Rejection
from toolguard.limits import Limits
from toolguard.parse import parse

CONTAINER: Any = object()  # a member whose value is an object or an array
AMBIGUOUS: Any = object()  # a member name read twice: its value is not established

_SPACE = re.compile(r"[ \t\r\n]*")
_WHITE = " \t\r\n"  # NOTE: `"" in _WHITE` too: at the end of the text, the pattern decides
# NOTE: typeshed types `make_scanner`'s argument as itself; it takes a decoder's settings.
_SCAN = make_scanner(json.JSONDecoder(parse_int=str, parse_float=str))  # type: ignore[arg-type]
_INCOMPLETE = (StopIteration, ValueError)  # the text ends (a prefix) before the value does


def span(line: bytes, path: tuple[str, ...]) -> tuple[int, int] | None:
    """The byte span of the value at `path` (member names) in a line `parse` accepted."""
    text = line.decode("latin-1")
    at = 0
    for name in path:
        found = _find(text, at, name)
        if found is None:
            return None
        at = found
    end = _skip(text, at)
    return None if end is None else (at, end)


def without(line: bytes, path: tuple[str, ...], names: frozenset[str]) -> bytes:
    """`line` (one `parse` accepted) with the object at `path` lacking the members `names`.

    Every other byte stays as it came, the id's included: the object keeps its other
    members' exact text, only the white space between them goes. A line whose `path` holds
    no object is returned as it is.
    """
    found = span(line, path)
    text = line.decode("latin-1")
    if found is None or text[found[0]] != "{":
        return line
    start, end = found
    kept = [
        text[name_at:value_end]
        for name, name_at, _, value_end in _members(text, start, until=None)
        if name not in names
    ]
    return line[:start] + ("{" + ",".join(kept) + "}").encode("latin-1") + line[end:]


def _find(text: str, at: int, wanted: str) -> int | None:
    """Where the value of member `wanted` of the object at `at` starts.

    NOTE: only the members before it are skipped (the value itself is not): a line `parse`
    accepted holds no name twice, so the first is the one. The line is whole and valid, so
    this is `_members` without its care for prefixes: a guarded call's answer runs it twice,
    and the pattern for white space runs only where some is (most lines have little).
    """
    space, scan = _SPACE.match, _SCAN
    if text[at : at + 1] in _WHITE:
        at = space(text, at).end()  # type: ignore[union-attr] # always matches
    if text[at : at + 1] != "{":
        return None
    at += 1
    while True:
        if text[at : at + 1] in _WHITE:
            at = space(text, at).end()  # type: ignore[union-attr]
        if text[at : at + 1] != '"':
            return None
        name, after = scan(text, at)
        if not name.isascii():
            name = _name(text, at, after)
        at = after if text[after] == ":" else space(text, after).end()  # type: ignore[union-attr]
        at += 1  # past the colon
        if text[at : at + 1] in _WHITE:
            at = space(text, at).end()  # type: ignore[union-attr]
        if name == wanted:
            return at
        at = scan(text, at)[1]
        if text[at : at + 1] in _WHITE:
            at = space(text, at).end()  # type: ignore[union-attr]
        if text[at : at + 1] != ",":
            return None
        at += 1


def _name(text: str, start: int, end: int) -> str:
    """The name at text[start:end] read again from its bytes (Latin-1 split its UTF-8)."""
    return str(json.loads(text[start:end].encode("latin-1")))


def _members(text: str, at: int, *, until: str | None) -> Iterator[tuple[str, int, int, int]]:
    """(name, name start, value start, value end) for each member of the object at `at`.

    Stops quietly where the text ends (a prefix) or is not an object; a name whose value the
    prefix does not hold ends it with an end of -1 (and a start of -1 if not even its `:`).
    The member named `until` is yielded with an end of -1, unskipped, and ends it.
    """
    at = _SPACE.match(text, at).end()  # type: ignore[union-attr] # always matches
    if text[at : at + 1] != "{":
        return
    at += 1
    while True:
        at = _SPACE.match(text, at).end()  # type: ignore[union-attr]
        if text[at : at + 1] != '"':
            return
        try:
            name, after = _SCAN(text, at)
        except _INCOMPLETE:
            return  # the name itself is cut off
        if not name.isascii():
            name = _name(text, at, after)
        colon = _SPACE.match(text, after).end()  # type: ignore[union-attr]
        if text[colon : colon + 1] != ":":
            yield name, at, -1, -1
            return
        start = _SPACE.match(text, colon + 1).end()  # type: ignore[union-attr]
        end = None if name == until else _skip(text, start)
        if end is None:
            yield name, at, start, -1  # the value runs past the end of a prefix (or is wanted)
            return
        yield name, at, start, end
        after = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text[after : after + 1] != ",":
            return
        at = after + 1


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
    text = prefix.decode("latin-1")
    for name, _, start, end in _members(text, 0, until=None):
        if name in seen:
            found[name] = AMBIGUOUS
            continue
        seen.add(name)
        after = _SPACE.match(text, end).end() if end >= 0 else -1  # type: ignore[union-attr]
        if end < 0 or text[after : after + 1] not in (",", "}"):
            continue  # not completely read: a number may go on, a string may be another key
        first = text[start : start + 1]
        found[name] = CONTAINER if first in ("{", "[") else json.loads(prefix[start:end])
    return found


def _skip(text: str, at: int) -> int | None:
    """Where the value at `at` ends, or None if the text ends first.

    A number or literal ends only where something follows it: at the end of a prefix, `12`
    may be the start of `123`.
    """
    try:
        _, end = _SCAN(text, at)
    except _INCOMPLETE:
        return None
    if end == len(text) and text[at : at + 1] not in ('"', "{", "["):
        return None
    return end
