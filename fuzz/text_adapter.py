"""Fuzz target: the `[text]` adapter (`adapters/lines.py`) with the disk_usage contract's table.

For each input, the adapter built from `examples/disk_usage/contract.toml` (its `[text]` table
and its limits) and a reference written here with Python's `re` agree:

- on accept or reject: strict UTF-8, a final newline, nothing a person cannot see but tab (as
  display text: `invisible.py`, itself held to the UCD by `tests/test_invisible*.py`),
  the header, the number of record lines, every line matched in full, each integer group a
  plain integer within the contract's digits and 64 bits, each group within max_string_length;
- on the document when both accept (the records, their members, types and order);
- a rejection is a `ParseError` or `LimitExceeded`, never another exception.

    python fuzz/text_adapter.py -max_total_time=60
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

import harness
import seeds
from reference import Refused, same

with harness.instrumented():
    from toolguard.adapters.lines import TextAdapter
    from toolguard.errors import Rejection
    from toolguard.invisible import invisible_at
    from toolguard.limits import Limits

CONTRACT = seeds.EXAMPLES / "disk_usage" / "contract.toml"
_DOCUMENT = tomllib.loads(CONTRACT.read_text("utf-8"))
TABLE: dict[str, Any] = _DOCUMENT["text"]
LIMITS = Limits(**_DOCUMENT["limits"])
ADAPTER = TextAdapter.load(TABLE, str(CONTRACT))
_INTEGER = re.compile("-?(?:0|[1-9][0-9]*)")
_INT64_MAX = 2**63 - 1


def _python_pattern(ecma: str) -> re.Pattern[str]:
    """The contract's pattern for Python's `re`: only the constructs it uses, spelled again."""
    assert "\\" not in ecma and "(?=" not in ecma, f"the reference cannot read {ecma!r}"
    named = re.sub(r"\(\?<([A-Za-z_][A-Za-z0-9_]*)>", r"(?P<\1>", ecma)
    # ECMA-262's `.` stops at every line terminator; Python's only at "\n".
    return re.compile(named.replace(".", "[^\n\r\u2028\u2029]"))


HEADER = _python_pattern(TABLE["header"]) if "header" in TABLE else None
LINE = _python_pattern(TABLE["line"])
TYPES: dict[str, str] = TABLE.get("types", {})


def test_one_input(data: bytes) -> None:
    """Check one input; an `AssertionError` is a finding."""
    try:
        got: Any = ADAPTER(data, LIMITS)
    except Rejection as rejection:
        got = rejection
    try:
        expected = reference(data)
    except Refused as refused:
        assert isinstance(got, Rejection), f"accepted what the reference refuses ({refused.why})"
        return
    assert not isinstance(got, Rejection), (
        f"rejected ({got.reason}: {got.message}) what the reference reads as {expected!r}"
    )
    assert same(got, expected), f"read {got!r}, the reference {expected!r}"


def reference(data: bytes) -> dict[str, Any]:
    """The document the output stands for, or `Refused`."""
    if len(data) > LIMITS.max_bytes:
        raise Refused("too_large")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise Refused("bad_utf8") from None
    if text and not text.endswith("\n"):
        raise Refused("unterminated_line")
    if invisible_at(text, display=True) is not None:
        raise Refused("control_character")
    lines = text[:-1].split("\n") if text else []
    document: dict[str, Any] = {}
    if HEADER is not None:
        if not lines:
            raise Refused("missing_header")
        header = _fields(HEADER, lines.pop(0))
        if header:
            document["header"] = header
    if len(lines) > LIMITS.max_container_items:
        raise Refused("container_too_large")
    if not TABLE.get("min_lines", 1) <= len(lines) <= TABLE.get("max_lines", 1000):
        raise Refused("line_count")
    document["records"] = [_fields(LINE, line) for line in lines]
    return document


def _fields(pattern: re.Pattern[str], line: str) -> dict[str, Any]:
    match = pattern.fullmatch(line)
    if match is None:
        raise Refused("line_mismatch")
    record: dict[str, Any] = {}
    for name, value in match.groupdict().items():
        if value is None:
            continue
        if len(value) > LIMITS.max_string_length:
            raise Refused("string_too_long")
        kind = TYPES.get(name, "string")
        assert kind in ("string", "integer"), f"the reference has no {kind} groups"
        if kind == "integer":
            if not _INTEGER.fullmatch(value):
                raise Refused("bad_integer")
            if len(value.lstrip("-")) > LIMITS.max_integer_digits or abs(int(value)) > _INT64_MAX:
                raise Refused("integer_too_long")
            record[name] = int(value)
        else:
            record[name] = value
    return record


def main() -> None:
    """Fuzz, with the disk_usage example's outputs as seeds."""
    harness.run(
        "text_adapter",
        test_one_input,
        seeds=seeds.text_outputs,
        dictionary=seeds.TEXT_TOKENS,
        max_len=8192,
    )


if __name__ == "__main__":
    main()
