"""Differential test: the possessive URI, IRI, URI Template and JSON Pointer grammars.

A possessive repetition (`*+`, `++`) never gives back what it took, so it changes what matches
if a later part of the grammar could have used those characters. Each grammar is checked
against its own twin with every repetition made ordinary (the form before they were made
possessive) on strings built from the grammars' alphabets and on random text: the verdict and
the IP literal found must be the same.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard.schema.formats import text, uri

_GRAMMARS = {
    "uri": lambda: uri._grammar(unicode=False)[0],
    "uri-reference (relative)": lambda: uri._grammar(unicode=False)[1],
    "iri": lambda: uri._grammar(unicode=True)[0],
    "iri-reference (relative)": lambda: uri._grammar(unicode=True)[1],
    "uri-template": uri._uri_template,
    "json-pointer": lambda: text._JSON_POINTER,
    "relative-json-pointer": lambda: text._RELATIVE_JSON_POINTER,
}
# Pieces of every grammar: schemes, separators, percent escapes (good and bad), IP literals,
# template expressions, pointer escapes, and characters just outside each alphabet.
_PIECES = st.sampled_from(
    [
        "a",
        "Z",
        "0",
        "9",
        "-",
        ".",
        "_",
        "~",
        "!",
        "$",
        "&",
        "'",
        "(",
        ")",
        "*",
        "+",
        ",",
        ";",
        "=",
        ":",
        "@",
        "/",
        "?",
        "#",
        "[",
        "]",
        "%",
        "%41",
        "%4",
        "%G1",
        "%%",
        "http:",
        "//",
        "a+b.c:",
        "[::1]",
        "[v1.x]",
        "[v1.]",
        "[",
        "]",
        ":80",
        ":",
        "user@",
        "{",
        "}",
        "{a}",
        "{+a,b:3}",
        "{a*}",
        "{.a.b}",
        "{a.}",
        "{a:0}",
        "{%41}",
        ",",
        "~0",
        "~1",
        "~2",
        "~",
        "0",
        "12",
        "01",
        "#",
        " ",
        "\n",
        '"',
        "\\",
        "<",
        "^",
        "`",
        "|",
        "\u00a0",
        "\u00e9",
        "\ud7ff",
        "\ue000",
        "\uf8ff",
        "\ufffe",
        "\U00010000",
        "\U000f0000",
        "\U000e1000",
    ]
)
_STRINGS = st.one_of(st.lists(_PIECES, max_size=12).map("".join), st.text(max_size=12))


def _backtracking(pattern: str) -> str:
    """`pattern` with each possessive repetition made ordinary: `a*+` -> `a*`, `a++` -> `a+`."""
    out: list[str] = []
    in_class = quantified = False
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            out.append(pattern[index : index + 2])
            index, quantified = index + 2, False
            continue
        if in_class:
            in_class = char != "]"
        elif char == "+" and quantified:  # the mark that makes the repetition possessive
            index, quantified = index + 1, False
            continue
        elif char == "[":
            in_class = True
        quantified = not in_class and (
            char in "*+}" or (char == "?" and bool(out) and out[-1] != "(")
        )
        out.append(char)
        index += 1
    return "".join(out)


def _twins() -> list[tuple[str, re.Pattern[str], re.Pattern[str]]]:
    twins = []
    for name, grammar in _GRAMMARS.items():
        pattern = grammar()
        twin = re.compile(_backtracking(pattern.pattern), pattern.flags)
        assert twin.pattern != pattern.pattern, name  # each grammar repeats possessively
        twins.append((name, pattern, twin))
    return twins


def _answer(pattern: re.Pattern[str], string: str) -> tuple[bool, dict[str, str | None]]:
    match = pattern.fullmatch(string)
    return (match is not None, match.groupdict() if match else {})


def test_the_twin_of_a_pattern_only_loses_its_possessive_marks() -> None:
    """Classes (`[*+,]`), escapes (`\\+`) and `(?:` keep their characters."""
    assert _backtracking(r"[a*+]*+(?:\++|x?+)++\{[0-9]{0,3}+") == r"[a*+]*(?:\++|x?)+\{[0-9]{0,3}"


@settings(max_examples=400, deadline=None)
@given(string=_STRINGS)
def test_each_grammar_matches_what_its_backtracking_twin_matches(string: str) -> None:
    """Possessive repetition gives up no string the ordinary form matched, and adds none."""
    for name, pattern, twin in _twins():
        assert _answer(pattern, string) == _answer(twin, string), name


@pytest.mark.parametrize(
    "string",
    [
        "http://[::1]:80/a?b#c",
        "s://u:p@[v1.x]:/%41/?/?#/?",
        "a:b//c",
        "//@:",
        "/a:b/c",
        "a:",
        "{+a,b:3}/x{.y*}",
        "{a.b.c}{a.}",
        "/a~0b~1c/",
        "0#",
        "12/a~1",
        "01",
    ],
)
def test_the_format_table_strings_match_as_before(string: str) -> None:
    """Hand-picked strings near each grammar's joins agree too."""
    for name, pattern, twin in _twins():
        assert _answer(pattern, string) == _answer(twin, string), name
