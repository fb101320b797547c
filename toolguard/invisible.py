"""What a person cannot see, in a string the agent receives: found, never cleaned.

A string reaches the agent only if a person reading it sees every code point that changes its
meaning. Refused: controls (Cc; tab and newline only in display text), format characters (Cf:
bidi overrides, zero-width spaces, the tag block that spells ASCII invisibly), private use
(Co), surrogates (Cs), unassigned code points (Cn), line and paragraph separators (Zl, Zp),
every Default_Ignorable_Code_Point (variation selectors among them: one per byte after an
emoji carries any payload) and the blank-looking symbols in `BLANKS`. The categories are the
interpreter's (`unicodedata`), so what is unassigned follows the Python version; the
Default_Ignorable and Emoji ranges come from the UCD (`invisible_tables.py`, generated).

Kept, because real text needs them: visible spaces (Zs, such as U+00A0 and U+202F); ZWJ and
ZWNJ between two letters or emoji (family emoji, Persian, Indic conjuncts after a virama);
one U+FE0E or U+FE0F directly after a character with the Emoji property.
"""

from __future__ import annotations

from toolguard.frozen import frozen
from toolguard.standins import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    import re
    from collections.abc import Iterable
    from typing import Any

# Symbols that draw nothing though no property says so: BRAILLE PATTERN BLANK, MUSICAL SYMBOL
# NULL NOTEHEAD (a So symbol whose glyph is empty), KHITAN SMALL SCRIPT FILLER (a mark that
# NamesList.txt files as a format character) and the Hangul fillers (the last four are
# Default_Ignorable too; listed for the reader).
BLANKS = (0x2800, 0x1D159, 0x16FE4, 0x3164, 0xFFA0, 0x115F, 0x1160)
JOINERS = "\u200c\u200d"  # ZWNJ, ZWJ
PRESENTATION_SELECTORS = "\ufe0e\ufe0f"  # text, emoji presentation
# Every Zs character of Python 3.11 but U+0020: `str.isprintable` calls them unprintable, yet
# each draws a visible gap. A Zs character a later Python adds is refused until listed here.
SPACES = "\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"
SPACES += "\u202f\u205f\u3000"
_DISPLAY_CONTROLS = "\t\n"

# NOTE: the fast paths. Text held one byte per character (Latin-1, ASCII included) is judged
# by `bytes.translate` against the bytes below: no Latin-1 code point is printable yet hidden
# (`tests/test_invisible.py` checks every code point against the definition). Other text
# leans on `str.isprintable`, False exactly for Cc, Cf, Cs, Co, Cn, Zl, Zp and Zs but U+0020
# (the interpreter's data, in C): printable text can hold a refused code point only from
# `_Tables.suspect`, and unprintable text must be printable once the kept spaces and joiners
# (and tab and newline, in display text) are taken out.
_VISIBLE_LATIN = bytes(
    code for code in range(256) if chr(code).isprintable() or chr(code) in SPACES
)
_VISIBLE_LATIN_IN_DISPLAY = bytes(sorted(_VISIBLE_LATIN + _DISPLAY_CONTROLS.encode()))


def invisible_at(text: str, *, display: bool = False) -> int | None:
    """The index of the first code point in `text` a person cannot see, or None.

    `display` allows tab and newline (display text is for a person, in lines).
    """
    try:
        latin = text.encode("latin-1")  # a copy, for text held one byte per character
    except UnicodeEncodeError:
        pass
    else:
        refused = latin.translate(None, _VISIBLE_LATIN_IN_DISPLAY if display else _VISIBLE_LATIN)
        return text.index(chr(refused[0])) if refused else None
    tables = _tables()
    end = len(text)
    if not text.isprintable():
        kept = tables.kept_in_display if display else tables.kept
        if not kept.sub("", text).isprintable():
            end = _first_unprintable(text, kept)  # refused: is a suspect refused before it?
    for match in tables.suspect.finditer(text, 0, end):
        if _refused(text, match.start()):
            return match.start()
    return None if end == len(text) else end


def hidden(char: str) -> bool:
    """Whether `invisible_at` refuses `char` alone: what text shown to the operator escapes.

    The context-free half of the definition: a joiner or a selector (which `invisible_at` keeps
    in place), tab and newline are hidden here too.
    """
    return not (char.isprintable() or char in SPACES) or _tables().suspect.match(char) is not None


def _first_unprintable(text: str, kept: re.Pattern[str]) -> int:
    """The first unprintable code point that is not kept, in text known to hold one."""
    start = 0
    for match in kept.finditer(text):
        if not text[start : match.start()].isprintable():
            break
        start = match.end()
    # NOTE: bisect in C rather than look at each character in Python, and test only the half
    # not yet known to be printable: linear overall.
    printable, unprintable = (
        start,
        len(text),
    )  # text[start:printable] is, text[start:unprintable] not
    while unprintable - printable > 1:
        middle = (printable + unprintable) // 2
        if text[printable:middle].isprintable():
            printable = middle
        else:
            unprintable = middle
    return printable


