"""The version rule: what a set of changes requires of the new contract's `version`.

A breaking change needs a new major version, an agent-facing one at least a new minor
version, each judged on the core (`MAJOR.MINOR.PATCH`) of two semantic versions
(`toolguard/semver.py`, the definition lint's TG016 uses too); a new version of lower
precedence never passes, nor one of equal precedence where a bump is needed (`1.0.0` ->
`1.0.0+build.2` or `1.0.0-rc.1`). A pre-release may change anything on the way to its own
release or a later pre-release of it (`2.0.0-rc.1` -> `2.0.0`: SemVer §9). With versions
that are not both semantic, only that the version changed is checked. Compatible changes
need no new version.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from toolguard.diff.change import Change
from toolguard.semver import parse_semver

Bump = Literal["major", "minor", "none"]


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
    bump: Bump = "major" if breaking else "minor" if facing else "none"
    before, after = parse_semver(old), parse_semver(new)
    if before is not None and after is not None and after.precedence < before.precedence:
        return Verdict(False, bump, f"{old} -> {new} goes back: a new version is never lower")
    if bump == "none":
        if not changes:
            return Verdict(True, "none", "no changes")
        return Verdict(True, "none", "compatible changes only: no new version needed")
    number = breaking or facing
    why = _count(number, "breaking change" if breaking else "agent-facing change")
    if old == new:
        return Verdict(
            False, bump, f"{why} but the version is still {old}: bump the {bump} version"
        )
    if before is None or after is None:
        message = f"{why}; {old} -> {new} (not both semantic versions: only checked it changed)"
        return Verdict(True, bump, message)
    later = after.precedence > before.precedence  # build metadata alone is no step
    if before.pre_release and after.core == before.core and later:
        # SemVer §9: a pre-release promises no compatibility; it leads to its release
        message = f"{why}; {old} -> {new}: a pre-release may change on the way to its release"
        return Verdict(True, bump, message)
    major, minor, _ = before.core
    enough = after.core[0] > major if bump == "major" else after.core[:2] > (major, minor)
    if not enough:
        least = f"{major + 1}.0.0" if bump == "major" else f"{major}.{minor + 1}.0"
        verb = "needs" if number == 1 else "need"
        message = (
            f"{why} {verb} a {bump} version bump: {old} -> {new} is not one (at least {least})"
        )
        return Verdict(False, bump, message)
    return Verdict(True, bump, f"{why}; {old} -> {new} is a {bump} version bump")


def first_version(version: str, since: str) -> Verdict:
    """A contract that did not exist at `since` has no earlier version to bump from."""
    return Verdict(True, "none", f"new contract (not in {since}): {version} needs no bump")


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}{'' if number == 1 else 's'}"
