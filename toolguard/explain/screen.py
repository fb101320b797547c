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

The checks are straight-line code, one function per object of the schema. A log repeats most
of its objects byte for byte (the contract, the adapter, often the context and the input):
those made only of strings and integers are remembered once vouched for, and an object whose
member pairs equal a remembered one's (the same names in the same order, equal values, each
integer still an integer) gets the same verdict without its checks (see `_remembered`).

What the screen does not vouch for is deferred, never judged: it can make reading faster,
never change a verdict. tests/explain/test_screen.py holds it to that, differentially.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from functools import cache
from itertools import repeat
from typing import Any, NoReturn

from toolguard import rfc3339
from toolguard.audit.record import RECORD_LIMITS
from toolguard.errors import ERROR_CODES, LAYERS, ParseError
from toolguard.number import float_reader
from toolguard.shipped import shipped_schema

# The record schema these checks mirror; another schema turns the screen off (see `_enabled`).
SCHEMA_SHA256 = "c2b1347357be4759966067c80d8e8db024ffb4b142c2ba60b412d3c1d5d12637"

# Integers of at most 18 digits: within 64 bits (yajl) and the record integer budget.
_INTEGER: int = 10 ** min(18, RECORD_LIMITS.max_integer_digits)
_REQUEST_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.]{7,63}").fullmatch
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}").fullmatch
_TIME = re.compile(r"T(?:[01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9]\.[0-9]{6}Z").fullmatch
_DATES: set[str] = set()  # dates `_timestamp` found real


def _refuse(name: str) -> NoReturn:
    raise ValueError(name)  # NaN or Infinity: not JSON


_DECODER = json.JSONDecoder(
    object_pairs_hook=tuple,
    parse_float=float_reader(RECORD_LIMITS.max_integer_digits),
    parse_constant=_refuse,
)
# NOTE: the scanner itself, not `raw_decode` (`decode` without its trailing-data check, made
# below), which only wraps it in a frame that turns StopIteration into a ValueError.
_read = _DECODER.scan_once  # type: ignore[attr-defined]  # set by JSONDecoder, not typed


def vouched(line: bytes) -> dict[str, Any] | None:
    """The record the strict path would return for `line`, or None if that is not certain."""
    if (
        len(line) > RECORD_LIMITS.max_bytes
        or not line.isascii()
        or (b"\\" in line and (b"\\ud" in line or b"\\uD" in line))  # memchr first
        or not _enabled()
    ):
        return None
    text = line.decode("ascii")
    try:
        pairs, end = _read(text, 0)
    except (StopIteration, ValueError, RecursionError, ParseError):
        return None
    if end != len(text) or type(pairs) is not tuple:
        return None
    return _record(pairs)


@cache
def _enabled() -> bool:
    """Whether the shipped record schema is the one the checks below were written for."""
    schema = shipped_schema("audit-record.schema.json").read_bytes()
    return hashlib.sha256(schema).hexdigest() == SCHEMA_SHA256


# NOTE: what follows mirrors the schema member by member in straight-line code (no table of
# rules walked per member): this walk is most of what a vouched line costs beyond `json`.
# Each object's member pairs become a dict; a shorter dict than its pairs is a repeated name.
_COMMANDS = frozenset({"check", "run", "serve", "mcp"})
_OUTCOMES = frozenset({"success", "failure", "internal"})
_ERROR_CODES = frozenset(ERROR_CODES)  # the schema's lists are `errors`' (test_errors.py)
_LAYERS = frozenset(LAYERS)
_ADAPTER_KINDS = frozenset({"json", "lines", "jc"})
_UPSTREAM_KINDS = frozenset({"stdin", "file", "command", "mcp"})
_HEX = b"0123456789abcdef"
_REQUIRED = frozenset(
    {
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
    }
)
_CONTRACT = frozenset({"path", "tool", "version", "sha256"})
_ADAPTER = frozenset({"kind", "parser", "version"})
_UPSTREAM = frozenset(
    {"kind", "file", "argv", "tool", "jsonrpc_id", "exit_status", "signal", "duration_ms"}
    | {"attempts"}
)
_INPUT = frozenset({"size", "sha256"})
_RAW = frozenset({"sha256", "kept", "why"})
_ATTEMPT_REQUIRED = frozenset({"number", "outcome", "duration_ms", "stdout_size", "stderr_size"})
_ATTEMPT = _ATTEMPT_REQUIRED | {
    "exit_status",
    "signal",
    "timed_out",
    "over_limit",
    "spawn_error",
    "stdout_sha256",
    "stderr",
    "error_code",
    "layer",
    "reason",
}
_REMEMBERED = 256  # objects remembered per kind (contract, adapter, context, input)
_REMEMBERED_TYPES = frozenset({str, int})
_ATTEMPT_STRINGS = ("spawn_error", "stderr", "reason")


