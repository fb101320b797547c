"""The official JSON-Schema-Test-Suite (draft2020-12, required tests) run through `compile_schema`.

A group whose schema is refused with `SchemaError` is acceptable: that is the fail-closed answer.
A group that compiles must agree with the suite on every case, and across the whole suite no
instance the suite calls invalid may ever be accepted.
"""

from __future__ import annotations

import urllib.request

import pytest

from toolguard.errors import SchemaError
from toolguard.schema import compile_schema

from .suite import Folder, Group, compiler, group_params, mismatches, suite_root, tally

# NOTE: only the top level: optional/ holds behaviour the spec does not require.
FOLDER = Folder("draft2020-12")
_draft_dir = FOLDER.path
_suite_files = FOLDER.files
GROUPS = FOLDER.groups()


@pytest.fixture(autouse=True)
def _no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if anything tries to fetch a URL (remote refs must be refused)."""

    def _urlopen(url: object, *args: object, **kwargs: object) -> None:
        pytest.fail(f"network access attempted: {url!r}")

    monkeypatch.setattr(urllib.request, "urlopen", _urlopen)


# The suite's remote documents, served through the registry: the network is never used.
_REMOTES_DIR = suite_root() / "remotes"
REMOTES = {"http://localhost:1234/": str(_REMOTES_DIR)}
_compiled = compiler(formats=False, refs=REMOTES)


def test_suite_folder_is_not_empty() -> None:
    """The suite holds draft2020-12 test files and the remotes/ the refRemote groups resolve."""
    assert _suite_files(), f"{_draft_dir()} holds no *.json test files"
    assert _REMOTES_DIR.is_dir(), f"no remotes/ folder at {_REMOTES_DIR}"


@pytest.mark.parametrize("group", group_params(GROUPS))
def test_compiled_group_agrees_with_suite(group: Group) -> None:
    """A group's schema is either refused, or its validator agrees with every suite case."""
    validator = _compiled(group)
    if validator is None:
        return  # refused: the fail-closed answer is acceptable
    found = mismatches(group, validator)
    assert not found, "\n".join(found)


_REMOTE = [pytest.param(group, id=group.id) for group in GROUPS if group.file == "refRemote"]


@pytest.mark.parametrize("group", _REMOTE)
def test_remote_reference_group_is_refused_without_a_registry(group: Group) -> None:
    """Without a registry every refRemote group is refused; nothing is fetched (`_no_network`)."""
    with pytest.raises(SchemaError):
        compile_schema(group.schema, formats=False)


def test_no_invalid_instance_is_ever_accepted() -> None:
    """Across the whole suite, no instance the suite calls invalid passes a compiled validator."""
    counts = tally(GROUPS, _compiled, show_got=True)
    # NOTE: the counts are the point of this test (shown with -rP, or on failure).
    print(counts.summary())
    assert not counts.false_accepts, "false accepts:\n" + "\n".join(counts.false_accepts)
    # Done means every required case passes: no group refused, no case failed.
    assert counts.refused == 0
    assert counts.failed == 0


OPTIONAL = Folder("optional", ("optional",))
_OPTIONAL_GROUPS = OPTIONAL.groups()


@pytest.mark.parametrize("group", group_params(_OPTIONAL_GROUPS))
def test_optional_group_is_refused_or_agrees(group: Group) -> None:
    """An optional/ group (bignum, non-BMP patterns, dialects...) is refused or fully agrees."""
    validator = _compiled(group)
    if validator is None:
        return  # refused: e.g. draft 7 `dependencies`, unknown keywords, another dialect
    found = mismatches(group, validator)
    assert not found, "\n".join(found)


_collecting = compiler(formats=False, refs=REMOTES, collect=True)


def test_the_collecting_variant_agrees_with_the_suite_on_every_case() -> None:
    """`collect=True` lists errors exactly for the instances the suite calls invalid."""
    disagreements = []
    for group in GROUPS:
        validator = _collecting(group)
        if validator is None:
            continue  # refused alike: the variant is compiled from the same checked schema
        for case in group.tests:
            errors = validator.errors(case["data"])
            if bool(errors) is case["valid"]:
                disagreements.append(f"{group.id} / {case['description']}: {len(errors)} errors")
    assert not disagreements, "\n".join(disagreements)
