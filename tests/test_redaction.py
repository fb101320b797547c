"""Redaction: every form of a secret context value becomes `[secret:KEY]`; short ones refused."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from urllib.parse import quote

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard.errors import UsageError
from toolguard.redaction import (
    MAX_SECRET_VALUES,
    MIN_SECRET_LENGTH,
    Secrets,
    marker,
    require_redactable,
)
from toolguard.text import clean

TOKEN = "sk-live.SECRET/9f8e'\"\\é"
PROPERTY = settings(max_examples=300, deadline=None)


def secrets(**context: object) -> Secrets:
    found = Secrets.of(set(context), context)
    assert found is not None
    return found


def redact(text: str, **context: object) -> str:
    return secrets(**(context or {"token": TOKEN})).text(text)


QUOTINGS: dict[str, Callable[[str], str]] = {
    "plain": str,
    "repr": repr,
    "regex": re.escape,
    "repr of regex": lambda text: repr(re.escape(text)),
    "json": json.dumps,
    "json, not ascii": lambda text: json.dumps(text, ensure_ascii=False),
    "json of repr": lambda text: json.dumps(repr(text)),
    "json of json": lambda text: json.dumps(json.dumps(text)),  # a JSON text block, quoted
    "escaped for a terminal": lambda text: clean(text, len(text)),
    "url": lambda text: quote(text, safe="", errors="surrogatepass"),
    "upper case": str.upper,
    "lower case": str.lower,
}


@pytest.mark.parametrize("quoting", QUOTINGS.values(), ids=QUOTINGS.keys())
def test_every_quoted_form_of_a_secret_is_replaced_by_its_marker(
    quoting: Callable[[str], str],
) -> None:
    """A rule message or a command may quote the value as is, escaped, or in another case."""
    redacted = redact(f"before {quoting(TOKEN)} after")
    assert redacted.startswith("before ")
    assert redacted.endswith(" after")
    assert "[secret:token]" in redacted
    assert "9F8E" not in redacted.upper()


def test_numbers_are_redacted_as_they_are_printed() -> None:
    """A secret number is found in text as its digits, and a projected number holding it goes."""
    found = secrets(pin=12345678901)
    assert found.text("pin=12345678901;") == "pin=[secret:pin];"
    assert found.value({"n": 12345678901, "m": 7, "ok": True}) == {
        "n": "[secret:pin]",
        "m": 7,
        "ok": True,
    }


def test_each_item_of_a_secret_list_is_redacted() -> None:
    """A list of secrets: each item is found on its own, and named by the list's key."""
    found = secrets(tokens=["first-secret-1", "second-secret-2"])
    assert found.text("a first-secret-1 b SECOND-SECRET-2") == "a [secret:tokens] b [secret:tokens]"


def test_keys_and_values_at_any_depth_are_redacted() -> None:
    """`value` walks a JSON value: member names and strings, in lists and objects."""
    found = secrets(token=TOKEN)
    value = {TOKEN: [{"x": f"Bearer {TOKEN}"}], "n": None}
    assert found.value(value) == {"[secret:token]": [{"x": "Bearer [secret:token]"}], "n": None}


def test_the_longest_secret_wins_where_two_overlap() -> None:
    """One secret inside another: the longer one is replaced whole, by its own key's marker."""
    found = secrets(short="abcdefgh", long="abcdefgh-ijkl")
    assert found.text("abcdefgh-ijkl abcdefgh") == "[secret:long] [secret:short]"


def test_redacting_twice_changes_nothing_more() -> None:
    """Markers are left alone, even when the key's name holds the secret's text."""
    found = secrets(my_password_field="password_field")
    once = found.text("x password_field y")
    assert once == "x [secret:my_password_field] y"
    assert found.text(once) == once


@pytest.mark.parametrize("tail", ["s", "sk-l", "SK-LIVE.SECRET/9f8e'"])
def test_an_excerpt_cut_inside_a_secret_loses_the_part_it_holds(tail: str) -> None:
    """The first bytes of stderr may end inside a secret: with `cut`, that tail is redacted."""
    found = secrets(token=TOKEN)
    assert found.text(f"token: {tail}", cut=True) == "token: [secret:token]"
    assert found.text(f"token: {tail}") == f"token: {tail}"  # whole text: nothing is cut


