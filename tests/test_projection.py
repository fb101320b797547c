"""Projection: a new object holding exactly the declared fields, and bounded display text."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard.errors import ProjectionError
from toolguard.projection import DISPLAY_TEXT_FIELD, DisplayText, Projection

JSON_SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**63), max_value=2**63 - 1)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20)
)
JSON_VALUES = st.recursive(
    JSON_SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)


def pointer_to(key: str) -> str:
    """The one-token JSON Pointer to member `key` (RFC 6901 escaping)."""
    return "/" + key.replace("~", "~0").replace("/", "~1")


@st.composite
def payload_and_projection(draw: st.DrawFn) -> tuple[dict[str, Any], Projection, list[str]]:
    """A random payload object and a projection of a random subset of its members."""
    payload = draw(st.dictionaries(st.text(max_size=10), JSON_VALUES, min_size=1, max_size=8))
    chosen = draw(st.lists(st.sampled_from(sorted(payload)), unique=True, max_size=len(payload)))
    fields = {f"field_{index}": pointer_to(key) for index, key in enumerate(chosen)}
    display = None
    if draw(st.booleans()):
        text_key = draw(st.text(max_size=10).filter(lambda key: key not in payload))
        payload[text_key] = draw(
            st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126))
        )
        display = DisplayText(pointer_to(text_key), max_length=10_000)
    return payload, Projection(fields, display), chosen


@settings(max_examples=150, deadline=None)
@given(payload_and_projection())
def test_projected_keys_are_exactly_the_declared_names(
    case: tuple[dict[str, Any], Projection, list[str]],
) -> None:
    """For any payload, the projected object has exactly the declared names, in order."""
    payload, projection, chosen = case
    data = projection(payload)
    assert list(data) == list(projection.names)
    for index, key in enumerate(chosen):
        assert data[f"field_{index}"] == payload[key]
    assert (DISPLAY_TEXT_FIELD in data) == (projection.display_text is not None)


def test_projection_drops_undeclared_members() -> None:
    """Members the contract does not name never reach the projected object."""
    projection = Projection({"state": "/state"})
    data = projection({"state": "failed", "exception_message": "Retry with --force"})
    assert data == {"state": "failed"}


def test_projection_renames_and_reaches_nested_fields() -> None:
    """Agent names are the contract's names, and pointers reach into objects and arrays."""
    projection = Projection({"first_owner": "/meta/owners/0", "slash": "/a~1b", "tilde": "/c~0d"})
    payload = {"meta": {"owners": ["ann", "bob"]}, "a/b": 1, "c~d": 2}
    assert projection(payload) == {"first_owner": "ann", "slash": 1, "tilde": 2}


def test_projected_nested_values_are_copies() -> None:
    """Mutating the payload after projection leaves the projected data unchanged."""
    payload = {"meta": {"owners": ["ann"], "labels": {"team": "infra"}}, "items": [[1], [2]]}
    data = Projection({"meta": "/meta", "items": "/items"})(payload)
    payload["meta"]["owners"].append("mallory")
    payload["meta"]["labels"]["team"] = "evil"
    payload["items"][0].append(99)
    assert data == {"meta": {"owners": ["ann"], "labels": {"team": "infra"}}, "items": [[1], [2]]}


def test_projection_does_not_share_objects_with_the_payload() -> None:
    """Mutating the projected data leaves the payload unchanged."""
    payload = {"tags": ["a"]}
    data = Projection({"tags": "/tags"})(payload)
    data["tags"].append("b")
    assert payload == {"tags": ["a"]}


@pytest.mark.parametrize(
    ("fields", "payload"),
    [
        ({"state": "/state"}, {"status": "ok"}),
        ({"owner": "/meta/owner"}, {"meta": {}}),
        ({"owner": "/meta/owner"}, {"meta": "owner"}),
        ({"second": "/items/1"}, {"items": ["only"]}),
        ({"item": "/items/01"}, {"items": ["a", "b"]}),
        ({"item": "/items/-"}, {"items": ["a"]}),
    ],
    ids=["absent", "absent-nested", "through-a-string", "past-the-end", "leading-zero", "dash"],
)
def test_missing_field_is_a_projection_error(fields: dict[str, str], payload: Any) -> None:
    """A declared field absent from the payload raises ProjectionError missing_field."""
    with pytest.raises(ProjectionError) as info:
        Projection(fields)(payload)
    assert info.value.reason == "missing_field"
    assert info.value.layer == "projection"


def test_null_field_is_projected_as_null() -> None:
    """A field that is present and null is projected as None, not reported missing."""
    assert Projection({"note": "/note"})({"note": None}) == {"note": None}


