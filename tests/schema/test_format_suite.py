"""The JSON-Schema-Test-Suite `optional/format` tests (draft2020-12), with formats asserted.

A group whose schema is refused (`SchemaError`: a format toolguard cannot check faithfully) is
the fail-closed answer. A group that compiles must agree with the suite on every case, and no
instance the suite calls invalid may ever be accepted.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from toolguard.errors import SchemaError
from toolguard.schema import Validator, compile_schema
from toolguard.schema.formats import FORMAT_CHECKERS

_REPO = Path(__file__).resolve().parents[2]
_DEFAULT_SUITE = _REPO.parent / "shared" / "json-schema-test-suite"
# Formats whose suite files must compile: every one toolguard has a parser for.
# (`ecmascript-regex.json` exercises the `regex` format.)
_IMPLEMENTED = sorted(FORMAT_CHECKERS)
# Suite cases toolguard is known to reject although the suite calls them valid: each is a
# construct it cannot check faithfully with the standard library, so it fails closed.
_KNOWN_FALSE_REJECTS = {
    "ecmascript-regex::ECMA 262 named groups and backreferences are valid"
    " / an ECMA 262 named backreference \\k<name>",
    "ecmascript-regex::ECMA 262 lookbehind is valid, including variable width"
    " / a variable-width lookbehind (ES2018)",
    "ecmascript-regex::ECMA 262 character classes and escapes"
    " / a control escape \\cA is valid ECMA 262",
    "hostname::validation of A-label (punycode) host names"
    " / ZERO WIDTH NON-JOINER not preceded by Virama but matches regexp",
}


def _suite_root() -> Path:
    configured = os.environ.get("JSON_SCHEMA_TEST_SUITE")
    return Path(configured) if configured else _DEFAULT_SUITE


def _format_dir() -> Path:
    return _suite_root() / "tests" / "draft2020-12" / "optional" / "format"


def _suite_files() -> list[Path]:
    return sorted(_format_dir().glob("*.json")) if _format_dir().is_dir() else []


@dataclass(frozen=True, eq=False)
class Group:
    """One suite test group: a schema and the cases the suite expects of it."""

    file: str
    description: str
    schema: Any
    tests: list[dict[str, Any]]

    @property
    def id(self) -> str:
        return f"{self.file}::{self.description}"


def _load_groups() -> list[Group]:
    return [
        Group(path.stem, group["description"], group["schema"], group["tests"])
        for path in _suite_files()
        for group in json.loads(path.read_text(encoding="utf-8"))
    ]


GROUPS = _load_groups()
_ABSENT = (
    f"no JSON-Schema-Test-Suite optional/format tests at {_format_dir()} "
    "(set JSON_SCHEMA_TEST_SUITE)"
)


@cache
def _compiled(group: Group) -> Validator | None:
    """The group's validator with formats asserted, or None when toolguard refuses the schema."""
    try:
        return compile_schema(group.schema, formats=True)
    except SchemaError:
        return None


def _outcome(validator: Validator, data: Any) -> bool | str:
    try:
        return validator.is_valid(data)
    except Exception as exc:  # noqa: BLE001 - report any crash as a mismatch
        return f"raised {type(exc).__name__}: {exc}"


def test_format_suite_folder_is_not_empty() -> None:
    """The optional/format folder, when present, holds test files (an empty folder fails)."""
    if not _suite_root().exists():
        pytest.skip(_ABSENT)
    assert _suite_files(), f"{_format_dir()} exists but holds no *.json test files"


_PARAMS = [pytest.param(group, id=group.id) for group in GROUPS] or [
    pytest.param(None, id="suite-absent", marks=pytest.mark.skip(reason=_ABSENT))
]


@pytest.mark.parametrize("group", _PARAMS)
def test_compiled_group_agrees_with_suite(group: Group) -> None:
    """A group is refused, or agrees with every case but the documented fail-closed rejects."""
    validator = _compiled(group)
    if validator is None:
        return  # refused: the fail-closed answer is acceptable
    mismatches = []
    for case in group.tests:
        got = _outcome(validator, case["data"])
        where = f"{group.id} / {case['description']}"
        if got is not case["valid"] and not (got is False and where in _KNOWN_FALSE_REJECTS):
            mismatches.append(f"{case['description']!r}: suite says {case['valid']}, got {got}")
    assert not mismatches, "\n".join(mismatches)


_FILES_BY_FORMAT = {fmt: "ecmascript-regex" if fmt == "regex" else fmt for fmt in _IMPLEMENTED}


@pytest.mark.skipif(not GROUPS, reason=_ABSENT)
@pytest.mark.parametrize("fmt", _IMPLEMENTED)
def test_implemented_format_is_not_refused(fmt: str) -> None:
    """Every suite group for a format toolguard parses compiles: none is refused."""
    files = {fmt, _FILES_BY_FORMAT[fmt]}
    groups = [group for group in GROUPS if group.file in files]
    assert groups, f"the suite has no groups for {fmt!r}"
    refused = [group.id for group in groups if _compiled(group) is None]
    assert not refused, f"refused: {refused}"


@dataclass
class _Tally:
    compiled: int = 0
    refused: int = 0
    passed: int = 0
    failed: int = 0
    false_accepts: list[str] = field(default_factory=list)
    false_rejects: list[str] = field(default_factory=list)


def _tally(groups: list[Group]) -> _Tally:
    tally = _Tally()
    for group in groups:
        validator = _compiled(group)
        if validator is None:
            tally.refused += 1
            continue
        tally.compiled += 1
        for case in group.tests:
            got = _outcome(validator, case["data"])
            if got is case["valid"]:
                tally.passed += 1
                continue
            tally.failed += 1
            where = f"{group.id} / {case['description']}"
            (tally.false_accepts if got is True else tally.false_rejects).append(where)
    return tally


@pytest.mark.skipif(not GROUPS, reason=_ABSENT)
def test_no_invalid_format_instance_is_ever_accepted() -> None:
    """Across optional/format, no instance the suite calls invalid passes a compiled validator."""
    tally = _tally(GROUPS)
    # NOTE: the counts are the point of this test (shown with -rP, or on failure).
    print(
        f"groups compiled {tally.compiled} / refused {tally.refused}; "
        f"cases passed {tally.passed} / failed {tally.failed}; "
        f"false accepts {len(tally.false_accepts)}, false rejects {len(tally.false_rejects)}"
    )
    assert not tally.false_accepts, "false accepts:\n" + "\n".join(tally.false_accepts)
    # Equal, not a subset: a fixed case must leave the list, a new one must be reviewed into it.
    assert set(tally.false_rejects) == _KNOWN_FALSE_REJECTS, "\n".join(tally.false_rejects)
