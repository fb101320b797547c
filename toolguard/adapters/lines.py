"""Strict text adapter: the whole text output of a command -> one JSON document, or a rejection.

For commands that do not speak JSON (`df -P` over SSH). Every line must match: an optional
header, then record lines, each matched in full by an ECMA-262 pattern whose named groups
become the record's members, typed as declared. A banner, a warning, a blank line (unless the
line pattern matches an empty line), a missing final newline, a carriage return or any
control character is a rejection: nothing is skipped and nothing is guessed. An MCP text
block (`block`) is a whole string: its last line may end without a newline. The document is
`{"records": [...]}` (plus `"header": {...}` when the header pattern has named groups); it
then goes through the contract's schema like JSON would.
"""

from __future__ import annotations

import math
import re
from types import MappingProxyType

from toolguard.adapters import Setting
from toolguard.errors import ContractError, LimitExceeded, ParseError, SchemaError
from toolguard.frozen import frozen
from toolguard.invisible import invisible_at
from toolguard.number import float_reader
from toolguard.schema.matcher import Matcher
from toolguard.schema.regex import translate_groups

TYPE_CHECKING = False  # NOTE: `typing` and `dataclasses` cost a one-shot check start-up
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal, TypeAlias

    from toolguard.limits import Limits

    GroupType: TypeAlias = Literal["string", "integer", "number"]

_INTEGER = re.compile(r"-?(?:0|[1-9][0-9]*)")
_INT64_MAX = 2**63 - 1
_NUMBER = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?")


@frozen
class LinePattern:
    """One compiled line rule: the RE2 pattern and its capturing groups' names in order."""

    source: str
    compiled: Matcher
    names: tuple[str | None, ...]
    where: str = "text.line"  # the contract key, for the operator told a line does not match

    @classmethod
    def compile(cls, source: str, where: str) -> LinePattern:
        """Translate an ECMA-262 pattern (a `SchemaError` at `where` if it cannot be)."""
        translated, names = translate_groups(source, where)
        return cls(source, Matcher(translated), names, where)

    def fields(self, line: str, types: Mapping[str, GroupType], limits: Limits) -> dict[str, Any]:
        """The named groups of a full match, typed; a group that took no part is left out."""
        groups = self.compiled.groups(line)  # RE2: time linear in the line, whatever the pattern
        if groups is None:
            raise ParseError(
                "line_mismatch", f"does not match {self.where} {self.source!r}: {line!r}"
            )
        record: dict[str, Any] = {}
        for name, value in zip(self.names, groups, strict=True):
            if name is not None and value is not None:
                record[name] = _typed(value, types.get(name, "string"), name, limits)
        return record


@frozen
class TextAdapter:
    """The contract's `[text]` table, compiled."""

    line: LinePattern
    header: LinePattern | None = None
    types: Mapping[str, GroupType] | None = None
    min_lines: int = 1
    max_lines: int = 1000
    block: bool = False  # an MCP text block, last newline optional: set by `reading_text_blocks`

    @classmethod
    def load(cls, table: dict[str, Any], source: str) -> TextAdapter:
        """Compile the (schema-checked) `[text]` table; a `ContractError` if it cannot."""
        try:
            line = LinePattern.compile(table["line"], "text.line")
            header = (
                LinePattern.compile(table["header"], "text.header") if "header" in table else None
            )
        except SchemaError as exc:
            raise ContractError(exc.message, source=source, field=exc.field) from None
        types = dict(table.get("types", {}))
        declared = {name for pattern in (line, header) if pattern for name in pattern.names if name}
        unknown = sorted(set(types) - declared)
        if unknown:
            raise ContractError(
                f"types for groups no pattern has: {unknown}", source=source, field="text.types"
            )
        bounds = (table.get("min_lines", 1), table.get("max_lines", 1000))
        if bounds[0] > bounds[1]:
            raise ContractError("min_lines is above max_lines", source=source, field="text")
        return cls(line, header, MappingProxyType(types), *bounds)

    def describe(self) -> dict[str, str]:
        """What made the payload, for the audit record (toolguard's own line adapter)."""
        return {"kind": "lines"}

    def settings(self) -> dict[str, Setting]:
        """Patterns and group types change what is read both ways; line counts have a sense."""
        found = {
            "line": Setting(self.line.source, "line pattern"),
            "header": Setting(self.header and self.header.source, "header pattern"),
            "min_lines": Setting(self.min_lines, "min_lines", grows=-1),
            "max_lines": Setting(self.max_lines, "max_lines", grows=1),
        }
        types = self.types or {}
        for pattern in (self.line, self.header):
            for group in pattern.names if pattern else ():
                if group is not None:
                    kind = types.get(group, "string")
                    found[f"types.{group}"] = Setting(kind, f"type of group {group!r}")
        return found

    def __call__(self, raw: bytes, limits: Limits) -> dict[str, Any]:
        """The JSON document the text stands for, or a `ParseError` / `LimitExceeded`."""
        if len(raw) > limits.max_bytes:
            raise LimitExceeded("too_large", f"output is larger than max_bytes={limits.max_bytes}")
        lines = _lines(raw, self.block)
        types = self.types or {}
        document: dict[str, Any] = {}
        first = 0  # the index of the first record line
        if self.header is not None:
            if not lines:
                raise ParseError("missing_header", "output is empty: the header line is missing")
            header = _read_line(self.header, lines, 0, types, limits)
            if header:
                document["header"] = header
            first = 1
        count = len(lines) - first
        if count > limits.max_container_items:  # `records` is an array like any other
            raise LimitExceeded(
                "container_too_large",
                f"{count} record lines: over max_container_items={limits.max_container_items}",
            )
        if not self.min_lines <= count <= self.max_lines:
            raise ParseError(
                "line_count",
                f"{count} record lines, expected {self.min_lines} to {self.max_lines}"
                " ([text] min_lines to max_lines)",
            )
        document["records"] = [
            _read_line(self.line, lines, index, types, limits) for index in range(first, len(lines))
        ]
        return document


