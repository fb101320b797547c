"""Semantic Versioning 2.0.0: a contract's `version` -> its parts, and their precedence.

The one definition `lint` (TG016 wants a semantic version) and `diff` (the bump a change
needs) share, so that what one accepts the other compares. Precedence is SemVer §11: the
core numerically, a pre-release below its release, pre-release identifiers one by one
(numbers numerically, below words, words in ASCII order, fewer below more); build metadata
is ignored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# NOTE: SemVer's own grammar (semver.org), so `01`, `1.0`, `1.0.0-` and `1.0.0-01` are not one.
_IDENTIFIER = r"(?:0|[1-9][0-9]*|[0-9]*[A-Za-z-][0-9A-Za-z-]*)"
_SEMVER = re.compile(
    r"(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)\.(0|[1-9][0-9]*)"
    rf"(?:-({_IDENTIFIER}(?:\.{_IDENTIFIER})*))?"
    r"(?:\+[0-9A-Za-z-]+(?:\.[0-9A-Za-z-]+)*)?"
)


@dataclass(frozen=True, slots=True)
class SemVer:
    """A version's core (`MAJOR.MINOR.PATCH`) and pre-release identifiers (build dropped)."""

    core: tuple[int, int, int]
    pre_release: tuple[str, ...] = ()

    @property
    def precedence(self) -> tuple[object, ...]:
        """A key that orders versions by SemVer precedence (equal: the same precedence)."""
        if not self.pre_release:
            return (*self.core, (1,))
        identifiers = tuple(
            (0, int(item), "") if item.isdigit() else (1, 0, item) for item in self.pre_release
        )
        return (*self.core, (0, identifiers))


def parse_semver(version: str) -> SemVer | None:
    """`version` as a semantic version, or None if it is not one."""
    match = _SEMVER.fullmatch(version)
    if match is None:
        return None
    major, minor, patch, pre_release = match.groups()
    identifiers = tuple(pre_release.split(".")) if pre_release else ()
    return SemVer((int(major), int(minor), int(patch)), identifiers)