def test_text_without_a_secret_is_returned_unchanged() -> None:
    """Nothing to redact: the same text."""
    assert redact("nothing to see here [secret:other] sk-live") == (
        "nothing to see here [secret:other] sk-live"
    )


def test_no_secret_key_in_the_context_gives_no_secrets() -> None:
    """Secret keys the request does not carry: nothing to redact (None)."""
    assert Secrets.of({"token"}, {"other": TOKEN}) is None
    assert Secrets.of(set(), {"token": TOKEN}) is None


@pytest.mark.parametrize(
    "value",
    ["seven77", 1234567, True, None, 1.5, ["long-enough-1", "short"]],
    ids=["7-characters", "7-digits", "boolean", "null", "short-float", "one-short-item"],
)
def test_a_secret_too_short_to_redact_is_refused(value: object) -> None:
    """Under 8 characters as printed (each item of a list): a usage error naming the key only."""
    with pytest.raises(UsageError) as caught:
        require_redactable({"token"}, {"token": value, "other": "x"})
    assert "'token'" in str(caught.value)
    assert f"{MIN_SECRET_LENGTH} characters" in str(caught.value)
    assert "seven77" not in str(caught.value)


@pytest.mark.parametrize(
    "value",
    [["long-enough"] * (MAX_SECRET_VALUES + 1), ["x" * 4000, "y" * 4000, "z" * 200]],
    ids=["65-values", "8200-characters"],
)
def test_more_secret_than_can_be_redacted_quickly_is_refused(value: object) -> None:
    """Over 64 values or 8192 characters in all: a usage error naming the key only."""
    with pytest.raises(UsageError, match="more than 64 values or 8192 characters") as caught:
        require_redactable({"token"}, {"token": value})
    assert "long-enough" not in str(caught.value)


@pytest.mark.parametrize("value", ["eight888", 12345678, ["long-enough-1"], []])
def test_a_secret_of_eight_characters_or_more_is_accepted(value: object) -> None:
    """8 characters (digits too), a list of long items, an empty list: all redactable."""
    require_redactable({"token"}, {"token": value, "short": "x"})


def test_a_text_built_to_repeat_a_periodic_secret_is_covered_whole() -> None:
    """Overlapping repeats of a periodic secret are one span, found in linear time."""
    found = secrets(token="abcabcabcab")
    assert found.text("xx" + "abc" * 10_000 + "ab yy") == "xx[secret:token] yy"
    assert found.text("a" * 100_000) == "a" * 100_000


def test_the_marker_names_the_key() -> None:
    """`[secret:KEY]`: the operator learns which value was there, not the value."""
    assert marker("api_token") == "[secret:api_token]"


_SECRET_TEXT = st.text(
    alphabet=st.sampled_from("aZ09-_./'\"\\ \x1b\n\té\u202e\ud800😀"), min_size=8, max_size=24
)
_AROUND = st.text(alphabet=st.sampled_from("XY <>(){}:;|"), max_size=12)  # shares nothing


@PROPERTY
@given(
    secret=_SECRET_TEXT,
    before=_AROUND,
    after=_AROUND,
    quoting=st.sampled_from(sorted(QUOTINGS)),
)
def test_no_quoted_secret_survives_redaction_then_escaping(
    secret: str, before: str, after: str, quoting: str
) -> None:
    """Whatever surrounds it and however it is quoted, no part of the quotation remains."""
    found = secrets(token=secret)
    quoted = QUOTINGS[quoting](secret)
    redacted = found.text(before + quoted + after)
    assert quoted[1:-1] not in redacted
    assert redacted == f"{before}{redacted[len(before) : len(redacted) - len(after)]}{after}"
    shown = clean(redacted, 10_000)
    for form in (secret, clean(secret, 10_000), json.dumps(secret)[1:-1], repr(secret)[1:-1]):
        assert form.lower() not in shown.lower()
