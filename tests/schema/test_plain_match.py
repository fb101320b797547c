"""Plain patterns match without RE2, and answer exactly as RE2 does."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from toolguard.schema import compile_schema
from toolguard.schema.matcher import Matcher, UnmatchableText
from toolguard.schema.plain_match import plain
from toolguard.schema.regex import translate

REPO = Path(__file__).resolve().parents[2]
PLAIN = [
    r"^[a-z0-9][a-z0-9-]{2,62}$",
    r"^run_[A-Za-z0-9]{12,48}$",
    r"^CR-[0-9]{1,10}$",
    r"^[0-9a-f]{7,40}$",
    r"^[A-Za-z0-9_+/-]+$",
    r"^[A-Z]{2,8}-\d{1,6}$",
    r"^\w*$",
    r"^/",
    r"^v[0-9]+\.[0-9]+",
    r"^$",
    r"^[^@]+@[^@]+$",  # negated classes: every ASCII character but theirs
    r"^[^ ]+$",
]
NOT_PLAIN = [
    r"abc",  # not anchored at the start
    r"^a*a$",  # a variable run before an overlapping one
    r"^[a-z]+[a-z0-9]$",
    r"^a?b?c$",  # a variable run before one that may take nothing
    r"^a.b$",  # a dot: every code point but line ends
    r"^[^a-zA-Z0-9]*[^0-9]$",  # a negated class overlapping its neighbour
    r"^(ab)+$",
    r"^a|b$",
    r"^é+$",  # beyond ASCII
    r"^a+?b$",  # a lazy count
    r"(?i)^a$",
]
_ALPHABET = "ab-_/.09Zé\u2028\n "


def re2_only(source: str) -> Matcher:
    matcher = Matcher(source)
    matcher._plain = None  # the reference: RE2 answers
    return matcher


@pytest.mark.parametrize("pattern", PLAIN)
def test_identifier_patterns_are_plain(pattern: str) -> None:
    """The patterns contracts use for identifiers are read as plain runs."""
    assert plain(translate(pattern)) is not None


@pytest.mark.parametrize("pattern", NOT_PLAIN)
def test_what_greedy_reading_cannot_decide_is_left_to_re2(pattern: str) -> None:
    """Alternation, groups, dots, overlapping neighbours, lazy counts: RE2's."""
    try:
        source = translate(pattern)
    except Exception:  # noqa: BLE001 - a pattern the translator refuses never reaches here
        return
    assert plain(source) is None


_atoms = st.sampled_from(
    [
        *("a", "b", "-", "_", "/", "\\.", "0", "[ab]", "[a-]", "[0-9]", "\\d", "\\w", "[/-]", "."),
        *("[^a]", "[^-/]", "[^0-9b]", "\\D", "\\S"),  # negated: every ASCII character but theirs
    ]
)
_counts = st.sampled_from(["", "?", "*", "+", "{2}", "{0,1}", "{1,3}", "{2,}", "{0}"])


@st.composite
def patterns(draw: st.DrawFn) -> str:
    body = "".join(draw(_atoms) + draw(_counts) for _ in range(draw(st.integers(0, 4))))
    return "^" + body + draw(st.sampled_from(["$", ""]))


@settings(max_examples=1500, deadline=None)
@given(patterns(), st.lists(st.text(_ALPHABET, max_size=8), min_size=1, max_size=6))
@example("^[a-z0-9][a-z0-9-]{2,62}$", ["ab", "abc", "a-b", "-ab", "ab\n", "abé", "a" * 63])
@example("^run_[A-Za-z0-9]{12,48}$", ["run_" + "a" * 12, "run_" + "a" * 11, "run_" + "a" * 49])
def test_a_plain_pattern_answers_as_re2_does(pattern: str, texts: list[str]) -> None:
    """search and fullmatch give RE2's answer, for ASCII text and beyond it."""
    source = translate(pattern)
    matcher, reference = Matcher(source), re2_only(source)
    for text in texts:
        assert matcher.search(text) == reference.search(text), (source, text)
        assert matcher.fullmatch(text) == reference.fullmatch(text), (source, text)


def unrolled(source: str) -> Callable[[str], bool]:
    """The function a generated validator runs for `source` on ASCII text."""
    runs = plain(source)
    assert runs is not None
    namespace: dict[str, Any] = {}
    exec(runs.function_source("PLAIN_0"), namespace)
    return cast(Callable[[str], bool], namespace["PLAIN_0"])


@settings(max_examples=1500, deadline=None)
@given(patterns(), st.lists(st.text(_ALPHABET, max_size=8), min_size=1, max_size=6))
@example("^[^@]+@[^@]+$", ["a@b", "@b", "a@", "a@b@c", "ab", "a@\nb"])
@example("^[a-z0-9][a-z0-9-]{2,62}$", ["ab", "abc", "a-b", "-ab", "ab\n", "a" * 63, "a" * 64])
def test_the_unrolled_function_answers_as_re2_does(pattern: str, texts: list[str]) -> None:
    """A generated validator's function for a plain pattern: RE2's answer on ASCII text."""
    source = translate(pattern)
    if plain(source) is None:
        return
    function, reference = unrolled(source), re2_only(source)
    for text in filter(str.isascii, texts):
        assert function(text) == reference.search(text), (source, text)


def test_a_schema_pattern_runs_its_unrolled_function_on_ascii_text_only() -> None:
    """ASCII text through the module's function; beyond ASCII, through RE2 (as before)."""
    validator = compile_schema({"type": "string", "pattern": "^[a-z]+@[a-z]+$"})
    assert validator.is_valid("ab@cd")
    assert not validator.is_valid("ab@cd@")
    assert not validator.is_valid("ab@cdé")
    assert not validator.is_valid("é@cd")
    keys = compile_schema({"patternProperties": {"^x[0-9]{2}$": {"type": "integer"}}})
    assert keys.is_valid({"x12": 1, "y": "z", "x1é": "z"})
    assert not keys.is_valid({"x12": "z"})


def test_the_generated_patterns_include_plain_ones() -> None:
    """The differential above is not vacuous: most of its patterns take the plain path."""
    found = [translate(p) for p in ("^a*-b+$", "^[ab]{1,3}/\\d*$", "^\\w+", "^a?-", "^[^a]+a")]
    assert all(plain(source) is not None for source in found)


def test_a_lone_surrogate_is_still_unmatchable() -> None:
    """Text beyond ASCII is RE2's, so a lone surrogate is refused as before, never matched."""
    matcher = Matcher(translate("^[a-z]+$"))
    with pytest.raises(UnmatchableText):
        matcher.search("ab\ud800")


_PROBE = """
import json, sys
from toolguard.schema.matcher import Matcher
sources = json.loads(sys.argv[1])
answers = [Matcher(source).fullmatch("abc") for source in sources]
print(json.dumps([answers, any(name.partition(".")[0] in ("re2", "_re2") for name in sys.modules)]))
"""


def test_plain_patterns_never_load_re2() -> None:
    """A process whose patterns are all plain, matching ASCII text, never imports RE2."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps([translate(p) for p in PLAIN])],
        capture_output=True,
        check=True,
        cwd=REPO,
    )
    answers, loaded = json.loads(done.stdout)
    assert len(answers) == len(PLAIN)
    assert loaded is False
