"""JSON Pointer -> line (and column) in a JSON or TOML file, so a problem shows on its line.

Lint findings and contract errors both use it. The scanners read files that already passed
a strict parser (schemas) or `tomllib` (contracts); on anything they do not follow they keep
what they found, and a pointer they cannot place falls back to its nearest located parent,
then to line 1.
"""

from __future__ import annotations

import contextlib
import json
import re

from toolguard.errors import Rejection
from toolguard.files import open_regular
from toolguard.limits import read_bounded
from toolguard.pointer import escape, join, tokens

MAX_BYTES = 16 << 20
_TOML_HEADER = re.compile(r"\s*(\[\[?)\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?")
_TOML_KEY = re.compile(
    r"\s*((?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*')(?:\s*\.\s*(?:[A-Za-z0-9_-]+|\"[^\"]*\"|'[^']*'))*)\s*="
)
_TOML_KEY_PART = re.compile(r"\"([^\"]*)\"|'([^']*)'|([A-Za-z0-9_-]+)")


def line_of(lines: dict[str, int], pointer: str) -> int:
    """The line of `pointer`, else of its nearest located parent, else 1."""
    return position_of({key: (line, 1) for key, line in lines.items()}, pointer)[0]


def position_of(positions: dict[str, tuple[int, int]], pointer: str) -> tuple[int, int]:
    """The (line, column) of `pointer`, else of its nearest located parent, else (1, 1)."""
    steps = tokens(pointer)
    while steps:
        found = positions.get(join(steps))
        if found is not None:
            return found
        steps.pop()
    return positions.get("", (1, 1))


def text_lines(text: str) -> list[str]:
    """The lines of a TOML or JSON text, numbered as TOML, JSON, editors and SARIF number them.

    NOTE: split at LF only (a CRLF line keeps its CR, which the scanners read as blank):
    `str.splitlines` also splits at VT, FF, U+0085, U+2028 and U+2029, which a comment or a
    string may hold, and every line after one would be reported too low.
    """
    return text.split("\n")


def file_lines(path: str) -> dict[str, int]:
    """Pointer -> line for a `.toml` contract or a JSON schema; {} if it cannot be read."""
    try:
        with open_regular(path) as stream:
            text = read_bounded(stream, MAX_BYTES).decode("utf-8")
    except (OSError, Rejection, UnicodeDecodeError):
        return {}
    return toml_lines(text) if path.endswith(".toml") else json_lines(text)


def toml_lines(text: str) -> dict[str, int]:
    """Pointer -> line of each table header and key of a TOML text (`[[x]]` counts from 0)."""
    return {pointer: line for pointer, (line, _) in toml_positions(text).items()}


def toml_positions(text: str) -> dict[str, tuple[int, int]]:
    """Pointer -> (line, column) of each table header and key of a TOML text, from 1."""
    found: dict[str, tuple[int, int]] = {"": (1, 1)}
    table: list[str] = []
    counts: dict[tuple[str, ...], int] = {}
    closing: str | None = None
    for number, line in enumerate(text_lines(text), 1):
        if closing is not None:
            closing = None if closing in line else closing
            continue
        header = _TOML_HEADER.fullmatch(line)
        if header:
            written = _toml_key(header.group(2))
            keys = _in_arrays(written, counts)
            if header.group(1) == "[[":
                counts[tuple(written)] = counts.get(tuple(written), -1) + 1
                keys = [*keys, str(counts[tuple(written)])]
            table = keys
            for depth in range(1, len(table) + 1):
                found.setdefault(join(table[:depth]), (number, header.start(1) + 1))
            continue
        key = _TOML_KEY.match(line)
        if key:
            found.setdefault(join([*table, *_toml_key(key.group(1))]), (number, key.start(1) + 1))
            rest = line[key.end() :]
            closing = next((q for q in ('"""', "'''") if rest.count(q) == 1), None)
    return found


def _in_arrays(keys: list[str], counts: dict[tuple[str, ...], int]) -> list[str]:
    """`[rules.claims]` after `[[rules]]` is in the array's last table: `rules/N/claims`."""
    placed: list[str] = []
    for depth, key in enumerate(keys[:-1], 1):
        placed.append(key)
        if tuple(keys[:depth]) in counts:
            placed.append(str(counts[tuple(keys[:depth])]))
    return [*placed, *keys[-1:]]


def _toml_key(text: str) -> list[str]:
    return ["".join(part) for part in _TOML_KEY_PART.findall(text)]


def json_lines(text: str) -> dict[str, int]:
    """Pointer -> line of each value of a JSON text (a member's: the line of its name)."""
    scanner = _JsonLines(text)
    # NOTE: keep what was located before the text stopped making sense
    with contextlib.suppress(IndexError, ValueError, RecursionError):
        scanner.value("", None)
    return scanner.found


class _JsonLines:
    """A recursive descent over JSON that records where each value starts."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.index = 0
        self.line = 1
        self.found: dict[str, int] = {}

    def skip(self) -> None:
        while self.text[self.index] in " \t\r\n":
            self.line += self.text[self.index] == "\n"
            self.index += 1

    def value(self, pointer: str, line: int | None) -> None:
        self.skip()
        self.found.setdefault(pointer, line or self.line)
        opening = self.text[self.index]
        if opening in "{[":
            self.container(pointer, opening == "{")
        elif opening == '"':
            self.string()
        else:
            while self.text[self.index] not in ",]} \t\r\n":
                self.index += 1

    def container(self, pointer: str, is_object: bool) -> None:
        self.index += 1
        self.skip()
        if self.text[self.index] in "}]":
            self.index += 1
            return
        position = 0
        while True:
            self.skip()
            if is_object:
                line = self.line
                name = self.string()
                self.skip()
                self.index += 1  # the colon
                self.value(f"{pointer}/{escape(name)}", line)
            else:
                self.value(f"{pointer}/{position}", None)
                position += 1
            self.skip()
            separator = self.text[self.index]
            self.index += 1
            if separator != ",":
                return

    def string(self) -> str:
        end = self.index + 1
        while self.text[end] != '"':
            end += 2 if self.text[end] == "\\" else 1
        raw = self.text[self.index : end + 1]
        self.index = end + 1
        decoded: str = json.loads(raw)
        return decoded
