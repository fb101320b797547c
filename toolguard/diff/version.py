"""The version rule: what a set of changes requires of the new contract's `version`.

A breaking change needs a new major version, an agent-facing one at least a new minor
version; with versions that are not both `X.Y.Z`, only that the version changed is checked.
Compatible changes need no new version.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from toolguard.diff.change import Change

Bump = Literal["major", "minor", "none"]
_SEMVER = re.compile(r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)")


@dataclass(frozen=True, slots=True)
class Verdict:
    """Whether the new version is enough for the changes, the bump they need, and why."""

    ok: bool
    required_bump: Bump
    message: str


def verdict(old: str, new: str, changes: Sequence[Change]) -> Verdict:
    """Judge the version change `old` -> `new` against `changes`."""
    breaking = sum(item.breaking for item in changes)
    facing = sum(item.agent != "none" for item in changes)
    if not breaking and not facing:
        if not changes:
            return Verdict(True, "none", "no changes")
        return Verdict(True, "none", "compatible changes only: no new version needed")
    bump: Bump = "major" if breaking else "minor"
    number = breaking or facing
    why = _count(number, "breaking change" if breaking else "agent-facing change")
    if old == new:
        return Verdict(
            False, bump, f"{why} but the version is still {old}: bump the {bump} version"
        )
    before, after = _semver(old), _semver(new)
    if before is None or after is None:
        message = f"{why}; {old} -> {new} (not both X.Y.Z: only checked that it changed)"
        return Verdict(True, bump, message)
    enough = after[0] > before[0] if bump == "major" else after[:2] > before[:2]
    if not enough:
        least = f"{before[0] + 1}.0.0" if bump == "major" else f"{before[0]}.{before[1] + 1}.0"
        verb = "needs" if number == 1 else "need"
        message = (
            f"{why} {verb} a {bump} version bump: {old} -> {new} is not one (at least {least})"
        )
        return Verdict(False, bump, message)
    return Verdict(True, bump, f"{why}; {old} -> {new} is a {bump} version bump")


def first_version(version: str, since: str) -> Verdict:
    """A contract that did not exist at `since` has no earlier version to bump from."""
    return Verdict(True, "none", f"new contract (not in {since}): {version} needs no bump")


def _semver(version: str) -> tuple[int, int, int] | None:
    match = _SEMVER.fullmatch(version)
    if match is None:
        return None
    major, minor, patch = (int(part) for part in match.groups())
    return major, minor, patch


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
