"""What `init` writes reads the same everywhere: unseen characters escaped in TOML and JSON."""

from __future__ import annotations

import json
import tomllib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguard.invisible import hidden as is_hidden
from toolguard.scaffold.render import (
    Entry,
    Table,
    contract_text,
    expect_text,
    json_bytes,
    json_text,
    toml_string,
)


@given(st.text())
def test_a_toml_string_reads_back_as_the_same_text(text: str) -> None:
    """Any text, quotes, backslashes and controls included, survives a TOML round trip."""
    assert tomllib.loads(f"value = {toml_string(text)}")["value"] == text


@given(st.text())
def test_a_toml_string_shows_no_unseen_character(text: str) -> None:
    """Controls, format and bidi characters are written as escapes, never raw."""
    assert not any(is_hidden(char) or not char.isprintable() for char in toml_string(text))


@pytest.mark.parametrize(
    ("text", "written"),
    [
        ('say "hi"', '"say \\"hi\\""'),
        ("a\\b", '"a\\\\b"'),
        ("line\nbreak", '"line\\u000Abreak"'),
        ("\u202eevil", '"\\u202Eevil"'),
        ("\U000e0041", '"\\U000E0041"'),
        ("café", '"café"'),
        ("a\u3164b", '"a\\u3164b"'),  # printable, yet a person sees nothing: escaped too
    ],
)
def test_toml_strings_escape_what_needs_it(text: str, written: str) -> None:
    """Quotes and backslashes escaped; unseen characters as u-escapes; visible text as is."""
    assert toml_string(text) == written


@given(
    st.recursive(
        st.none() | st.text() | st.integers(), lambda c: st.lists(c) | st.dictionaries(st.text(), c)
    )
)
def test_json_text_and_bytes_read_back_as_the_same_value(value: object) -> None:
    """The schema's layout and a fixture's one line both hold exactly the value written."""
    assert json.loads(json_text(value)) == value
    assert json.loads(json_bytes(value)) == value
    shown = json_text(value)
    assert not any(char != "\n" and (is_hidden(char) or not char.isprintable()) for char in shown)


def test_short_json_values_stay_on_one_line() -> None:
    """A subschema that fits in the width is one line; a longer object is one member a line."""
    assert json_text({"type": "string", "maxLength": 32}) == '{"type": "string", "maxLength": 32}\n'
    long = {f"key_{n}": "x" * 10 for n in range(8)}
    assert json_text(long).count("\n") == 10


def test_the_contract_text_aligns_comments_and_comments_out_suggestions() -> None:
    """Values, then comments at one column; a commented table keeps that column too."""
    text = contract_text(
        ["made by a test"],
        [Entry("tool", "t", "the envelope's `tool`")],
        [
            Table("[[rules]]", [Entry("name", "r"), Entry("max_age_seconds", 300)], "why", True),
            Table("[projection]", [Entry("id", "/id", "string")], "kept"),
        ],
    )
    assert text.splitlines() == [
        "# made by a test",
        'tool = "t"                        # the envelope\'s `tool`',
        "",
        "# [[rules]]                       # why",
        '# name = "r"',
        "# max_age_seconds = 300",
        "",
        "[projection]                      # kept",
        'id = "/id"                        # string',
    ]
    assert tomllib.loads(text) == {"tool": "t", "projection": {"id": "/id"}}


def test_an_expectation_file_says_what_the_near_miss_plays() -> None:
    """A comment line, then the code and layer `toolguard test` checks."""
    text = expect_text("NaN\x1b[31m", {"code": "INVALID_RESPONSE", "layer": "parse"})
    assert text == '# NaN\\x1b[31m\ncode = "INVALID_RESPONSE"\nlayer = "parse"\n'
    assert tomllib.loads(text) == {"code": "INVALID_RESPONSE", "layer": "parse"}


def test_a_comment_keeps_visible_text_and_escapes_what_a_person_cannot_see() -> None:
    """Accents stay as written; a printable character that shows nothing is an escape."""
    assert expect_text("café a\u3164b", {}) == "# café a\\u3164b\n"


def test_json_text_and_bytes_keep_visible_text_as_written() -> None:
    """The schema and the fixtures show `café` as such, not as a `\\u` escape."""
    assert json_text({"title": "café"}) == '{"title": "café"}\n'
    assert json_bytes({"title": "café"}) == '{"title": "café"}'.encode()
