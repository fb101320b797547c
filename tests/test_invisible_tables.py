"""The generated Default_Ignorable and Emoji tables: well formed and current with the UCD.

The UCD files are looked for in `TOOLGUARD_UCD_DIR`, default `/usr/share/unicode` (Debian's and
Ubuntu's `unicode-data` package, which `.ci/run` installs). Without them, the tests that read
them are visibly skipped.
"""

from __future__ import annotations

import itertools
import os
from pathlib import Path

import pytest
from unicode_tables import EMOJI_FILE, IGNORABLE_FILE, generate_invisible

from toolguard import invisible_tables
from toolguard.invisible_tables import DEFAULT_IGNORABLE, EMOJI, UNICODE_VERSION

_UCD = Path(os.environ.get("TOOLGUARD_UCD_DIR", "/usr/share/unicode"))
needs_ucd = pytest.mark.skipif(
    not all((_UCD / name).is_file() for name in (IGNORABLE_FILE, EMOJI_FILE)),
    reason=f"no Unicode Character Database at {_UCD} (apt-get install unicode-data, "
    "or set TOOLGUARD_UCD_DIR)",
)


@needs_ucd
def test_committed_tables_are_what_the_ucd_generates() -> None:
    """Regenerating from the UCD gives the committed module byte for byte."""
    committed = Path(invisible_tables.__file__).read_text(encoding="utf-8")
    assert generate_invisible(_UCD) == committed, "run: python tests/unicode_tables.py"


@pytest.mark.parametrize("table", [DEFAULT_IGNORABLE, EMOJI], ids=["DEFAULT_IGNORABLE", "EMOJI"])
def test_table_ranges_are_sorted_disjoint_and_merged(table: tuple[tuple[int, int], ...]) -> None:
    """Ascending, non-overlapping, non-adjacent ranges within the code space."""
    assert table
    for (_, last), (first, _) in itertools.pairwise(table):
        assert last + 1 < first
    assert all(0 <= first <= last <= 0x10FFFF for first, last in table)


def test_tables_name_their_unicode_version() -> None:
    """The module says which version of the UCD it was generated from."""
    assert f"Unicode Character Database {UNICODE_VERSION}" in (invisible_tables.__doc__ or "")


def test_tables_hold_what_the_check_relies_on() -> None:
    """Variation selectors and the tag block are ignorable; the smiling face is an emoji."""
    ignorable = {code for first, last in DEFAULT_IGNORABLE for code in range(first, last + 1)}
    emoji = {code for first, last in EMOJI for code in range(first, last + 1)}
    assert {0xFE00, 0xFE0F, 0xE0041, 0xE0100, 0x200D} <= ignorable
    assert {0x263A, 0x2764, 0x0031, 0x1F600, 0x1F3FD} <= emoji
