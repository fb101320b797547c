r"""Vouch or defer: an audit record line read by `json` when it is surely a valid record.

`vouched(line)` -> the record `record.decode` (the strict parser within `RECORD_LIMITS`, then
the shipped record schema) would return for `line`, or None when that is not certain, and
`record.decode` then decides. A log is anyone's to edit, so nothing in the
line is taken on trust. The screen vouches only when

- the line is ASCII, at most `MAX_RECORD_BYTES` long, with no surrogate escape (`\ud`), which
  the strict parser may refuse;
- `json` reads all of it as one object (a stray byte, trailing data, a raw control character,
  NaN or Infinity: deferred). Objects are read as their member pairs, so a repeated member
  name is seen, not silently dropped; float tokens go through `number.float_reader`, as in
  both parsers, so each float is the one the strict parser delivers (a token it would refuse
  or read as an `ExactFloat` is deferred);
- every integer has at most 18 digits (within 64 bits and the integer budget), and every
  container is nested within `max_depth`;
- the record meets every constraint of `schemas/audit-record.schema.json`. The checks below
  mirror that schema; `SCHEMA_SHA256` is the schema they were written for, and any other turns
  the screen off (every line then goes the strict way).

What the screen does not vouch for is deferred, never judged: it can make reading faster,
never change a verdict. tests/explain/test_screen.py holds it to that, differentially.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any, NoReturn

from toolguard import rfc3339
from toolguard.audit.record import RECORD_LIMITS
from toolguard.errors import ParseError
from toolguard.number import float_reader
from toolguard.shipped import shipped_schema

# The record schema these checks mirror; another schema turns the screen off (see `_enabled`).
SCHEMA_SHA256 = "c2b1347357be4759966067c80d8e8db024ffb4b142c2ba60b412d3c1d5d12637"

Test = Callable[[Any], object]  # truthy: valid
# A member's rule: the exact type its value must have (None: any), then either a test of the
# value or, for what holds objects, a conversion of its member pairs (None: not valid).
Rule = tuple[type | None, Test | None, bool]

# Integers of at most 18 digits: within 64 bits (yajl) and the record integer budget.
_INTEGER: int = 10 ** min(18, RECORD_LIMITS.max_integer_digits)
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.]{7,63}").fullmatch
_TIMESTAMP = re.compile(
    r"([0-9]{4}-[0-9]{2}-[0-9]{2})T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z"
).fullmatch


def _refuse(name: str) -> NoReturn:
    raise ValueError(name)  # NaN or Infinity: not JSON


_DECODER = json.JSONDecoder(
    object_pairs_hook=tuple,
    parse_float=float_reader(RECORD_LIMITS.max_integer_digits),
    parse_constant=_refuse,
)
_read = _DECODER.raw_decode  # `decode` without its trailing-data check, made below


def vouched(line: bytes) -> dict[str, Any] | None:
    """The record the strict path would return for `line`, or None if that is not certain."""
    if (
        len(line) > RECORD_LIMITS.max_bytes
        or not line.isascii()
        or b"\\ud" in line
        or b"\\uD" in line
        or not _enabled()
    ):
        return None
    text = line.decode("ascii")
    try:
        pairs, end = _read(text)
    except (ValueError, RecursionError, ParseError):
        return None
    if end != len(text) or type(pairs) is not tuple:
        return None
    return _record(pairs)


@cache
def _enabled() -> bool:
    """Whether the shipped record schema is the one the checks below were written for."""
    schema = shipped_schema("audit-record.schema.json").read_bytes()
    return hashlib.sha256(schema).hexdigest() == SCHEMA_SHA256


def _object(members: dict[str, Rule], required: tuple[str, ...]) -> Callable[[Any], Any]:
    """Member pairs -> the closed object; None unless `members` alone, `required` present.

    The names must be unique and each value valid by its rule.
    """
    needed = frozenset(required)

    def convert(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
        value = dict(pairs)
        if len(value) != len(pairs) or not needed <= value.keys():
            return None
        for name, member in pairs:
            rule = members.get(name)
            if rule is None:
                return None
            kind, test, converts = rule
            if kind is not None and type(member) is not kind:
                return None
            if converts:
                value[name] = converted = test(member)  # type: ignore[misc]
                if converted is None:
                    return None
            elif test is not None and not test(member):
                return None
        return value

    return convert


def _objects(convert: Callable[[Any], Any], *, min_items: int = 0) -> Callable[[Any], Any]:
    """An array of objects: each converted, or None."""

    def convert_all(items: list[Any]) -> list[Any] | None:
        if len(items) < min_items or any(type(item) is not tuple for item in items):
            return None
        converted = list(map(convert, items))
        return None if None in converted else converted

    return convert_all


def _strings(items: list[Any]) -> bool:
    return all(type(item) is str for item in items)


def _number(value: Any) -> bool:
    """`type: number, minimum: 0`: a float as the strict parser reads it, or a small integer."""
    kind = type(value)
    return (kind is float and value >= 0.0) or (kind is int and 0 <= value < _INTEGER)


def _scalar(value: Any) -> bool:
    """A string, a boolean, null, or a number both parsers read as this value."""
    kind = type(value)
    if kind is int:
        integer: int = value
        return -_INTEGER < integer < _INTEGER
    return kind is str or kind is float or kind is bool or value is None


def _string_or_integer(value: Any) -> bool:
    return type(value) is str or (type(value) is int and -_INTEGER < value < _INTEGER)


def _sha256(value: str) -> bool:
    """`^[0-9a-f]{64}$` (JSON Schema's `$`: the end of the text)."""
    return len(value) == 64 and not value.strip("0123456789abcdef")


@lru_cache(maxsize=1024)
def _real_date(date: str) -> bool:
    return rfc3339.is_date(date)


def _timestamp(value: str) -> bool:
    """`format: date-time` and `pattern: Z$`, for timestamps as toolguard writes them.

    Other spellings (no fraction, a leap second, an offset) are left to the strict path.
    """
    match = _TIMESTAMP(value)
    return match is not None and _real_date(match[1])


def _context(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    """Any names; each value a scalar, an array of scalars, or a secret's keyed hash."""
    value = dict(pairs)
    if len(value) != len(pairs):
        return None
    for name, member in pairs:
        kind = type(member)
        if kind is tuple:
            if len(member) != 1 or member[0][0] != "hmac_sha256":
                return None
            digest = member[0][1]
            if type(digest) is not str or not _sha256(digest):
                return None
            value[name] = {"hmac_sha256": digest}
        elif not (all(map(_scalar, member)) if kind is list else _scalar(member)):
            return None
    return value


def _plain(container: Any, room: int) -> Any:
    """An object (member pairs) or array within `room` levels, its objects made dicts.

    None if a name repeats, it nests deeper or it holds a number not vouched for.
    """
    if room == 0:
        return None
    named = type(container) is tuple
    result: Any = dict(container) if named else []
    if named and len(result) != len(container):
        return None
    for entry in container:
        name, item = entry if named else (None, entry)
        if type(item) is tuple or type(item) is list:
            item = _plain(item, room - 1)
            if item is None:
                return None
        elif not _scalar(item):
            return None
        if named:
            result[name] = item
        else:
            result.append(item)
    return result


def _projected_values(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    return _plain(pairs, RECORD_LIMITS.max_depth - 1)  # type: ignore[no-any-return]


def _one_of(*names: str) -> Rule:
    return str, frozenset(names).__contains__, False


def _integer(minimum: int) -> Rule:
    return int, range(minimum, _INTEGER).__contains__, False


def _nested(kind: type, convert: Callable[[Any], Any]) -> Rule:
    return kind, convert, True


_STRING: Rule = (str, None, False)
_BOOLEAN: Rule = (bool, None, False)
_TRUE: Rule = (bool, bool, False)  # `const: true`: a boolean that is true
_SHA256: Rule = (str, _sha256, False)
_NUMBER: Rule = (None, _number, False)
_ANY_INTEGER = _integer(1 - _INTEGER)
_ERROR_CODE = _one_of("NOT_FOUND", "UPSTREAM_UNAVAILABLE", "INVALID_RESPONSE")
_LAYER = _one_of("upstream", "input", "limits", "parse", "schema", "rule", "projection", "audit")
_OUTCOME = _one_of("success", "failure", "internal")
_ATTEMPT = _object(
    {
        "number": _integer(1),
        "outcome": _OUTCOME,
        "duration_ms": _NUMBER,
        "exit_status": _ANY_INTEGER,
        "signal": _ANY_INTEGER,
        "timed_out": _TRUE,
        "over_limit": _TRUE,
        "spawn_error": _STRING,
        "stdout_size": _integer(0),
        "stdout_sha256": _SHA256,
        "stderr_size": _integer(0),
        "stderr": _STRING,
        "error_code": _ERROR_CODE,
        "layer": _LAYER,
        "reason": _STRING,
    },
    ("number", "outcome", "duration_ms", "stdout_size", "stderr_size"),
)
_RAW = _object({"sha256": _SHA256, "kept": _BOOLEAN, "why": _STRING}, ("sha256", "kept"))
_CONTRACT = _object(
    {"path": _STRING, "tool": _STRING, "version": _STRING, "sha256": _SHA256},
    ("path", "tool", "version", "sha256"),
)
_ADAPTER = _object(
    {"kind": _one_of("json", "lines", "jc"), "parser": _STRING, "version": _STRING}, ("kind",)
)
_UPSTREAM = _object(
    {
        "kind": _one_of("stdin", "file", "command", "mcp"),
        "file": _STRING,
        "argv": (list, _strings, False),
        "tool": _STRING,
        "jsonrpc_id": (None, _string_or_integer, False),
        "exit_status": _ANY_INTEGER,
        "signal": _ANY_INTEGER,
        "duration_ms": _NUMBER,
        "attempts": _nested(list, _objects(_ATTEMPT, min_items=1)),
    },
    ("kind",),
)
_INPUT = _object({"size": _integer(0), "sha256": _SHA256}, ("size", "sha256"))
_RECORD = _object(
    {
        "format": (int, (1).__eq__, False),  # `const: 1`
        "timestamp": (str, _timestamp, False),
        "request_id": (str, _REQUEST_ID, False),  # `^...$`: `$` is the end of the text
        "toolguard": (str, lambda value: len(value) <= 64, False),
        "command": _one_of("check", "run", "serve", "mcp"),
        "contract": _nested(tuple, _CONTRACT),
        "adapter": _nested(tuple, _ADAPTER),
        "context": _nested(tuple, _context),
        "upstream": _nested(tuple, _UPSTREAM),
        "input": _nested(tuple, _INPUT),
        "raw": _nested(list, _objects(_RAW)),
        "outcome": _OUTCOME,
        "duration_ms": _NUMBER,
        "envelope_sha256": _SHA256,
        "error_code": _ERROR_CODE,
        "retryable": _BOOLEAN,
        "layer": _LAYER,
        "reason": _STRING,
        "rule": _STRING,
        "schema_path": _STRING,
        "instance_path": _STRING,
        "offset": _integer(0),
        "message": _STRING,
        "projected_fields": (list, _strings, False),
        "projected_values": _nested(tuple, _projected_values),
        "truncated": _TRUE,
    },
    (
        "format",
        "timestamp",
        "request_id",
        "toolguard",
        "command",
        "contract",
        "adapter",
        "context",
        "upstream",
        "outcome",
        "duration_ms",
        "envelope_sha256",
    ),
)


def _record(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    """Every constraint of the record schema, `dependentRequired` included."""
    record: dict[str, Any] | None = _RECORD(pairs)
    if record is None or ("error_code" in record and "retryable" not in record):
        return None
    return record
