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
from toolguard.invisible import SPACES, invisible_at
from toolguard.invisible_tables import DEFAULT_IGNORABLE, EMOJI, UNICODE_VERSION

_UCD = Path(os.environ.get("TOOLGUARD_UCD_DIR", "/usr/share/unicode"))
_PROPERTY_FILES = ("PropList.txt", "extracted/DerivedGeneralCategory.txt")
needs_ucd = pytest.mark.skipif(
    not all((_UCD / name).is_file() for name in (IGNORABLE_FILE, EMOJI_FILE, *_PROPERTY_FILES)),
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


# What the UCD says draws nothing, or reorders or breaks text unseen: (file, property or
# General_Category value), each code point of which is refused alone, wherever the generated
# tables or `unicodedata` come from. White space is refused but for the visible spaces kept
# (U+0020 and `SPACES`) and, in display text, tab and newline.
HIDDEN_BY_THE_UCD = [
    (IGNORABLE_FILE, "Default_Ignorable_Code_Point"),
    ("PropList.txt", "Bidi_Control"),
    ("PropList.txt", "Other_Default_Ignorable_Code_Point"),
    ("PropList.txt", "Variation_Selector"),
    ("PropList.txt", "Prepended_Concatenation_Mark"),
    ("PropList.txt", "Noncharacter_Code_Point"),
    ("PropList.txt", "Pattern_White_Space"),
    ("PropList.txt", "White_Space"),
    *(("extracted/DerivedGeneralCategory.txt", gc) for gc in ("Cc", "Cf", "Co", "Cs", "Zl", "Zp")),
]
# Named in the trust review: tags, Hangul fillers, MONGOLIAN VOWEL SEPARATOR, braille blank,
# separators, BOM, interlinear annotations, CGJ, ALM, Khmer inherent vowels, bidi isolates.
NAMED = (
    *range(0xE0000, 0xE0080), 0x115F, 0x1160, 0x3164, 0xFFA0, 0x180E, 0x2800, 0x2028, 0x2029,
    0xFEFF, 0xFFF9, 0xFFFA, 0xFFFB, 0x034F, 0x061C, 0x17B4, 0x17B5, *range(0x2066, 0x206A),
)  # fmt: skip


def _property(file: str, value: str) -> set[int]:
    """The code points the UCD file lists with `value`."""
    codes = set()
    for line in (_UCD / file).read_text(encoding="utf-8").splitlines():
        data = line.partition("#")[0]
        if ";" in data and data.split(";")[1].strip() == value:
            first, _, last = data.split(";")[0].strip().partition("..")
            codes.update(range(int(first, 16), int(last or first, 16) + 1))
    return codes


@needs_ucd
@pytest.mark.parametrize(("file", "value"), HIDDEN_BY_THE_UCD, ids=lambda item: item)
@pytest.mark.parametrize("display", [False, True], ids=["field", "display"])
def test_every_code_point_the_ucd_calls_hidden_is_refused(
    file: str, value: str, display: bool
) -> None:
    """Read from the UCD files, not from the tables: a property the generator stops reading,
    or a version that moves a code point, cannot open a gap unseen."""
    kept = {0x20, *map(ord, SPACES)} | ({0x09, 0x0A} if display else set())
    codes = _property(file, value) - kept
    assert codes, f"{value} not found in {file}"
    passed = [
        f"U+{code:04X}"
        for code in sorted(codes)
        if invisible_at(chr(code), display=display) is None
    ]
    assert passed[:20] == []


@pytest.mark.parametrize("code", NAMED, ids=lambda code: f"U+{code:04X}")
def test_each_hidden_character_the_review_named_is_refused(code: int) -> None:
    """Between two letters, in a field and in display text."""
    assert invisible_at(f"a{chr(code)}b") == 1
    assert invisible_at(f"a{chr(code)}b", display=True) == 1
