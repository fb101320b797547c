"""Python `re` patterns -> RE2: `translate_python` keeps what `re.fullmatch(p, s, re.ASCII)` means.

The reference is Python's `re` itself: every case, and the property test over generated
patterns, compares the RE2 translation with `re.fullmatch` on the same text.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import REGEX_ATOMS, shared_regexes

from toolguard.schema.matcher import Matcher
from toolguard.schema.python_regex import translate_python

# Characters where Python's readings differ: \v and \x1c (ASCII vs Unicode \s), the Kelvin
# sign and long s (Unicode case folding), \n and \r (`.`, `$`, multiline anchors).
TEXT = "aAkKs\u212a\u017f0 _\n\r\x0b\x1c\u00e9"
FLAGS = ("", "(?i)", "(?s)", "(?m)", "(?is)", "(?im)", "(?x)")


def same_as_python(pattern: str, text: str) -> bool:
    expected = re.fullmatch(pattern, text, re.ASCII) is not None
    return Matcher(translate_python(pattern)).fullmatch(text) is expected


@pytest.mark.parametrize(
    ("pattern", "text"),
    [
        (r"\s", "\x0b"),
        (r"\s", "\x1c"),
        (r"\s", "\u00a0"),
        (r"\d", "\u0663"),
        (r"\w", "\u00e9"),
        (r"(?i)k", "\u212a"),
        (r"(?i)s", "\u017f"),
        (r"(?i)[a-z]", "K"),
        (r"(?i)[^k]", "K"),
        (r"(?i)\u00e9", "\u00c9"),
        (r".", "\n"),
        (r".", "\r"),
        (r"(?s).", "\n"),
        (r"a$", "a\n"),
        (r"a$", "a"),
        (r"a\Z", "a\n"),
        (r"(?m)a$\n", "a\n"),
        (r"(?m)^a\n^b", "a\nb"),
        (r"\Aa|b\Z", "b"),
        (r"a\b", "a"),
        (r"[\W\d]", "3"),
        (r"[^\W\d]", "_"),
        (r"(?x) a  b  # spaced", "ab"),
        (r"(?P<n>a)(?:b|c)+", "abcb"),
        (r"a{2,3}?", "aaa"),
        (r"CR-[0-9]{1,6}", "CR-1042"),
        (r"CR\-1\.2", "CR-1.2"),
    ],
)
def test_python_meaning_is_kept(pattern: str, text: str) -> None:
    """ASCII classes, ASCII-only case folding, `.` without `\n`, `$` at the very end of a
    full match, multiline anchors and verbose mode mean what they mean in Python's `re`."""
    assert same_as_python(pattern, text)


@pytest.mark.parametrize(
    ("pattern", "needle"),
    [
        (r"(a)\1", "backreference"),
        (r"(?P<n>a)(?P=n)", "backreference"),
        (r"a(?=b)b", "lookaround"),
        (r"(?<!x)a", "lookaround"),
        (r"(?>a)", "atomic"),
        (r"a*+", "possessive"),
        (r"(a)?(?(1)b|c)", "conditional"),
        (r"a\B", "\\B"),
        (r"a$\n", "$"),
        (r"(?:a$)*", "$"),
        (r"a{1001}", "1000"),
        (r"a(", "not a valid regular expression"),
        (r"\p{L}", "not a valid regular expression"),
        (r"(?u)a", "incompatible"),
    ],
)
def test_what_re2_cannot_run_alike_is_refused(pattern: str, needle: str) -> None:
    """Constructs RE2 lacks, or reads differently from Python, raise ValueError naming them."""
    with pytest.raises(ValueError, match=re.escape(needle)) as caught:
        translate_python(pattern)
    assert repr(pattern) in str(caught.value)


_FLAGGED = st.tuples(
    st.sampled_from(FLAGS),
    shared_regexes(
        atoms=(*REGEX_ATOMS, "k", "K", "\u212a", "[j-l]", "[^K]", r"\n", "[\\s\\S]"),
        assertions=("^", "$", r"\b", r"\A", r"\Z"),
    ),
).map("".join)


@settings(max_examples=400, deadline=None)
@given(_FLAGGED, st.text(alphabet=TEXT, max_size=6))
def test_re2_agrees_with_python_re(pattern: str, text: str) -> None:
    """On generated patterns (flags, classes, groups, quantifiers, anchors), the translation
    fully matches exactly the texts `re.fullmatch(..., re.ASCII)` does, or is refused."""
    try:
        re.compile(pattern, re.ASCII)
    except re.error:
        return  # not a pattern Python accepts (a repeated assertion)
    translated, refused = _translation_or_refusal(pattern)
    if refused:
        assert "`$`" in refused  # the only refusal these patterns can meet: `$` before more
        return
    expected = re.fullmatch(pattern, text, re.ASCII) is not None
    assert Matcher(translated).fullmatch(text) is expected


def _translation_or_refusal(pattern: str) -> tuple[str, str]:
    try:
        return translate_python(pattern), ""
    except ValueError as exc:
        return "", str(exc)
