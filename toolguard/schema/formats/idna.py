"""IDNA2008 labels (RFC 5890-5893), checked with `unicodedata` and generated Unicode tables.

A U-label is valid only if it is in NFC, has no hyphen at either end nor in positions 3 and 4,
does not begin with a combining mark, uses only PVALID code points (RFC 5892's derivation, run
on `unicodedata`) and meets every contextual rule it invokes (the Joining_Type and Script data
the standard library lacks come from `unicode_tables`, generated from the UCD). An A-label is
valid only if its Punycode decodes to such a U-label and re-encodes to it. In a domain holding
a right-to-left character, every label must satisfy the Bidi rule (RFC 5893).
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Iterable, Sequence

from toolguard.schema.formats.unicode_tables import JOINING_TYPE, SCRIPT

_PREFIX = "xn--"
# LDH labels (RFC 5890 2.3.1, RFC 1123 2.1): letters, digits and inner hyphens, 1-63 octets.
LDH_LABEL = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?")
# RFC 5892 section 2.6 (Exceptions) and the property groups of section 2.
_EXCEPTION_PVALID = frozenset("\u00df\u03c2\u06fd\u06fe\u0f0b\u3007")
_EXCEPTION_DISALLOWED = frozenset("\u0640\u07fa\u302e\u302f\u3031\u3032\u3033\u3034\u3035\u303b")
_CONTEXTO = frozenset("\u00b7\u0375\u05f3\u05f4\u30fb") | frozenset(
    chr(cp) for cp in [*range(0x0660, 0x066A), *range(0x06F0, 0x06FA)]
)
_ZWNJ, _ZWJ = "\u200c", "\u200d"
_LETTER_DIGITS = frozenset({"Ll", "Lu", "Lo", "Nd", "Lm", "Mn", "Mc"})
# Default_Ignorable_Code_Point (DerivedCoreProperties.txt) and IgnorableBlocks (section 2.4).
_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5),
    (0x180B, 0x180F), (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164),
    (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF), (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3),
    (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
    (0x20D0, 0x20FF), (0x1D100, 0x1D1FF), (0x1D200, 0x1D24F),
)  # fmt: skip
# OldHangulJamo (section 2.9): Hangul_Syllable_Type L, V or T.
_OLD_HANGUL_JAMO = ((0x1100, 0x11FF), (0xA960, 0xA97C), (0xD7B0, 0xD7C6), (0xD7CB, 0xD7FB))
_VIRAMA = 9  # Canonical_Combining_Class
_RTL = frozenset({"R", "AL", "AN"})


def to_u_label(a_label: str) -> str | None:
    """The U-label an `xn--` label encodes, or None if it is not an A-label (RFC 5891 5.3).

    DNS labels match without regard to ASCII case (RFC 4343), so an upper-case `XN--` label is
    read as its lower-case form: Punycode's case annotations (RFC 3492 appendix A) are ignored.
    """
    encoded = a_label[4:].lower()
    try:
        u_label = encoded.encode("ascii").decode("punycode")
        canonical = u_label.encode("punycode").decode("ascii")
    except (UnicodeError, ValueError, IndexError, OverflowError):
        return None
    if canonical != encoded or u_label.isascii():
        return None  # not the one encoding of a U-label (or no U-label at all)
    return u_label if is_u_label(u_label) else None


def to_a_label(u_label: str) -> str:
    """The A-label of a valid U-label: what its length is measured in (RFC 5890 2.3.2.1)."""
    return _PREFIX + u_label.encode("punycode").decode("ascii")


def label_form(label: str) -> str | None:
    """The Unicode form of a valid `idn-hostname` label (an RFC 1123 label or a U-label), else None.

    JSON Schema's `idn-hostname` is "either RFC 1123 as for hostname, or" an RFC 5890 IDN
    (Validation 2020-12 section 7.3.3), so an ASCII label is held to `hostname`'s rule: LDH, and
    an `xn--` label must be an A-label. Other `--` in positions 3 and 4 (R-LDH, RFC 5890 2.3.1:
    `ab--cd`) is an RFC 1123 label; RFC 5891 4.2.3.1 refuses it in U-labels only. A non-ASCII
    label must be a U-label, so upper-case ASCII in it is DISALLOWED (RFC 5892: it is not stable
    under case folding); mapping it to lower case is a lookup-time convenience (RFC 5895).
    """
    if not label.isascii():
        return label if is_u_label(label) else None
    if LDH_LABEL.fullmatch(label) is None:
        return None
    return to_u_label(label) if label[:4].lower() == _PREFIX else label


def is_a_label_domain(labels: Sequence[str]) -> bool:
    """Whether every `xn--` label among these LDH labels is a valid A-label (RFC 5891 5.4)."""
    u_labels = [to_u_label(label) if label[:4].lower() == _PREFIX else label for label in labels]
    decoded = [u_label for u_label in u_labels if u_label is not None]
    return len(decoded) == len(u_labels) and satisfies_bidi(decoded)


def satisfies_bidi(labels: Sequence[str]) -> bool:
    """RFC 5893 section 1.4: in a domain holding an RTL character, every label obeys the rule."""
    if any(unicodedata.bidirectional(char) in _RTL for label in labels for char in label):
        return all(_bidi_rule(label) for label in labels)
    return True


def is_u_label(label: str) -> bool:
    """RFC 5891 section 4.2.3 (hyphens, NFC, leading mark) and 4.2.2 (code points, contexts)."""
    if not label or unicodedata.normalize("NFC", label) != label or label[2:4] == "--":
        return False
    if label.startswith("-") or label.endswith("-"):
        return False
    if unicodedata.category(label[0]).startswith("M"):
        return False
    for i, char in enumerate(label):
        if char in (_ZWNJ, _ZWJ):
            if not _contextj(label, i):
                return False
        elif char in _CONTEXTO:
            if not _contexto(label, i):
                return False
        elif not _pvalid(char):
            return False
    return True


def _pvalid(char: str) -> bool:
    """RFC 5892 section 3 derivation (CONTEXTJ and CONTEXTO are handled by the caller)."""
    if char in _EXCEPTION_PVALID:
        return True
    cp = ord(char)
    if char in _EXCEPTION_DISALLOWED or unicodedata.category(char) == "Cn":
        return False  # DISALLOWED, or UNASSIGNED in this Python's Unicode version
    if char in "abcdefghijklmnopqrstuvwxyz0123456789-":
        return True
    nfkc = unicodedata.normalize("NFKC", char)
    if unicodedata.normalize("NFKC", nfkc.casefold()) != char:
        return False  # Unstable
    if _within(cp, _IGNORABLE) or _within(cp, _OLD_HANGUL_JAMO):
        return False
    return unicodedata.category(char) in _LETTER_DIGITS


def _contextj(label: str, i: int) -> bool:
    """RFC 5892 A.1 (ZWNJ) and A.2 (ZWJ): after a virama, or ZWNJ inside a joining context.

    A.1's regular expression: a Left- or Dual-Joining character, then ZWNJ, then a Right- or
    Dual-Joining one, with any Transparent characters in between.
    """
    if i > 0 and unicodedata.combining(label[i - 1]) == _VIRAMA:
        return True
    if label[i] != _ZWNJ:
        return False
    return _joins(reversed(label[:i]), "LD") and _joins(label[i + 1 :], "RD")


def _joins(chars: Iterable[str], wanted: str) -> bool:
    """Whether the first character of `chars` that is not Transparent has a `wanted` type."""
    for char in chars:
        joining_type = _property(char, JOINING_TYPE)
        if joining_type != "T":
            return joining_type is not None and joining_type in wanted
    return False


def _contexto(label: str, i: int) -> bool:
    """RFC 5892 A.3-A.9."""
    char = label[i]
    before = label[i - 1] if i > 0 else ""
    after = label[i + 1] if i + 1 < len(label) else ""
    if char == "\u00b7":
        return before == "l" and after == "l"
    if char == "\u0375":
        return after != "" and _property(after, SCRIPT) == "Greek"
    if char in "\u05f3\u05f4":
        return before != "" and _property(before, SCRIPT) == "Hebrew"
    if char == "\u30fb":
        return any(_property(other, SCRIPT) in {"Hiragana", "Katakana", "Han"} for other in label)
    arabic_indic = any("\u0660" <= other <= "\u0669" for other in label)
    extended = any("\u06f0" <= other <= "\u06f9" for other in label)
    return not (arabic_indic and extended)


def _bidi_rule(label: str) -> bool:
    """RFC 5893 section 2, conditions 1-6."""
    classes = [unicodedata.bidirectional(char) for char in label]
    trimmed = list(classes)
    while trimmed and trimmed[-1] == "NSM":
        trimmed.pop()
    if not trimmed:
        return False
    if classes[0] in {"R", "AL"}:
        allowed = {"R", "AL", "AN", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"}
        return (
            set(classes) <= allowed
            and trimmed[-1] in {"R", "AL", "EN", "AN"}
            and not {"EN", "AN"} <= set(classes)
        )
    if classes[0] == "L":
        allowed = {"L", "EN", "ES", "CS", "ET", "ON", "BN", "NSM"}
        return set(classes) <= allowed and trimmed[-1] in {"L", "EN"}
    return False


def _property(char: str, table: Sequence[tuple[int, int, str]]) -> str | None:
    """The value `table` gives the character, or None if it lies in none of its ranges."""
    cp = ord(char)
    index = bisect_right(table, cp, key=lambda row: row[0]) - 1
    return table[index][2] if index >= 0 and cp <= table[index][1] else None


def _within(cp: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(low <= cp <= high for low, high in ranges)