def _refused(text: str, index: int) -> bool:
    """Whether the suspect at `index` is refused: each is, but a joiner or selector in place."""
    char = text[index]
    if char in PRESENTATION_SELECTORS:
        return not (index > 0 and text[index - 1] in _tables().emoji)
    if char in JOINERS:
        after = text[index + 1 : index + 2]
        return not (after and _joinable(after) and _follows_joinable(text, index))
    return True


def _joinable(char: str) -> bool:
    """A letter or an emoji (not the ASCII digits, `#` and `*`: emoji only in keycaps)."""
    import unicodedata  # noqa: PLC0415 - only for text beyond Latin-1

    if char in _tables().emoji:
        return not char.isascii()
    return unicodedata.category(char).startswith("L")


def _follows_joinable(text: str, index: int) -> bool:
    """Whether a letter or emoji precedes `index`, past its combining marks (a virama, VS16)."""
    import unicodedata  # noqa: PLC0415 - only for text beyond Latin-1

    # NOTE: linear overall: a joiner is not a mark, so no run of marks is walked twice.
    for position in range(index - 1, -1, -1):
        if not unicodedata.category(text[position]).startswith("M"):
            return _joinable(text[position])
    return False


@frozen
class _Tables:
    """What text beyond Latin-1 is judged with, built on first need (imports stay cheap)."""

    suspect: re.Pattern[str]  # refused whether printable or not: Default_Ignorable, BLANKS
    kept: re.Pattern[str]  # unprintable, yet kept: the spaces, the joiners
    kept_in_display: re.Pattern[str]  # ... and tab and newline
    emoji: frozenset[str]  # the Emoji property


@cache
def _tables() -> _Tables:
    import re  # noqa: PLC0415 - only for text beyond Latin-1

    from toolguard.invisible_tables import DEFAULT_IGNORABLE, EMOJI  # noqa: PLC0415 - lazily

    suspect = _character_class([*DEFAULT_IGNORABLE, *((blank, blank) for blank in BLANKS)])
    return _Tables(
        suspect=re.compile(f"[{suspect}]"),
        kept=re.compile(f"[{SPACES}{JOINERS}]"),
        kept_in_display=re.compile(f"[{SPACES}{JOINERS}{_DISPLAY_CONTROLS}]"),
        emoji=frozenset(chr(code) for first, last in EMOJI for code in range(first, last + 1)),
    )


def _character_class(ranges: Iterable[tuple[int, int]]) -> str:
    return "".join(f"\\U{first:08X}-\\U{last:08X}" for first, last in ranges)


@frozen
class Invisible:
    """Where a JSON value holds a code point a person cannot see: no text of the value itself."""

    code_point: int
    position: int  # in the string that holds it
    in_name: bool  # a member name, not a string value
    depth: int  # 0: the value itself; 1: a member or item of it; ...

    def __str__(self) -> str:
        where = "a member name" if self.in_name else "a string"
        inside = f", {self.depth} level{'s' * (self.depth != 1)} in" if self.depth else ""
        return f"U+{self.code_point:04X} at character {self.position} of {where}{inside}"


def find_invisible(value: Any, *, display: bool = False) -> Invisible | None:
    """The first code point a person cannot see in a JSON value's strings, names included.

    First in document order: a member's name, then its value, then the next member. `display`
    reads every string as display text (tab and newline allowed), as a schema's descriptions.
    """
    # NOTE: one pass over all the strings joined by spaces, then a walk only if it finds
    # something. A space ends a joiner's or a selector's context just as a string's edge does,
    # so no string's verdict depends on its neighbours.
    if invisible_at(" ".join(_strings(value)), display=display) is None:
        return None
    stack: list[tuple[Any, int, bool]] = [(value, 0, False)]
    while stack:
        item, depth, in_name = stack.pop()
        if isinstance(item, str):
            index = invisible_at(item, display=display)
            if index is not None:
                return Invisible(ord(item[index]), index, in_name, depth)
        elif isinstance(item, dict):
            for name, member in reversed(item.items()):
                stack += ((member, depth + 1, False), (name, depth + 1, True))
        elif isinstance(item, list):
            stack.extend((member, depth + 1, False) for member in reversed(item))
    return None


def _strings(value: Any) -> list[str]:
    """Every string in a JSON value, member names included, in no particular order."""
    found: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
        elif isinstance(item, dict):
            found.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return found
