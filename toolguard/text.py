"""Text shown to the operator: what reads differently from its bytes escaped, and bounded.

Escaped: every code point the agent may not receive alone (`invisible.hidden`, one definition):
control characters (ESC starts ANSI sequences), format characters (bidirectional overrides
behind "Trojan Source", zero-width spaces, the invisible U+E0000 tag block used to smuggle
instructions), line and paragraph separators, private-use and unassigned code points, variation
selectors and every other Default_Ignorable_Code_Point, and the blank-looking symbols.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Container
    from typing import Any


MAX_TEXT = 512


def clean(text: str, limit: int = MAX_TEXT, *, end: int = 0) -> str:
    """Escape hidden characters (`invisible.hidden`) and truncate: safe on any terminal.

    `end`: of the `limit` characters kept, that many are the text's last ones, cut out of its
    middle instead: a message's reason comes after the path it is about, however long.
    """
    if len(text) <= limit and text.isascii() and text.isprintable():
        return text  # the common case, without a category lookup per character
    from toolguard.invisible import hidden  # noqa: PLC0415 - not before the one-shot start

    if len(text) > limit:
        last = f" ...{text[len(text) - end :]}" if end else ""
        text = f"{text[: limit - end]}... [{len(text) - limit} more characters]{last}"
    return "".join(
        char.encode("unicode_escape").decode("ascii") if hidden(char) else char for char in text
    )


# NOTE: a message's reason follows the path it is about ("cannot write audit log PATH: No space
# left on device (the response itself was accepted)"): one too long to show whole keeps this
# many of its last characters, cut out of its middle, never its reason off its end.
REASON = 160


def clean_message(text: str, limit: int = MAX_TEXT) -> str:
    """`clean` for a message an operator acts on: cut in its middle, its reason kept."""
    return clean(text, limit, end=REASON)


def cleaned(value: Any, limit: int = 4 * MAX_TEXT, *, drop_none: bool = False) -> Any:
    r"""A JSON-ready copy: every string (keys too) escaped and bounded, at any depth.

    A value too long is cut in its middle (`clean_message`), a key from its end.

    Escaping and truncation are not one-to-one (an ESC and the four characters `\x1b` read
    alike, and so do two long names with one beginning): a key that reads like one already
    copied is told apart by a ` (2)`, ` (3)`... suffix, so no member is lost (an audit
    summary's totals still add up to its records).
    """
    if isinstance(value, dict):
        copy: dict[str, Any] = {}
        suffixes: dict[str, int] = {}
        for key, item in value.items():
            if drop_none and item is None:
                continue
            shown = clean(str(key), limit)
            if shown in copy:
                shown = distinct(shown, copy, suffixes)
            copy[shown] = cleaned(item, limit, drop_none=drop_none)
        return copy
    if isinstance(value, list | tuple):
        return [cleaned(item, limit, drop_none=drop_none) for item in value]
    if isinstance(value, bool | int | float) or value is None:
        return value
    return clean_message(str(value), limit)


def distinct(shown: str, taken: Container[str], suffixes: dict[str, int]) -> str:
    """`shown` with the first ` (N)` suffix, from 2, that `taken` does not hold.

    For names that must stay apart once escaped and truncated (JSON keys, JUnit test names).
    `suffixes` remembers where the search for each name stopped, so a mapping whose many
    keys all read alike costs a step a key, not a walk over the suffixes already given.
    """
    number = suffixes.get(shown, 2)
    while f"{shown} ({number})" in taken:
        number += 1
    suffixes[shown] = number + 1
    return f"{shown} ({number})"
