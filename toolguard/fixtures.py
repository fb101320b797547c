"""`toolguard test`, discovery: the fixture files beside a contract -> a `Suite` of `Case`s.

Layout, beside each contract: `fixtures/accept/NAME.json` (or `.txt`) with an optional golden
`NAME.expected.json`, `fixtures/reject/NAME.json` with `NAME.expect.toml`, and
`fixtures/history/<upstream-version>/` holding accept fixtures for older response shapes the
contract still supports. `NAME.context.json` overrides the contract's `context.json`;
`fixtures/fixtures.toml` fixes `now` and `request_id`. A missing or empty folder, or a file
that belongs to no fixture, is a `Problem`: never a silent pass. `fixture_run.py` runs cases.
"""

from __future__ import annotations

import os
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from toolguard.errors import UsageError
from toolguard.expectation import FixtureError
from toolguard.request import make_request

Kind = Literal["accept", "reject", "history"]
CONTRACT_FILE = "contract.toml"
SETTINGS_FILE = "fixtures.toml"
RESPONSE_SUFFIXES = (".json", ".txt")
GOLDEN, EXPECT, CONTEXT = ".expected.json", ".expect.toml", ".context.json"
# What may sit beside a response in each kind of folder; anything else is a stray file.
COMPANIONS: dict[Kind, tuple[str, ...]] = {
    "accept": (GOLDEN, CONTEXT),
    "reject": (EXPECT, CONTEXT),
    "history": (GOLDEN, CONTEXT),
}
DEFAULT_REQUEST_ID = "req.fixture.0001"


@dataclass(frozen=True, slots=True)
class Case:
    """One fixture: a file of raw response bytes and what its contract must make of them."""

    contract: Path
    kind: Kind
    name: str
    response: Path
    version: str | None = None  # the upstream version, for history/<version>/ only

    @property
    def id(self) -> str:
        """`accept/NAME`, `reject/NAME` or `history/VERSION/NAME`: unique within a contract."""
        return "/".join(part for part in (self.kind, self.version, self.name) if part)

    def companion(self, suffix: str) -> Path:
        """The file beside the response that holds its golden, expectation or context."""
        return self.response.with_name(f"{self.name}{suffix}")

    @property
    def context_file(self) -> Path | None:
        """`NAME.context.json`, else the contract's `context.json`, else none (empty context)."""
        for path in (self.companion(CONTEXT), self.contract.parent / "context.json"):
            if path.is_file():
                return path
        return None


@dataclass(frozen=True, slots=True)
class Problem:
    """A fixture folder that cannot be trusted: missing, empty, or holding a stray file."""

    where: str  # relative to the fixtures folder, e.g. "reject/" or "accept/typo.expect.toml"
    message: str


@dataclass(frozen=True, slots=True)
class Settings:
    """The request every fixture of a contract is checked with, so envelopes are deterministic."""

    request_id: str = DEFAULT_REQUEST_ID
    now: str | None = None  # RFC 3339; None is the real clock (fine without freshness rules)


@dataclass(frozen=True, slots=True)
class Suite:
    """A contract and everything found in its fixtures folder."""

    contract: Path
    cases: tuple[Case, ...]
    problems: tuple[Problem, ...]
    settings: Settings | None  # None when fixtures.toml is unusable (then it is a problem)


def contract_paths(targets: Iterable[Path]) -> list[Path]:
    """Each target as given if it is not a folder, else every `contract.toml` under it.

    Hidden folders and `fixtures/` folders are not searched. A folder without any contract is
    a usage error: a test run that found nothing must not pass.
    """
    found: list[Path] = []
    for target in targets:
        if not target.is_dir():
            found.append(target)
            continue
        inside = _contracts_under(target)
        if not inside:
            raise UsageError(f"no {CONTRACT_FILE} under {target}")
        found.extend(inside)
    return list(dict.fromkeys(found))


def _contracts_under(folder: Path) -> list[Path]:
    found = []
    for parent, folders, files in os.walk(folder):
        # NOTE: pruned, not filtered afterwards: `toolguard test .` must not walk .venv or .git.
        folders[:] = [name for name in folders if not name.startswith(".") and name != "fixtures"]
        if CONTRACT_FILE in files:
            found.append(Path(parent) / CONTRACT_FILE)
    return sorted(found)


def discover(contract: Path) -> Suite:
    """Walk `fixtures/` beside `contract`: the cases, and every problem with the folders."""
    root = contract.parent / "fixtures"
    problems: list[Problem] = []
    cases: list[Case] = []
    for kind in ("accept", "reject"):
        cases.extend(_walk(contract, root / kind, kind, None, problems))
    history = root / "history"
    if history.exists():
        versions = _entries(history, problems) if history.is_dir() else []
        if not history.is_dir() or not versions:
            problems.append(Problem("history/", "holds no <upstream-version>/ folder"))
        for entry in versions:
            if entry.is_dir():
                cases.extend(_walk(contract, entry, "history", entry.name, problems))
            else:
                problems.append(Problem(f"history/{entry.name}", "is not in a version folder"))
    if root.is_dir():
        known = {"accept", "reject", "history", SETTINGS_FILE}
        problems.extend(
            Problem(path.name, "is not part of the fixtures layout")
            for path in _entries(root, [])
            if path.name not in known
        )
    settings = _settings(root / SETTINGS_FILE, problems)
    return Suite(contract, tuple(cases), tuple(problems), settings)


def _entries(folder: Path, problems: list[Problem]) -> list[Path]:
    try:
        return sorted(path for path in folder.iterdir() if not path.name.startswith("."))
    except OSError as exc:
        problems.append(Problem(f"{folder.name}/", f"cannot be read: {exc.strerror}"))
        return []


def _walk(
    contract: Path, folder: Path, kind: Kind, version: str | None, problems: list[Problem]
) -> list[Case]:
    where = f"{kind}/{version}/" if version else f"{kind}/"
    if not folder.is_dir():
        problems.append(Problem(where, "is missing"))
        return []
    entries = _entries(folder, problems)
    names = {path.name for path in entries}
    responses = [p for p in entries if p.suffix in RESPONSE_SUFFIXES and _is_response(p.name)]
    stems = [path.stem for path in responses]
    allowed = {f"{stem}{suffix}" for stem in stems for suffix in COMPANIONS[kind]}
    allowed.update(path.name for path in responses)
    problems.extend(
        Problem(f"{where}{name}", "belongs to no fixture") for name in sorted(names - allowed)
    )
    problems.extend(
        Problem(f"{where}{stem}", "has more than one response file")
        for stem in sorted({stem for stem in stems if stems.count(stem) > 1})
    )
    if not responses:
        problems.append(Problem(where, "holds no fixture"))
    return [Case(contract, kind, path.stem, path, version) for path in responses]


def _is_response(name: str) -> bool:
    return not name.endswith((GOLDEN, CONTEXT))


def _settings(path: Path, problems: list[Problem]) -> Settings | None:
    if not path.exists():
        return Settings()
    try:
        with path.open("rb") as handle:
            table = tomllib.load(handle)
        unknown = sorted(set(table) - {"now", "request_id"})
        if unknown:
            raise FixtureError(f"unknown keys {unknown}; allowed: now, request_id")
        if not all(isinstance(value, str) for value in table.values()):
            raise FixtureError("now and request_id must be strings")
        settings = Settings(**table)
        make_request(settings.request_id, None, settings.now)
    except (OSError, tomllib.TOMLDecodeError, FixtureError, UsageError) as exc:
        problems.append(Problem(SETTINGS_FILE, str(exc)))
        return None
    return settings
