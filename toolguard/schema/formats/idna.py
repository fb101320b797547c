"""IDNA2008 A-labels (RFC 5890-5893), checked with the standard library's Unicode data only.

An `xn--` label is valid only if its Punycode decodes to a U-label that re-encodes to it, is in
NFC, uses only PVALID code points (RFC 5892's derivation, run on `unicodedata`), meets each
contextual rule it invokes, and satisfies the Bidi rule. Where a rule needs data the standard
library lacks (Joining_Type, the full Script property), a narrower sufficient condition is
used, so a label is sometimes rejected that IDNA would allow, but never the reverse.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

_PREFIX = "xn--"
# RFC 5892 section 2.6 (Exceptions) and the property groups of section 2.
_EXCEPTION_PVALID = frozenset("\u00df\u03c2\u06fd\u06fe\u0f0b\u3007")
_EXCEPTION_DISALLOWED = frozenset("\u0640\u07fa\u302e\u302f\u3031\u3032\u3033\u3034\u3035\u303b")
_CONTEXTO = frozenset("\u00b7\u0375\u05f3\u05f4\u30fb") | frozenset(
    chr(cp) for cp in [*range(0x0660, 0x066A), *range(0x06F0, 0x06FA)]
)
_CONTEXTJ = frozenset("\u200c\u200d")
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
# Sure subsets of Script=Greek / Hebrew / Hiragana / Katakana / Han (Scripts.txt): a character
# outside them may still be of that script, so a rule needing it fails closed.
_GREEK = ((0x0370, 0x0373), (0x0376, 0x0377), (0x037A, 0x037D), (0x037F, 0x037F),
          (0x0384, 0x0384), (0x0386, 0x0386), (0x0388, 0x03E1), (0x03F0, 0x03FF),
          (0x1F00, 0x1FFE))  # fmt: skip
_HEBREW = ((0x0591, 0x05C7), (0x05D0, 0x05EA), (0x05EF, 0x05F4))
_HIRAGANA_KATAKANA_HAN = ((0x3041, 0x3096), (0x309D, 0x309F), (0x30A1, 0x30FA),
                          (0x30FD, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF),
                          (0x4E00, 0x9FFF))  # fmt: skip
_VIRAMA = 9  # Canonical_Combining_Class
_RTL = frozenset({"R", "AL", "AN"})


def is_a_label_domain(labels: Sequence[str]) -> bool:
    """Whether every `xn--` label among these LDH labels is a valid A-label (RFC 5891 5.4)."""
    u_labels = [_u_label(label) if label[:4].lower() == _PREFIX else label for label in labels]
    if any(u_label is None for u_label in u_labels):
        return False
    decoded = [u_label for u_label in u_labels if u_label is not None]
    # RFC 5893 section 1.4: in a domain holding a right-to-left label, every label obeys the
    # Bidi rule.
    if any(unicodedata.bidirectional(char) in _RTL for label in decoded for char in label):
        return all(_bidi_rule(label) for label in decoded)
    return True


def _u_label(a_label: str) -> str | None:
    try:
        u_label = a_label[4:].encode("ascii").decode("punycode")
        canonical = u_label.encode("punycode").decode("ascii")
    except (UnicodeError, ValueError, IndexError, OverflowError):
        return None
    if canonical != a_label[4:].lower() or u_label.isascii():
        return None  # not the one encoding of a U-label (or no U-label at all)
    return u_label if _valid_u_label(u_label) else None


def _valid_u_label(label: str) -> bool:
    """RFC 5891 section 4.2.3 (hyphens, NFC, leading mark) and 4.2.2 (code points, contexts)."""
    if unicodedata.normalize("NFC", label) != label or label[2:4] == "--":
        return False
    if label.startswith("-") or label.endswith("-"):
        return False
    if unicodedata.category(label[0]).startswith("M"):
        return False
    for i, char in enumerate(label):
        if char in _CONTEXTJ:
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
    """RFC 5892 A.1/A.2: ZWJ and ZWNJ only after a virama.

    NOTE: A.1 also allows ZWNJ between joining letters, which needs Joining_Type (not in
    `unicodedata`): that case is rejected.
    """
    return i > 0 and unicodedata.combining(label[i - 1]) == _VIRAMA


def _contexto(label: str, i: int) -> bool:
    """RFC 5892 A.3-A.9."""
    char = label[i]
    before = label[i - 1] if i > 0 else ""
    after = label[i + 1] if i + 1 < len(label) else ""
    if char == "\u00b7":
        return before == "l" and after == "l"
    if char == "\u0375":
        return after != "" and _within(ord(after), _GREEK)
    if char in "\u05f3\u05f4":
        return before != "" and _within(ord(before), _HEBREW)
    if char == "\u30fb":
        return any(_within(ord(other), _HIRAGANA_KATAKANA_HAN) for other in label)
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


def _within(cp: int, ranges: Sequence[tuple[int, int]]) -> bool:
    return any(low <= cp <= high for low, high in ranges)
