"""The official JSON-Schema-Test-Suite (draft2020-12, required tests) run through `compile_schema`.

A group whose schema is refused with `SchemaError` is acceptable: that is the fail-closed answer.
A group that compiles must agree with the suite on every case, and across the whole suite no
instance the suite calls invalid may ever be accepted.
"""

from __future__ import annotations

import json
import os
import urllib.request
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from toolguard.errors import SchemaError
from toolguard.schema import Validator, compile_schema

_REPO = Path(__file__).resolve().parents[2]
_DEFAULT_SUITE = _REPO.parent / "shared" / "json-schema-test-suite"


def _suite_root() -> Path:
    configured = os.environ.get("JSON_SCHEMA_TEST_SUITE")
    return Path(configured) if configured else _DEFAULT_SUITE


def _draft_dir() -> Path:
    return _suite_root() / "tests" / "draft2020-12"


def _suite_files() -> list[Path]:
    # NOTE: only the top level: optional/ holds behaviour the spec does not require.
    return sorted(_draft_dir().glob("*.json")) if _draft_dir().is_dir() else []


@dataclass(frozen=True, eq=False)
class Group:
    """One suite test group: a schema and the cases the suite expects of it."""

    file: str
    index: int
    description: str
    schema: Any
    tests: list[dict[str, Any]]

    @property
    def id(self) -> str:
        return f"{self.file}::{self.description}"


def _load_groups() -> list[Group]:
    groups = []
    for path in _suite_files():
        for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
            groups.append(
                Group(path.stem, index, group["description"], group["schema"], group["tests"])
            )
    return groups


GROUPS = _load_groups()
_ABSENT = (
    f"no JSON-Schema-Test-Suite draft2020-12 tests at {_draft_dir()} (set JSON_SCHEMA_TEST_SUITE)"
)


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if anything tries to fetch a URL (remote refs must be refused)."""

    def _urlopen(url: object, *args: object, **kwargs: object) -> None:
        pytest.fail(f"network access attempted: {url!r}")

    monkeypatch.setattr(urllib.request, "urlopen", _urlopen)


# The suite's remote documents, served through the registry: the network is never used.
REMOTES = {"http://localhost:1234/": str(_suite_root() / "remotes")}


@cache
def _compiled(group: Group) -> Validator | None:
    """The group's validator, or None when toolguard refuses the schema (fail closed)."""
    try:
        return compile_schema(group.schema, formats=False, refs=REMOTES)
    except SchemaError:
        return None


def _outcome(validator: Validator, data: Any) -> bool | str:
    try:
        return validator.is_valid(data)
    except Exception as exc:  # noqa: BLE001 - report any crash as a mismatch
        return f"raised {type(exc).__name__}: {exc}"


def _mismatches(group: Group, validator: Validator) -> list[str]:
    found = []
    for case in group.tests:
        got = _outcome(validator, case["data"])
        if got is not case["valid"]:
            found.append(f"{case['description']!r}: suite says {case['valid']}, got {got}")
    return found


def test_suite_folder_is_not_empty() -> None:
    """The suite folder, when present, holds draft2020-12 test files (an empty folder fails)."""
    if not _suite_root().exists():
        pytest.skip(_ABSENT)
    assert _suite_files(), f"{_draft_dir()} exists but holds no *.json test files"


_PARAMS = [pytest.param(group, id=group.id) for group in GROUPS] or [
    pytest.param(None, id="suite-absent", marks=pytest.mark.skip(reason=_ABSENT))
]


@pytest.mark.parametrize("group", _PARAMS)
def test_compiled_group_agrees_with_suite(group: Group) -> None:
    """A group's schema is either refused, or its validator agrees with every suite case."""
    validator = _compiled(group)
    if validator is None:
        return  # refused: the fail-closed answer is acceptable
    mismatches = _mismatches(group, validator)
    assert not mismatches, "\n".join(mismatches)


_REMOTE = [pytest.param(group, id=group.id) for group in GROUPS if group.file == "refRemote"]


@pytest.mark.skipif(not _REMOTE, reason=_ABSENT)
@pytest.mark.parametrize("group", _REMOTE)
def test_remote_reference_group_is_refused_without_a_registry(group: Group) -> None:
    """Without a registry every refRemote group is refused; nothing is fetched (`_no_network`)."""
    with pytest.raises(SchemaError):
        compile_schema(group.schema, formats=False)


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
            where = f"{group.id} / {case['description']} (got {got})"
            (tally.false_accepts if got is True else tally.false_rejects).append(where)
    return tally


@pytest.mark.skipif(not GROUPS, reason=_ABSENT)
def test_no_invalid_instance_is_ever_accepted() -> None:
    """Across the whole suite, no instance the suite calls invalid passes a compiled validator."""
    tally = _tally(GROUPS)
    # NOTE: the counts are the point of this test (shown with -rP, or on failure).
    print(
        f"groups compiled {tally.compiled} / refused {tally.refused}; "
        f"cases passed {tally.passed} / failed {tally.failed}; "
        f"false accepts {len(tally.false_accepts)}, false rejects {len(tally.false_rejects)}"
    )
    assert not tally.false_accepts, "false accepts:\n" + "\n".join(tally.false_accepts)