def _record(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    """Every constraint of the record schema, `dependentRequired` included."""
    record = dict(pairs)
    if len(record) != len(pairs):
        return None
    # NOTE: a required member missing raises the KeyError caught below; an enum's value is
    # looked up without its type checked first: only strings are in the sets, and an
    # unhashable value (an array) raises the TypeError caught below.
    try:
        if (
            record["format"] != 1  # `const: 1`: not 1.0 nor true
            or type(record["format"]) is not int
            or type(timestamp := record["timestamp"]) is not str
            or not _timestamp(timestamp)
            or type(request_id := record["request_id"]) is not str
            or not _REQUEST_ID(request_id)  # `^...$`: `$` is the end of the text
            or type(version := record["toolguard"]) is not str
            or len(version) > 64
            or record["command"] not in _COMMANDS
            or record["outcome"] not in _OUTCOMES
            or not _number(record["duration_ms"])
            or not _sha256(record["envelope_sha256"])
            or (contract := _contract(record["contract"])) is None
            or (adapter := _adapter(record["adapter"])) is None
            or (context := _context(record["context"])) is None
            or (upstream := _upstream(record["upstream"])) is None
        ):
            return None
    except (KeyError, TypeError):
        return None
    record["contract"] = contract
    record["adapter"] = adapter
    record["context"] = context
    record["upstream"] = upstream
    if len(record) > len(_REQUIRED):
        for name in record.keys() - _REQUIRED:
            check = _OPTIONAL.get(name)  # None: a member the schema does not allow
            if check is None or not check(record):
                return None
    return record


def _remembered(
    convert: Callable[[tuple[tuple[str, Any], ...]], dict[str, Any] | None],
) -> Callable[[tuple[tuple[str, Any], ...]], dict[str, Any] | None]:
    """`convert`, remembering the objects of strings and integers it found valid.

    A log repeats them (a contract, an adapter, a response's size and digest). Member pairs
    equal to remembered ones have the same names in the same order, and values equal to
    theirs: a string equals nothing but a string; an integer could equal a float or a boolean,
    so those members' types are checked again. Same names, values and types: same verdict.
    """
    known: dict[tuple[tuple[str, Any], ...], tuple[dict[str, Any], tuple[int, ...]]] = {}

    def remembered(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
        try:
            hit = known.get(pairs)
        except TypeError:  # an array inside: never remembered
            return convert(pairs)
        if hit is not None:
            remembered_value, integers = hit
            for at in integers:
                if type(pairs[at][1]) is not int:
                    return convert(pairs)
            return remembered_value.copy()
        value = convert(pairs)
        if value is not None:
            kinds = [type(member) for _, member in pairs]
            if set(kinds) <= _REMEMBERED_TYPES:
                if len(known) >= _REMEMBERED:
                    known.clear()
                integers = tuple(at for at, kind in enumerate(kinds) if kind is int)
                known[pairs] = (value.copy(), integers)
        return value

    return remembered


@_remembered
def _contract(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    if type(pairs) is not tuple:
        return None
    value = dict(pairs)
    if (
        len(value) != len(pairs)
        or value.keys() != _CONTRACT
        or type(value["path"]) is not str
        or type(value["tool"]) is not str
        or type(value["version"]) is not str
        or not _sha256(value["sha256"])
    ):
        return None
    return value


@_remembered
def _adapter(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    if type(pairs) is not tuple:
        return None
    value = dict(pairs)
    if (
        len(value) != len(pairs)
        or not value.keys() <= _ADAPTER
        or not _one_of(value.get("kind"), _ADAPTER_KINDS)
        or type(value.get("parser", "")) is not str
        or type(value.get("version", "")) is not str
    ):
        return None
    return value


def _upstream(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    if type(pairs) is not tuple:
        return None
    if len(pairs) == 1:  # `check` and `serve`: the kind alone
        name, kind = pairs[0]
        return {"kind": kind} if name == "kind" and _one_of(kind, _UPSTREAM_KINDS) else None
    value = dict(pairs)
    if (
        len(value) != len(pairs)
        or not value.keys() <= _UPSTREAM
        or not _one_of(value.get("kind"), _UPSTREAM_KINDS)
    ):
        return None
    if len(value) == 1:
        return value
    if type(value.get("file", "")) is not str or type(value.get("tool", "")) is not str:
        return None
    if "argv" in value:
        argv = value["argv"]
        if type(argv) is not list or not _strings(argv):
            return None
    if "jsonrpc_id" in value:
        given = value["jsonrpc_id"]
        if type(given) is not str and not _integer(given):
            return None
    if not _integer(value.get("exit_status", 0)) or not _integer(value.get("signal", 0)):
        return None
    if "duration_ms" in value and not _number(value["duration_ms"]):
        return None
    if "attempts" in value:
        attempts = value["attempts"]
        if type(attempts) is not list or not attempts:  # `minItems: 1`
            return None
        converted = [_attempt(item) if type(item) is tuple else None for item in attempts]
        if None in converted:
            return None
        value["attempts"] = converted
    return value


def _attempt(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    value = dict(pairs)
    names = value.keys()
    if len(value) != len(pairs) or not names >= _ATTEMPT_REQUIRED or not names <= _ATTEMPT:
        return None
    number = value["number"]
    if type(number) is not int or not 1 <= number < _INTEGER:
        return None
    if not _one_of(value["outcome"], _OUTCOMES) or not _number(value["duration_ms"]):
        return None
    if not _size(value["stdout_size"]) or not _size(value["stderr_size"]):
        return None
    if len(value) == len(_ATTEMPT_REQUIRED):
        return value
    if not _integer(value.get("exit_status", 0)) or not _integer(value.get("signal", 0)):
        return None
    if value.get("timed_out", True) is not True or value.get("over_limit", True) is not True:
        return None  # `const: true`
    for name in _ATTEMPT_STRINGS:
        if type(value.get(name, "")) is not str:
            return None
    if "stdout_sha256" in value and not _sha256(value["stdout_sha256"]):
        return None
    if "error_code" in value and not _one_of(value["error_code"], _ERROR_CODES):
        return None
    if "layer" in value and not _one_of(value["layer"], _LAYERS):
        return None
    return value


@_remembered
def _input(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    if type(pairs) is not tuple:
        return None
    value = dict(pairs)
    if (
        len(value) != len(pairs)
        or value.keys() != _INPUT
        or not _size(value["size"])
        or not _sha256(value["sha256"])
    ):
        return None
    return value


def _raws(items: list[Any]) -> list[dict[str, Any]] | None:
    if type(items) is not list:
        return None
    converted = []
    for pairs in items:
        if type(pairs) is not tuple:
            return None
        value = dict(pairs)
        if (
            len(value) != len(pairs)
            or not value.keys() <= _RAW
            or not _sha256(value.get("sha256"))
            or type(value.get("kept")) is not bool
            or type(value.get("why", "")) is not str
        ):
            return None
        converted.append(value)
    return converted


def _one_of(value: Any, names: frozenset[str]) -> bool:
    """`enum` of strings (the type first: a list or an object cannot be looked up)."""
    return type(value) is str and value in names


def _strings(items: list[Any]) -> bool:
    # NOTE: `json` makes exact types: an instance of str is a str (no generator frame).
    return all(map(isinstance, items, repeat(str)))


def _number(value: Any) -> bool:
    """`type: number, minimum: 0`: a float as the strict parser reads it, or a small integer."""
    kind = type(value)
    return (kind is float and value >= 0.0) or (kind is int and 0 <= value < _INTEGER)


def _size(value: Any) -> bool:
    """`type: integer, minimum: 0`, within the integers both parsers read alike."""
    return type(value) is int and 0 <= value < _INTEGER


def _integer(value: Any) -> bool:
    """`type: integer`, within the integers both parsers read alike."""
    return type(value) is int and -_INTEGER < value < _INTEGER


def _scalar(value: Any) -> bool:
    """A string, a boolean, null, or a number both parsers read as this value."""
    kind = type(value)
    if kind is int:
        integer: int = value
        return -_INTEGER < integer < _INTEGER
    return kind is str or kind is float or kind is bool or value is None


def _sha256(value: Any) -> bool:
    """`^[0-9a-f]{64}$` (JSON Schema's `$`: the end of the text)."""
    return (
        type(value) is str
        and len(value) == 64
        and value.isascii()
        and not value.encode().translate(None, _HEX)
    )


def _timestamp(value: str) -> bool:
    """`format: date-time` and `pattern: Z$`, for timestamps as toolguard writes them.

    Other spellings (no fraction, a leap second, an offset) are left to the strict path.
    """
    date = value[:10]
    if date not in _DATES:  # a log's records share their dates: each is checked once
        if not _DATE(date) or not rfc3339.is_date(date):
            return False
        if len(_DATES) >= _REMEMBERED:
            _DATES.clear()
        _DATES.add(date)
    return _TIME(value, 10) is not None


@_remembered
def _context(pairs: tuple[tuple[str, Any], ...]) -> dict[str, Any] | None:
    """Any names; each value a scalar, an array of scalars, or a secret's keyed hash."""
    if type(pairs) is not tuple:
        return None
    value = dict(pairs)
    if len(value) != len(pairs):
        return None
    for name, member in pairs:
        kind = type(member)
        if kind is tuple:
            if len(member) != 1 or member[0][0] != "hmac_sha256" or not _sha256(member[0][1]):
                return None
            value[name] = {"hmac_sha256": member[0][1]}
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


def _converted(name: str, convert: Callable[[Any], Any]) -> Callable[[dict[str, Any]], bool]:
    """An object-holding member's check: its value converted in place (objects made dicts)."""

    def check(record: dict[str, Any]) -> bool:
        record[name] = converted = convert(record[name])
        return converted is not None

    return check


def _string(name: str) -> Callable[[dict[str, Any]], bool]:
    return lambda record: type(record[name]) is str


def _projected_values(value: Any) -> dict[str, Any] | None:
    return _plain(value, RECORD_LIMITS.max_depth - 1) if type(value) is tuple else None


# The record's optional members: name -> check of the record (True: valid).
_OPTIONAL: dict[str, Callable[[dict[str, Any]], bool]] = {
    "input": _converted("input", _input),
    "raw": _converted("raw", _raws),
    # `dependentRequired`: error_code needs retryable
    "error_code": lambda record: (
        "retryable" in record and _one_of(record["error_code"], _ERROR_CODES)
    ),
    "retryable": lambda record: type(record["retryable"]) is bool,
    "layer": lambda record: _one_of(record["layer"], _LAYERS),
    "reason": _string("reason"),
    "rule": _string("rule"),
    "schema_path": _string("schema_path"),
    "instance_path": _string("instance_path"),
    "offset": lambda record: _size(record["offset"]),
    "message": _string("message"),
    "projected_fields": lambda record: (
        type(fields := record["projected_fields"]) is list and _strings(fields)
    ),
    "projected_values": _converted("projected_values", _projected_values),
    "truncated": lambda record: record["truncated"] is True,  # `const: true`
}