def _read_line(
    pattern: LinePattern,
    lines: list[str],
    index: int,
    types: Mapping[str, GroupType],
    limits: Limits,
) -> dict[str, Any]:
    """The fields of `lines[index]`; a rejection names the line and carries its byte offset.

    Lines are numbered from 1, the header included, as an editor or `sed -n Np` counts them.
    """
    try:
        return pattern.fields(lines[index], types, limits)
    except (ParseError, LimitExceeded) as error:
        offset = sum(len(line.encode("utf-8")) + 1 for line in lines[:index])  # a rejection only
        raise type(error)(
            error.reason, f"line {index + 1}: {error.message}", offset=offset
        ) from None


def _lines(raw: bytes, block: bool) -> list[str]:
    """Strict UTF-8, newline-terminated lines holding nothing a person cannot see but tabs."""
    text = strict_text(raw, block=block)
    if not text:
        return []
    return (text[:-1] if text.endswith("\n") else text).split("\n")


def strict_text(raw: bytes, *, block: bool = False) -> str:
    """The output as text, if it is UTF-8, ends with a newline and hides nothing but tabs.

    Hidden is what display text may not hold (`invisible.invisible_at`): the projection's
    own test, so a character the agent may not receive is refused here even in a field the
    contract lets through (`allow_hidden_characters` is for JSON values, not text output).
    A `block` (an MCP text block, a whole string) need not end with a newline: its end is
    the string's, so a missing one cannot mean a cut.
    """
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise ParseError(
            "bad_utf8", f"output is not UTF-8 at byte {exc.start} (line {line})", offset=exc.start
        ) from None
    if text and not block and not text.endswith("\n"):
        last = text.count("\n") + 1
        raise ParseError(
            "unterminated_line",
            f"line {last}, the last, has no final newline (truncated?)",
            offset=len(raw),
        )
    index = invisible_at(text, display=True)
    if index is not None:
        raise _hidden(text, index)
    return text


def _hidden(text: str, index: int) -> ParseError:
    """The rejection of the hidden character `text[index]`: where it is, and what it likely is.

    A carriage return before each newline is the usual honest case: a pseudo-terminal (`ssh
    -t`) writes CRLF. Saying so tells the operator what to change; nothing is stripped.
    """
    import unicodedata  # noqa: PLC0415 - a rejection only

    char = text[index]
    line = text.count("\n", 0, index) + 1
    if text.startswith("\r\n", index):
        message = (
            f"a carriage return (U+000D) ends line {line}: CRLF line endings, as a pseudo-terminal"
            " writes them (ssh -t); the text must end its lines with a newline alone"
        )
    else:
        named = f"U+{ord(char):04X} {unicodedata.name(char, '')}".rstrip()  # controls: no name
        column = index - text.rfind("\n", 0, index)
        message = f"character {named} at line {line}, column {column}"
    return ParseError("control_character", message, offset=len(text[:index].encode("utf-8")))


def _typed(value: str, kind: GroupType, name: str, limits: Limits) -> Any:
    if len(value) > limits.max_string_length:
        raise LimitExceeded("string_too_long", f"group {name!r} is over max_string_length")
    if kind == "string":
        return value
    if kind == "integer":
        if _INTEGER.fullmatch(value) is None:
            raise ParseError("bad_integer", f"group {name!r} is not an integer: {value!r}")
        # The JSON parser's bounds: digits first, so no huge int is ever built.
        too_long = len(value.lstrip("-")) > limits.max_integer_digits
        if too_long or not -_INT64_MAX - 1 <= int(value) <= _INT64_MAX:
            raise LimitExceeded("integer_too_long", f"group {name!r} is over the integer budget")
        return int(value)
    number = float(value) if _NUMBER.fullmatch(value) else math.nan
    if not math.isfinite(number):
        raise ParseError("bad_number", f"group {name!r} is not a finite number: {value!r}")
    # NOTE: `float_reader` reads float tokens, which JSON writes with a fraction or an exponent
    # (its short path counts on it); an integer spelling is the same number written as one.
    token = value if "." in value or "e" in value or "E" in value else f"{value}.0"
    try:  # as the JSON parser reads a float token: the same refusals, the same exact value
        return float_reader(limits.max_integer_digits)(token)
    except ParseError as error:
        raise ParseError(error.reason, f"group {name!r}: {error.message}") from None