# display text -----------------------------------------------------------------------------


def display(max_length: int = 20) -> Projection:
    return Projection({"ticket": "/ticket"}, DisplayText("/title", max_length))


def test_display_text_is_placed_under_the_untrusted_name() -> None:
    """Display text appears only under `untrusted_display_text`, after the declared fields."""
    data = display()({"ticket": 7, "title": "Fix the build"})
    assert data == {"ticket": 7, DISPLAY_TEXT_FIELD: "Fix the build"}
    assert list(data) == ["ticket", DISPLAY_TEXT_FIELD]
    assert display().names == ("ticket", DISPLAY_TEXT_FIELD)


def test_display_text_at_the_bound_passes() -> None:
    """Display text exactly max_length characters long passes."""
    assert display(5)({"ticket": 1, "title": "abcde"})[DISPLAY_TEXT_FIELD] == "abcde"


def test_display_text_bound_counts_characters() -> None:
    """max_length counts characters, so five non-ASCII characters fit a bound of five."""
    assert display(5)({"ticket": 1, "title": "\u00e9\u00e9\u00e9\u00e9\u00e9"})


def test_display_text_too_long_is_rejected() -> None:
    """Display text one character over max_length raises ProjectionError."""
    with pytest.raises(ProjectionError) as info:
        display(5)({"ticket": 1, "title": "abcdef"})
    assert info.value.reason == "display_text_too_long"


@pytest.mark.parametrize(
    "char",
    ["\x1b", "\x00", "\x07", "\x08", "\x0b", "\x0c", "\r", "\x7f", "\x85", "\x9b", "\u202e"],
    ids=lambda char: f"U+{ord(char):04X}",
)
def test_display_text_with_control_characters_is_rejected(char: str) -> None:
    """Display text holding a control character (ANSI ESC, NUL, CR, C1, RLO) is rejected."""
    with pytest.raises(ProjectionError) as info:
        display()({"ticket": 1, "title": f"ok{char}[31m"})
    assert info.value.reason == "unsafe_display_text"


# Unicode's Bidi_Control property (PropList.txt): the characters that reorder displayed text,
# as listed by Trojan Source (CVE-2021-42574). U+061C is ARABIC LETTER MARK.
BIDI_CONTROLS = [
    "\u061c",
    "\u200e",
    "\u200f",
    *(chr(code) for code in range(0x202A, 0x202F)),
    *(chr(code) for code in range(0x2066, 0x206A)),
]


@pytest.mark.parametrize("char", BIDI_CONTROLS, ids=lambda char: f"U+{ord(char):04X}")
def test_display_text_with_bidi_controls_is_rejected(char: str) -> None:
    """Every Unicode Bidi_Control character is rejected, so text reads as its bytes say."""
    with pytest.raises(ProjectionError) as info:
        display()({"ticket": 1, "title": f"ab{char}cd"})
    assert info.value.reason == "unsafe_display_text"


# Invisible characters that carry hidden text or break lines unseen: zero-width space, word
# joiner, BOM, soft hyphen, a tag character (U+E0041, "A" in the invisible tag block), private
# use, an unassigned code point, and the line and paragraph separators.
INVISIBLE = "\u200b\u2060\ufeff\u00ad\U000e0041\ue000\U0010fffe\u2028\u2029"


@pytest.mark.parametrize("char", INVISIBLE, ids=lambda char: f"U+{ord(char):04X}")
def test_display_text_with_invisible_characters_is_rejected(char: str) -> None:
    """Format, private-use, unassigned and separator characters are rejected, not stripped."""
    with pytest.raises(ProjectionError) as info:
        display()({"ticket": 1, "title": f"ab{char}cd"})
    assert info.value.reason == "unsafe_display_text"


@pytest.mark.parametrize(
    "text", ["line one\nline two", "col\tcol", "caf\u00e9 \u2713", "\u6f22\u5b57 \U0001f600", ""]
)
def test_display_text_allows_newline_tab_and_printable_unicode(text: str) -> None:
    """Newline, tab and printable non-ASCII text pass unchanged."""
    assert display()({"ticket": 1, "title": text})[DISPLAY_TEXT_FIELD] == text


@pytest.mark.parametrize("title", [None, 42, ["a"], {"text": "a"}], ids=repr)
def test_display_text_must_be_a_string(title: Any) -> None:
    """A display-text field that is not a string raises ProjectionError."""
    with pytest.raises(ProjectionError):
        display()({"ticket": 1, "title": title})


def test_display_text_missing_is_a_projection_error() -> None:
    """An absent display-text field raises ProjectionError."""
    with pytest.raises(ProjectionError):
        display()({"ticket": 1})
