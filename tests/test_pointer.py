"""RFC 6901 JSON Pointers: tokens, escapes and lookups, as the RFC's examples spell them."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguard.pointer import MISSING, escape, is_index, join, lookup, tokens

# RFC 6901, section 5: the document and what each pointer names.
RFC_DOCUMENT: dict[str, Any] = {
    "foo": ["bar", "baz"],
    "": 0,
    "a/b": 1,
    "c%d": 2,
    "e^f": 3,
    "g|h": 4,
    "i\\j": 5,
    'k"l': 6,
    " ": 7,
    "m~n": 8,
}
RFC_EXAMPLES = [
    ("", RFC_DOCUMENT),
    ("/foo", ["bar", "baz"]),
    ("/foo/0", "bar"),
    ("/", 0),
    ("/a~1b", 1),
    ("/c%d", 2),
    ("/e^f", 3),
    ("/g|h", 4),
    ("/i\\j", 5),
    ('/k"l', 6),
    ("/ ", 7),
    ("/m~0n", 8),
]


@pytest.mark.parametrize(("pointer", "value"), RFC_EXAMPLES)
def test_the_rfc_examples_name_what_the_rfc_says(pointer: str, value: Any) -> None:
    """Each example pointer of RFC 6901 section 5 finds its value."""
    assert lookup(RFC_DOCUMENT, pointer) == value


@given(st.lists(st.text(alphabet=st.sampled_from("ab~/01")), max_size=5))
def test_tokens_read_back_what_join_wrote(steps: list[str]) -> None:
    """Escaping and unescaping round-trip, `~` and `/` included (`~01` is `~1`, not `/`)."""
    assert tokens(join(steps)) == steps


def test_an_escape_is_undone_once() -> None:
    """`~01` is the token `~1`: `~1` is replaced before `~0`, never after."""
    assert tokens("/~01") == ["~1"]
    assert tokens("/~10") == ["/0"]
    assert escape("~1") == "~01"


@pytest.mark.parametrize(
    ("document", "pointer"),
    [
        ({"a": 1}, "/b"),
        ({"a": [1]}, "/a/1"),
        ({"a": [1]}, "/a/01"),  # a leading zero is not an index
        ({"a": [1]}, "/a/-"),
        ({"a": [1, 2]}, "/a/\u0661"),  # an Arabic-Indic one is not an ASCII digit
        ({"a": 1}, "/a/b"),  # nothing inside a number
    ],
)
def test_what_is_not_there_is_missing(document: Any, pointer: str) -> None:
    """A missing member, an index out of range or not spelled as RFC 6901 says: MISSING."""
    assert lookup(document, pointer) is MISSING


def test_an_index_is_ascii_digits_without_a_leading_zero() -> None:
    """`0|[1-9][0-9]*`, in ASCII."""
    assert [is_index(token) for token in ("0", "10", "01", "", "-", "²", "1a")] == [
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]
