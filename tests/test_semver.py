"""Semantic versions: SemVer 2.0.0's grammar, and its precedence (§11)."""

from __future__ import annotations

import pytest

from toolguard.semver import parse_semver

# SemVer §11.4's own example, in ascending precedence, then releases above.
ASCENDING = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.1.0",
    "2.0.0",
    "10.0.0",
]


def test_precedence_follows_semver_section_11() -> None:
    """Each version in the spec's list ranks above the one before it."""
    keys = []
    for version in ASCENDING:
        parsed = parse_semver(version)
        assert parsed is not None, version
        keys.append(parsed.precedence)
    assert keys == sorted(keys)
    assert len(set(keys)) == len(keys)


def test_build_metadata_does_not_change_precedence() -> None:
    """`1.0.0+build.2` and `1.0.0` are the same version for ordering."""
    plain, built = parse_semver("1.0.0"), parse_semver("1.0.0+build.2")
    assert plain is not None
    assert built is not None
    assert plain.precedence == built.precedence
    assert built.core == (1, 0, 0)


@pytest.mark.parametrize(
    "version", ["1.0", "01.0.0", "1.0.0-", "1.0.0-rc.01", "1.0.0+", "v1.0.0", "1.0.0-rc..1", "x"]
)
def test_what_is_not_a_semantic_version(version: str) -> None:
    """Leading zeros, empty identifiers, prefixes and short cores are refused."""
    assert parse_semver(version) is None


def test_parts() -> None:
    """The core as numbers, the pre-release identifiers as written."""
    version = parse_semver("2.10.3-rc.1+sha.abc")
    assert version is not None
    assert (version.core, version.pre_release) == ((2, 10, 3), ("rc", "1"))
