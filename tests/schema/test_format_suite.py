"""The JSON-Schema-Test-Suite `optional/format` tests (draft2020-12), with formats asserted.

A group whose schema is refused (`SchemaError`: a format toolguard cannot check faithfully) is
the fail-closed answer. A group that compiles must agree with the suite on every case, and no
instance the suite calls invalid may ever be accepted.
"""

from __future__ import annotations

import pytest

from toolguard.schema.formats import FORMAT_CHECKERS

from .suite import Folder, Group, compiler, group_params, mismatches, tally

# Formats whose suite files must compile: every one toolguard has a parser for.
# (`ecmascript-regex.json` exercises the `regex` format.)
_IMPLEMENTED = sorted(FORMAT_CHECKERS)
# Suite cases toolguard is known to reject although the suite calls them valid: none left.
_KNOWN_FALSE_REJECTS: frozenset[str] = frozenset()

FOLDER = Folder("optional/format", ("optional", "format"))
_format_dir = FOLDER.path
_suite_files = FOLDER.files
GROUPS = FOLDER.groups()
# Formats asserted, unlike the required suite.
_compiled = compiler(formats=True)


def test_format_suite_folder_is_not_empty() -> None:
    """The optional/format folder holds test files (a missing or empty folder fails)."""
    assert _suite_files(), f"{_format_dir()} holds no *.json test files"


@pytest.mark.parametrize("group", group_params(GROUPS))
def test_compiled_group_agrees_with_suite(group: Group) -> None:
    """A group is refused, or agrees with every case but the documented fail-closed rejects."""
    validator = _compiled(group)
    if validator is None:
        return  # refused: the fail-closed answer is acceptable
    found = mismatches(group, validator, _KNOWN_FALSE_REJECTS)
    assert not found, "\n".join(found)


_FILES_BY_FORMAT = {fmt: "ecmascript-regex" if fmt == "regex" else fmt for fmt in _IMPLEMENTED}


@pytest.mark.parametrize("fmt", _IMPLEMENTED)
def test_implemented_format_is_not_refused(fmt: str) -> None:
    """Every suite group for a format toolguard parses compiles: none is refused."""
    files = {fmt, _FILES_BY_FORMAT[fmt]}
    groups = [group for group in GROUPS if group.file in files]
    assert groups, f"the suite has no groups for {fmt!r}"
    refused = [group.id for group in groups if _compiled(group) is None]
    assert not refused, f"refused: {refused}"


def test_no_invalid_format_instance_is_ever_accepted() -> None:
    """Across optional/format, no instance the suite calls invalid passes a compiled validator."""
    counts = tally(GROUPS, _compiled)
    # NOTE: the counts are the point of this test (shown with -rP, or on failure).
    print(counts.summary())
    assert not counts.false_accepts, "false accepts:\n" + "\n".join(counts.false_accepts)
    # Equal, not a subset: a fixed case must leave the list, a new one must be reviewed into it.
    assert set(counts.false_rejects) == _KNOWN_FALSE_REJECTS, "\n".join(counts.false_rejects)
    # Only unknown formats are refused: toolguard cannot assert what it does not know.
    assert {group.file for group in GROUPS if _compiled(group) is None} == {"unknown"}
