"""Patterns on hostile data, end to end: every place a pattern runs answers at once, rightly.

The issue's case: `^(a|a){1,64}$` (overlapping alternatives, no nested quantifier) held
`toolguard check` for seconds on a 26-byte response and would for hours on 35. Each check below
runs in a real subprocess with a 30 s timeout, so a backtracking engine fails the test instead
of hanging it; `serve` must answer the request after a hostile one too.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

OVERLAPPING = "^(a|a){1,64}$"
HOSTILE = "a" * 34 + "!"  # the 35 bytes once quoted in JSON
LONG = "a" * 65000 + "!"  # within the default max_string_length (65,536 characters)
CONTRACT = """\
tool = "hostile"
version = "1.0.0"
schema = "schema.json"
{extra}
[projection]
value = "/{field}"
"""


def contract(
    folder: Path, schema: dict[str, object], *, extra: str = "", field: str = "value"
) -> Path:
    (folder / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    path = folder / "contract.toml"
    path.write_text(CONTRACT.format(extra=extra, field=field), encoding="utf-8")
    return path


def check(path: Path, stdin: bytes, *args: str) -> tuple[int, dict[str, object]]:
    done = subprocess.run(
        [sys.executable, "-m", "toolguard", "check", str(path), *args],
        input=stdin,
        capture_output=True,
        timeout=30,
        check=False,
    )
    return done.returncode, json.loads(done.stdout)


def strings(pattern_schema: dict[str, object]) -> dict[str, object]:
    return {
        "type": "object",
        "properties": {"value": {"type": "string", **pattern_schema}},
        "required": ["value"],
        "additionalProperties": False,
    }


@pytest.mark.parametrize("value", [HOSTILE, LONG], ids=["35 bytes", "64 KiB"])
def test_a_schema_pattern_rejects_a_hostile_string_at_once(tmp_path: Path, value: str) -> None:
    """`pattern` with overlapping alternatives: the hostile string is rejected at the schema
    layer (exit 1), and a string it does match is accepted."""
    path = contract(tmp_path, strings({"pattern": OVERLAPPING}))
    status, envelope = check(path, json.dumps({"value": value}).encode())
    assert status == 1
    assert envelope["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    status, envelope = check(path, json.dumps({"value": "a" * 64}).encode())
    assert (status, envelope["data"]) == (0, {"value": "a" * 64})


def test_a_pattern_properties_key_is_matched_at_once(tmp_path: Path) -> None:
    """A hostile member name against `patternProperties` (a closed object) is decided at once:
    the name the pattern finds must hold an integer, any other name is refused."""
    schema = {
        "type": "object",
        "properties": {"value": {"type": "string"}},
        "patternProperties": {OVERLAPPING: {"type": "integer"}},
        "additionalProperties": False,
    }
    path = contract(tmp_path, schema)
    status, _ = check(path, json.dumps({"value": "v", HOSTILE: 1}).encode())
    assert status == 1
    status, _ = check(path, json.dumps({"value": "v", "a" * 40: 1}).encode())
    assert status == 0


def test_a_text_line_pattern_rejects_a_hostile_line_at_once(tmp_path: Path) -> None:
    """A `[text]` line pattern with overlapping alternatives: the hostile line is a parse
    rejection, a matching one becomes a record."""
    schema = {
        "type": "object",
        "properties": {"records": {"type": "array", "items": {"type": "object"}}},
    }
    path = contract(
        tmp_path, schema, extra="[text]\nline = '^(?<run>(?:a|a){1,64})$'", field="records"
    )
    status, envelope = check(path, HOSTILE.encode() + b"\n")
    assert (status, envelope["outcome"]) == (1, "failure")
    status, envelope = check(path, LONG.encode() + b"\n")
    assert status == 1
    status, envelope = check(path, b"aaaa\n")
    assert (status, envelope["data"]) == (0, {"value": [{"run": "aaaa"}]})


def test_a_context_pattern_rule_rejects_a_hostile_value_at_once(tmp_path: Path) -> None:
    """`matches_context_pattern` with overlapping alternatives after a context value: the
    hostile value fails the rule (exit 1), a matching one passes."""
    rule = (
        '[[rules]]\nname = "run_of_prefix"\nkind = "matches_context_pattern"\n'
        'pointer = "/value"\npattern = "{prefix}-(a|a){1,64}"\n'
    )
    path = contract(tmp_path, strings({}), extra=rule)
    status, _ = check(path, json.dumps({"value": f"p-{HOSTILE}"}).encode(), "--context", "prefix=p")
    assert status == 1
    status, _ = check(path, json.dumps({"value": "p-aaa"}).encode(), "--context", "prefix=p")
    assert status == 0


def test_serve_answers_the_request_after_a_hostile_one(tmp_path: Path) -> None:
    """In `serve`, a hostile response no longer stalls the requests behind it: both answered."""
    path = contract(tmp_path, strings({"pattern": OVERLAPPING}))
    lines = [
        json.dumps({"raw": json.dumps({"value": value}), "request_id": f"req.hostile.{index}"})
        for index, value in enumerate([LONG, "aaa"])
    ]
    done = subprocess.run(
        [sys.executable, "-m", "toolguard", "serve", str(path)],
        input="\n".join(lines).encode() + b"\n",
        capture_output=True,
        timeout=30,
        check=True,
    )
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    assert [answer["outcome"] for answer in answers] == ["failure", "success"]
