"""Text for the files `toolguard init` writes: a commented contract, JSON, expectations.

Names and values may come from a sample response, so whatever a person could not see on
screen (controls, format characters, bidi overrides) is written as an escape, in TOML as in
JSON: the files read the same in an editor, a terminal and a review.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolguard.invisible import hidden

COMMENT_COLUMN = 34  # where a `# ...` after a TOML value starts, as in the README's contract
JSON_WIDTH = 96  # a JSON value shorter than this at its indent is written on one line


@dataclass(frozen=True, slots=True)
class Entry:
    """One `key = value` line of a TOML table, with a comment after it (or none)."""

    key: str  # a bare TOML key: a contract's own word or a projection name (snake_case)
    value: str | int
    comment: str = ""
    commented: bool = False  # written as `# key = value`, for the author to decide on


@dataclass(frozen=True, slots=True)
class Table:
    """A TOML table (`[limits]`, `[[rules]]`) with its comment; `commented` writes it as `# `."""

    header: str
    entries: Sequence[Entry]
    comment: str = ""
    commented: bool = False


def contract_text(preamble: Sequence[str], top: Sequence[Entry], tables: Sequence[Table]) -> str:
    """The contract TOML: comment lines, top-level keys, then each table after a blank line."""
    lines = [f"# {_visible(line)}" if line else "#" for line in preamble]
    lines += [_line(entry) for entry in top]
    for table in tables:
        lines.append("")
        # NOTE: a commented-out table keeps its comments in the same column as the others.
        column = COMMENT_COLUMN - 2 if table.commented else COMMENT_COLUMN
        body = [
            _commented(table.header, table.comment, column),
            *(_entry(entry, column) for entry in table.entries),
        ]
        lines += [f"# {line}" for line in body] if table.commented else body
    return "\n".join(lines) + "\n"


def comment_lines(text: str) -> list[str]:
    """A `# ` line per line of `text` (for a block of advice between tables)."""
    return [f"# {_visible(line)}" if line else "#" for line in text.splitlines()]


def _entry(entry: Entry, column: int) -> str:
    """An entry's line; a commented one keeps its comment in the column of the others."""
    return f"# {_line(entry, column - 2)}" if entry.commented else _line(entry, column)


def _line(entry: Entry, column: int = COMMENT_COLUMN) -> str:
    value = entry.value if isinstance(entry.value, int) else toml_string(entry.value)
    return _commented(f"{entry.key} = {value}", entry.comment, column)


def _commented(text: str, comment: str, column: int = COMMENT_COLUMN) -> str:
    if not comment:
        return text
    return f"{text.ljust(column - 1)} # {_visible(comment)}"


def toml_string(text: str) -> str:
    """A TOML basic string: quotes and backslashes escaped, anything unseen as a u-escape."""
    out = []
    for char in text:
        if char in {'"', "\\"}:
            out.append(f"\\{char}")
        elif _unseen(char):
            code = ord(char)
            out.append(f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}")
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def json_text(value: Any) -> str:
    """`value` as JSON for a person: short values on one line, anything unseen escaped."""
    return visible_json(_json(value, 0)) + "\n"


def json_bytes(value: Any) -> bytes:
    """`value` as one line of JSON, UTF-8, as an upstream would send it (for fixtures)."""
    return visible_json(json.dumps(value, ensure_ascii=False, allow_nan=False)).encode()


def expect_text(note: str, expectation: Mapping[str, str]) -> str:
    """A reject fixture's `NAME.expect.toml`: what the near miss plays, then code and layer."""
    values = [f"{key} = {toml_string(value)}" for key, value in expectation.items()]
    lines = [*comment_lines(note), *values]
    return "\n".join(lines) + "\n"


def _json(value: Any, indent: int) -> str:
    flat = json.dumps(value, ensure_ascii=False, allow_nan=False)
    if len(flat) + indent <= JSON_WIDTH or not isinstance(value, dict | list) or not value:
        return flat
    inner = " " * (indent + 2)
    if isinstance(value, list):
        items = [inner + _json(item, indent + 2) for item in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"
    members = [
        f"{inner}{json.dumps(key, ensure_ascii=False)}: {_json(item, indent + 2)}"
        for key, item in value.items()
    ]
    return "{\n" + ",\n".join(members) + "\n" + " " * indent + "}"


def visible_json(text: str) -> str:
    """Escape, inside JSON text, what `json.dumps(ensure_ascii=False)` leaves raw and unseen."""
    out = []
    for char in text:
        if char != "\n" and _unseen(char):
            code = ord(char)
            if code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}")
            else:
                out.append(f"\\u{code:04x}")
        else:
            out.append(char)
    return "".join(out)


def _visible(text: str) -> str:
    """A comment shows unseen characters as escapes, like `report.clean`, on one line."""
    return "".join(
        char.encode("unicode_escape").decode() if _unseen(char) else char for char in text
    )


def _unseen(char: str) -> bool:
    return hidden(char) or not char.isprintable()
