"""A structure-aware mutator for contracts: read the TOML, change one thing, write it back.

Byte mutations mostly break TOML's syntax, so the loader's deeper checks are rarely reached;
half of the contract target's mutations go through here instead: a value replaced by one of
another type or an edge value, a member removed or added (named after the contract schema's
own words), a list item repeated, a value copied from elsewhere in the document. `dumps` is
a small TOML writer (every table inline), enough for what `tomllib` reads back.
"""

from __future__ import annotations

import copy
import datetime
import math
import random
import re
import tomllib
from collections.abc import Callable, Sequence
from typing import Any

ByteMutator = Callable[[bytes, int], bytes]
_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")
_ESCAPES = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f"}
_ESCAPES["\r"] = "\\r"
EDGE_VALUES: tuple[Any, ...] = (
    0,
    -1,
    1,
    2,
    128,
    129,
    2**31,
    2**63 - 1,
    -(2**63),
    0.0,
    -0.0,
    0.5,
    1e308,
    math.inf,
    math.nan,
    True,
    False,
    "",
    " ",
    "x" * 300,
    "/",
    "/records",
    "/records/0",
    "/records/-",
    "/a~1b",
    "/~2",
    "#/x",
    "^[a-z]+$",
    "^(a|a){1,64}$",
    "(?<n>a",
    "\\p{L}",
    "[",
    "*",
    "\x00",
    "\x1b[31m",
    "\u202e",
    "\ufe0f",
    "é",
    "😀",
    "response.schema.json",
    "examples/review_status/response.schema.json",
    "examples/review_status_signed/review-service.jwks.json",
    "tests/data/contracts/shared/review.schema.json",
    "contract.toml",
    "../",
    "/dev/null",
    "TOOLGUARD_AUDIT_KEY",
    "PATH",
    "ES256",
    "none",
    "HS256",
    "req.fixture.0001",
    "2026-03-14T09:30:00Z",
    datetime.datetime(2026, 3, 14, 9, 30, tzinfo=datetime.UTC),
    datetime.date(2026, 3, 14),
    [],
    {},
    [1, "a"],
    ["x", "x"],
    {"kind": "fresh", "pointer": "/finished_at", "max_age_seconds": 1},
    {"kind": "equals_context", "pointer": "/change_id", "context": "change_id", "name": "r"},
)


def dumps(document: dict[str, Any]) -> str:
    """`document` as TOML: one `key = value` line per top-level member, tables inline."""
    return "".join(f"{_key(key)} = {_value(value)}\n" for key, value in document.items())


def _key(key: str) -> str:
    return key if _BARE_KEY.fullmatch(key) else _string(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return ("inf" if value > 0 else "-inf") if math.isinf(value) else repr(value)
    if isinstance(value, str):
        return _string(value)
    if isinstance(value, datetime.date | datetime.time):
        return value.isoformat()
    if isinstance(value, list):
        return "[" + ", ".join(map(_value, value)) + "]"
    return "{" + ", ".join(f"{_key(key)} = {_value(item)}" for key, item in value.items()) + "}"


def _string(text: str) -> str:
    def escape(char: str) -> str:
        if char in _ESCAPES:
            return _ESCAPES[char]
        if char < " " or char == "\x7f":
            return f"\\u{ord(char):04x}"
        return char

    return '"' + "".join(map(escape, text)) + '"'


def mutate(
    data: bytes, max_size: int, rng: random.Random, words: Sequence[str], bytewise: ByteMutator
) -> bytes:
    """Half the time `bytewise(data, max_size)`, else one structural change of the TOML in `data`.

    `bytewise` (libFuzzer's own mutation) also stands in when `data` is no TOML document, or
    its structural change would not fit in `max_size`.
    """
    if rng.random() < 0.5:
        return bytewise(data, max_size)
    try:
        document = tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return bytewise(data, max_size)
    mutate_document(document, words, rng)
    mutated = dumps(document).encode("utf-8")
    return mutated if len(mutated) <= max_size else bytewise(data, max_size)


def mutate_document(document: dict[str, Any], words: Sequence[str], rng: random.Random) -> None:
    """Apply one random structural change to `document`, in place."""
    slots = _slots(document)
    operation = rng.randrange(6) if slots else 2
    if operation == 2:
        tables = [value for value in _values(document) if isinstance(value, dict)]
        rng.choice(tables)[rng.choice(words)] = _edge(rng)
        return
    container, key = rng.choice(slots)
    if operation == 0:
        container[key] = _edge(rng)
    elif operation == 1:
        del container[key]
    elif operation == 3:
        lists = [value for value in _values(document) if isinstance(value, list) and value]
        if lists:
            chosen = rng.choice(lists)
            chosen.append(copy.deepcopy(rng.choice(chosen)))
    elif operation == 4:
        container[key] = _tweak(container[key], words, rng)
    else:
        container[key] = copy.deepcopy(rng.choice(_values(document)))


def _edge(rng: random.Random) -> Any:
    """An edge value, copied: the document is mutated in place later."""
    return copy.deepcopy(rng.choice(EDGE_VALUES))


def _tweak(value: Any, words: Sequence[str], rng: random.Random) -> Any:
    """A near neighbour of `value`: off by one, scaled, shortened, lengthened, renamed."""
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return rng.choice((value + 1, value - 1, -value, value * 1000, value // 2))
    if isinstance(value, float):
        return rng.choice((value * 10.0, -value, value + 0.5))
    if isinstance(value, str):
        return rng.choice((value[: len(value) // 2], value + value, value + rng.choice(words)))
    if isinstance(value, list):
        return value[1:] if value and rng.random() < 0.5 else [*value, _edge(rng)]
    return rng.choice(words)


def _slots(document: dict[str, Any]) -> list[tuple[Any, Any]]:
    """Every (container, key or index) in the document, the top level included."""
    found: list[tuple[Any, Any]] = []
    stack: list[Any] = [document]
    while stack:
        node = stack.pop()
        items = node.items() if isinstance(node, dict) else enumerate(node)
        for key, value in items:
            found.append((node, key))
            if isinstance(value, dict | list):
                stack.append(value)
    return found


def _values(document: dict[str, Any]) -> list[Any]:
    """The document and every value inside it."""
    return [document, *(container[key] for container, key in _slots(document))]
