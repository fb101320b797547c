"""The generated Unicode tables: well formed, current with the UCD, consistent with `unicodedata`.

The UCD files are looked for in `TOOLGUARD_UCD_DIR`, default `/usr/share/unicode` (Debian's and
Ubuntu's `unicode-data` package). Without them, the tests that read them are visibly skipped.
"""

from __future__ import annotations

import itertools
import os
import unicodedata
from pathlib import Path

import pytest
from unicode_tables import JOINING_FILE, SCRIPTS_FILE, _ranges, generate, generate_categories

from toolguard import invisible_tables
from toolguard.schema import category_table, charsets
from toolguard.schema.formats import unicode_tables
from toolguard.schema.formats.unicode_tables import JOINING_TYPE, SCRIPT, UNICODE_VERSION

_UCD = Path(os.environ.get("TOOLGUARD_UCD_DIR", "/usr/share/unicode"))
_FILES = (
    JOINING_FILE,
    SCRIPTS_FILE,
    "ArabicShaping.txt",
    "extracted/DerivedGeneralCategory.txt",
    "DerivedCoreProperties.txt",
)
_HAVE_UCD = all((_UCD / name).is_file() for name in _FILES)
needs_ucd = pytest.mark.skipif(
    not _HAVE_UCD,
    reason=f"no Unicode Character Database at {_UCD} (apt-get install unicode-data, "
    "or set TOOLGUARD_UCD_DIR)",
)


@needs_ucd
def test_committed_tables_are_what_the_ucd_generates() -> None:
    """Regenerating from the UCD gives the committed module byte for byte."""
    committed = Path(unicode_tables.__file__).read_text(encoding="utf-8")
    assert generate(_UCD) == committed, "run: python tests/unicode_tables.py"


@needs_ucd
def test_committed_category_table_is_what_the_ucd_generates() -> None:
    """The General_Category table regenerated from the UCD is the committed module."""
    committed = Path(category_table.__file__).read_text(encoding="utf-8")
    assert generate_categories(_UCD) == committed, "run: python tests/unicode_tables.py"


@needs_ucd
@pytest.mark.parametrize("start", [True, False], ids=["ID_Start", "ID_Continue"])
def test_identifier_ranges_are_the_ucds_derived_property(start: bool) -> None:
    """Categories plus changes give exactly DerivedCoreProperties.txt's ID_Start/ID_Continue."""
    name = "ID_Start" if start else "ID_Continue"
    _, rows = _ranges(_UCD / "DerivedCoreProperties.txt", (name,))
    derived = charsets.union([(first, last) for first, last, _ in rows])
    assert charsets.identifier_ranges(start=start) == derived


def test_every_generated_table_is_of_one_unicode_version() -> None:
    """Patterns, IDNA and the invisible-character checks read one version of the UCD."""
    assert category_table.UNICODE_VERSION == UNICODE_VERSION == invisible_tables.UNICODE_VERSION


@pytest.mark.parametrize(
    "table",
    [JOINING_TYPE, SCRIPT, category_table.GENERAL_CATEGORY],
    ids=["JOINING_TYPE", "SCRIPT", "GENERAL_CATEGORY"],
)
def test_table_ranges_are_sorted_and_disjoint(table: tuple[tuple[int, int, str], ...]) -> None:
    """A bisect lookup needs ascending, non-overlapping ranges within the code space."""
    assert table
    for (_, last, _), (first, _, _) in itertools.pairwise(table):
        assert last < first
    assert all(0 <= first <= last <= 0x10FFFF for first, last, _ in table)


def test_tables_name_their_unicode_version() -> None:
    """The module says which version of the UCD it was generated from."""
    assert f"Unicode Character Database {UNICODE_VERSION}" in (unicode_tables.__doc__ or "")


@needs_ucd
def test_joining_types_agree_with_unicodedata_categories() -> None:
    """For the code points `unicodedata` knows, the tables match ArabicShaping.txt's own rule.

    Code points it does not list are Transparent exactly when their General_Category is Mn, Me
    or Cf. Checking that rule with `unicodedata`'s categories shows the newer tables say nothing
    about an older, assigned code point that its own Unicode version would contradict.
    """
    listed: dict[int, str] = {}
    for line in (_UCD / "ArabicShaping.txt").read_text(encoding="utf-8").splitlines():
        fields = line.partition("#")[0].split(";")
        if len(fields) == 4:
            listed[int(fields[0], 16)] = fields[2].strip()
    table = {cp: value for first, last, value in JOINING_TYPE for cp in range(first, last + 1)}
    unknown = _unassigned_in_ucd()
    wrong = []
    for cp in range(0x110000):
        category = unicodedata.category(chr(cp))
        if category == "Cn" or cp in unknown:
            continue  # unassigned in one of the two versions: see the module's NOTE
        expected = listed.get(cp, "T" if category in {"Mn", "Me", "Cf"} else "U")
        if table.get(cp, "U") != (expected if expected in "LDRT" else "U"):
            wrong.append(f"U+{cp:04X} {category}: table {table.get(cp)}, expected {expected}")
    assert not wrong, "\n".join(wrong[:20])


def _unassigned_in_ucd() -> set[int]:
    """The code points General_Category Cn in the UCD files (newer ones than the tables know)."""
    unassigned: set[int] = set()
    path = _UCD / "extracted/DerivedGeneralCategory.txt"
    for line in path.read_text(encoding="utf-8").splitlines():
        points, _, category = line.partition("#")[0].partition(";")
        if category.strip() == "Cn":
            first, _, last = points.strip().partition("..")
            unassigned.update(range(int(first, 16), int(last or first, 16) + 1))
    return unassigned
