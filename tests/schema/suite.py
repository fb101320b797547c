"""Shared plumbing for the JSON-Schema-Test-Suite tests (a helper module, not a test file).

`Folder` names one folder of draft2020-12 suite files and loads its groups; `compiler` builds a
cached compile step with the options a test file wants (formats, refs); `Tally` counts how the
compiled groups fare against the suite. The root is the copy vendored under
`tests/conformance/`, or `JSON_SCHEMA_TEST_SUITE` when set; a missing or empty folder fails.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from toolguard.errors import SchemaError
from toolguard.schema import Validator, compile_schema

_ENV = "JSON_SCHEMA_TEST_SUITE"
_VENDORED = Path(__file__).resolve().parents[1] / "conformance" / "json-schema-test-suite"


def suite_root() -> Path:
    """The suite: `JSON_SCHEMA_TEST_SUITE` when set, else the copy under tests/conformance/."""
    configured = os.environ.get(_ENV)
    return Path(configured) if configured else _VENDORED


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


@dataclass(frozen=True)
class Folder:
    """One folder of suite files under `tests/draft2020-12`, resolved on every use."""

    label: str  # how messages name it, e.g. "draft2020-12" or "optional/format"
    parts: tuple[str, ...] = ()  # below tests/draft2020-12

    def path(self) -> Path:
        return suite_root().joinpath("tests", "draft2020-12", *self.parts)

    def files(self) -> list[Path]:
        # NOTE: only the folder's top level, never its subfolders (e.g. optional/).
        return sorted(self.path().glob("*.json")) if self.path().is_dir() else []

    def groups(self) -> list[Group]:
        """Every group of the folder's files; fails collection when there are none."""
        if not self.files():
            pytest.fail(self.absent(), pytrace=False)
        groups = []
        for path in self.files():
            for index, group in enumerate(json.loads(path.read_text(encoding="utf-8"))):
                groups.append(
                    Group(path.stem, index, group["description"], group["schema"], group["tests"])
                )
        return groups

    def absent(self) -> str:
        """The failure message when the folder is missing or holds no test files."""
        return (
            f"no JSON-Schema-Test-Suite {self.label} tests at {self.path()} "
            f"(the copy under tests/conformance/, or {_ENV} when set)"
        )


def group_params(groups: list[Group]) -> list[Any]:
    """One param per group, with the group's file and description as its id."""
    return [pytest.param(group, id=group.id) for group in groups]


def compiler(**options: Any) -> Callable[[Group], Validator | None]:
    """A cached compile step: a group's validator, or None when toolguard refuses the schema."""

    @cache
    def compiled(group: Group) -> Validator | None:
        try:
            return compile_schema(group.schema, **options)
        except SchemaError:
            return None  # refused: the fail-closed answer

    return compiled


def outcome(validator: Validator, data: Any) -> bool | str:
    """The validator's verdict, or a description of the exception it raised."""
    try:
        return validator.is_valid(data)
    except Exception as exc:  # noqa: BLE001 - report any crash as a mismatch
        return f"raised {type(exc).__name__}: {exc}"


def mismatches(
    group: Group, validator: Validator, known_false_rejects: Collection[str] = ()
) -> list[str]:
    """Cases where the validator disagrees with the suite, less the known false rejects."""
    found = []
    for case in group.tests:
        got = outcome(validator, case["data"])
        where = f"{group.id} / {case['description']}"
        if got is not case["valid"] and not (got is False and where in known_false_rejects):
            found.append(f"{case['description']!r}: suite says {case['valid']}, got {got}")
    return found


@dataclass
class Tally:
    """How the compiled groups fared: every case passed or failed, failures by direction."""

    compiled: int = 0
    refused: int = 0
    passed: int = 0
    failed: int = 0
    false_accepts: list[str] = field(default_factory=list)
    false_rejects: list[str] = field(default_factory=list)

    def summary(self) -> str:
        return (
            f"groups compiled {self.compiled} / refused {self.refused}; "
            f"cases passed {self.passed} / failed {self.failed}; "
            f"false accepts {len(self.false_accepts)}, false rejects {len(self.false_rejects)}"
        )


def tally(
    groups: list[Group],
    compiled: Callable[[Group], Validator | None],
    *,
    show_got: bool = False,
) -> Tally:
    """Count every group and case; `show_got` appends the verdict to each failure's location."""
    result = Tally()
    for group in groups:
        validator = compiled(group)
        if validator is None:
            result.refused += 1
            continue
        result.compiled += 1
        for case in group.tests:
            got = outcome(validator, case["data"])
            if got is case["valid"]:
                result.passed += 1
                continue
            result.failed += 1
            where = f"{group.id} / {case['description']}"
            if show_got:
                where += f" (got {got})"
            (result.false_accepts if got is True else result.false_rejects).append(where)
    return result
