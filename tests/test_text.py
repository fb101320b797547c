"""Text for the operator: escaped, bounded, and no member lost to two keys that read alike."""

from __future__ import annotations

import sys
from types import FrameType

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import hidden_prone_text

from toolguard.text import clean, cleaned, distinct


def test_keys_that_read_alike_once_escaped_are_all_kept() -> None:
    """An ESC and the four characters of its escape; two long keys with one beginning."""
    long = "k" * 40
    value = {"x\x1b": 1, "x\\x1b": 2, "x\\x1b (2)": 3, long + "a": 4, long + "b": 5}
    copy = cleaned(value, limit=32)
    assert list(copy.values()) == [1, 2, 3, 4, 5]
    assert list(copy) == [
        "x\\x1b",
        "x\\x1b (2)",
        "x\\x1b (2) (2)",
        clean(long + "a", 32),
        clean(long + "a", 32) + " (2)",
    ]


@given(st.dictionaries(hidden_prone_text(max_size=6), st.integers(), max_size=12))
def test_a_cleaned_mapping_keeps_every_member_in_order(value: dict[str, int]) -> None:
    copy = cleaned(value, limit=4)
    assert list(copy.values()) == list(value.values())
    pairs = zip(copy, value, strict=True)
    assert all(key.startswith(clean(original, 4)) for key, original in pairs)


def test_many_keys_that_read_alike_cost_a_step_each() -> None:
    """A mapping of n keys that all read alike once bounded: n suffixes, not n * n probes.

    Counted in lines run inside the suffix search (deterministic), not in time.
    """
    count = 400
    value = {"k" * 40 + f"{number:04d}": number for number in range(count)}
    lines = 0

    def trace(frame: FrameType, event: str, arg: object) -> object:
        nonlocal lines
        if frame.f_code is distinct.__code__:
            if event == "line":
                lines += 1
            return trace
        return None

    sys.settrace(trace)
    try:
        copy = cleaned(value, limit=8)
    finally:
        sys.settrace(None)
    shown = clean("k" * 44, 8)
    assert list(copy) == [shown] + [f"{shown} ({number})" for number in range(2, count + 1)]
    assert lines < 10 * count


UNSEEN = {
    "variation selector 17": ("OK \U0001f600\U000e0100", "OK \U0001f600\\U000e0100"),
    "variation selector 1": ("a\ufe00b", "a\\ufe00b"),
    "Hangul filler": ("a\u3164b", "a\\u3164b"),
    "braille pattern blank": ("a\u2800b", "a\\u2800b"),
    "combining grapheme joiner": ("a\u034fb", "a\\u034fb"),
    "tag A": ("a\U000e0041", "a\\U000e0041"),
    "right-to-left override": ("a\u202eb", "a\\u202eb"),
}


@pytest.mark.parametrize(("text", "shown"), UNSEEN.values(), ids=UNSEEN.keys())
def test_every_character_the_agent_may_not_receive_is_escaped_for_the_operator(
    text: str, shown: str
) -> None:
    """Variation selectors, fillers and blanks too, not only controls and format characters."""
    assert clean(text) == shown


def test_visible_text_beyond_ascii_is_shown_as_it_is() -> None:
    """Accents, CJK, emoji and visible spaces need no escape."""
    text = "Zo\u00eb \u6f22\u5b57 \u263a 10\u00a0km"
    assert clean(text) == text


def test_with_end_a_long_text_is_cut_in_its_middle_and_keeps_its_last_characters() -> None:
    """A message's reason follows its path: `end` keeps it, within the same limit."""
    message = "/" + "a" * 1000 + ": cannot read contract: File name too long"
    shown = clean(message, 100, end=40)
    assert shown.startswith("/aaa")
    assert shown.endswith("a: cannot read contract: File name too long"[-40:])
    assert f"... [{len(message) - 100} more characters] ..." in shown
    assert clean(message, 100).endswith(f"... [{len(message) - 100} more characters]")
