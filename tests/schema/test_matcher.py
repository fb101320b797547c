"""The matcher: RE2 runs every pattern in time linear in the input, or the pattern is refused.

The hostile cases run in a child interpreter with a 30 s timeout: under a backtracking engine
they would take hours, and the test must fail rather than hang.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from toolguard.errors import SchemaError
from toolguard.schema.matcher import MAX_PROGRAM_SIZE, Matcher, UnmatchableText, refusal
from toolguard.schema.regex import translate

N = 64 * 1024
# (ECMA-262 pattern, text, whether `search` finds it): each is exponential for a backtracker.
HOSTILE = [
    (r"^(a|a){1,64}$", "a" * 25 + "!", False),  # the 26 bytes
    (r"^(a|a){1,64}$", "a" * 34 + "!", False),  # the 35 bytes: hours in Python's re
    (r"^(a|a){1,64}$", "a" * 64, True),
    (r"^(a|a)*$", "a" * N + "!", False),
    (r"^(a+)+$", "a" * N + "!", False),
    (r"^(\w+\s?)*$", "a" * N + "!", False),
    (r"^(?:a|ab|b)*c$", "ab" * (N // 2), False),
    (r"(a|b)*a(a|b){20}x", "ab" * (N // 2), False),
    (r"^(?:[a-z]+\.)*[a-z]+@", "a." * (N // 2), False),
    (r"^\p{L}+\d$", "\u00e9" * N, False),
    (r"^[^!]{1,1000}!$", "a" * N, False),
]
_PROBE = """
import json, sys
from toolguard.schema.matcher import Matcher
from toolguard.schema.regex import translate
cases = json.loads(sys.stdin.read())
print(json.dumps([Matcher(translate(pattern)).search(text) for pattern, text, _ in cases]))
"""


def test_hostile_patterns_get_the_right_answer_without_hanging() -> None:
    """Overlapping alternatives, nested quantifiers and long counted repetitions on up to
    64 KiB of input all finish (well inside 30 s) with the answer ECMA-262 gives."""
    done = subprocess.run(
        [sys.executable, "-c", _PROBE],
        input=json.dumps(HOSTILE),
        capture_output=True,
        text=True,
        timeout=30,
        check=True,
    )
    assert json.loads(done.stdout) == [expected for _, _, expected in HOSTILE]


def test_re2_is_imported_only_when_a_pattern_is_compiled() -> None:
    """Making a `Matcher` (as loading a cached validator does) imports no regex engine; the
    first match does."""
    probe = (
        "import sys\n"
        "from toolguard.schema.matcher import Matcher\n"
        "matcher = Matcher('a+')\n"
        "before = 're2' in sys.modules\n"
        "matcher.search('aa')\n"
        "print(before, 're2' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=30, check=True
    )
    assert done.stdout.split() == ["False", "True"]


def test_search_fullmatch_and_groups() -> None:
    """`search` finds a match anywhere, `fullmatch` only of the whole text, `groups` reads
    each group of a whole-text match by position (None where it took no part)."""
    matcher = Matcher(r"(b)(x)?")
    assert matcher.search("abc")
    assert not matcher.fullmatch("abc")
    assert matcher.fullmatch("b")
    assert matcher.groups("b") == ("b", None)
    assert matcher.groups("bx") == ("b", "x")
    assert matcher.groups("abc") is None


def test_groups_are_code_points_not_bytes() -> None:
    """Group values are `str` slices at code point boundaries, whatever UTF-8 needs."""
    translated = translate("^(.)(.+)$")
    assert Matcher(translated).groups("\U0001f600\u00e9z") == ("\U0001f600", "\u00e9z")


@pytest.mark.parametrize("text", ["\ud800", "a\udfff", "\udbff\udc00x"])
def test_a_lone_surrogate_is_never_matched(text: str) -> None:
    """UTF-8 cannot hold a lone surrogate: matching one raises, so no caller mistakes it for
    a string that fails (or passes) the pattern."""
    with pytest.raises(UnmatchableText):
        Matcher(".*").search(text)
    with pytest.raises(UnmatchableText):
        Matcher(".*").groups(text)


def test_a_program_over_the_bound_is_refused_with_its_size() -> None:
    r"""`\p{L}{1,64}` compiles to ~75,000 instructions: refused, saying what to write instead."""
    assert refusal(translate(r"^\p{L}+$")) is None
    with pytest.raises(SchemaError) as caught:
        translate(r"^\p{L}{1,64}$")
    assert f"{MAX_PROGRAM_SIZE:,} toolguard runs" in caught.value.message
    assert "maxLength" in caught.value.message


@pytest.mark.parametrize(
    ("source", "needle"),
    [
        ("(?:a{100}){100}", "1000"),
        ("(", "missing )"),
        ("a\\", "trailing \\"),
    ],
)
def test_what_re2_refuses_is_refused_with_its_reason(source: str, needle: str) -> None:
    """RE2's own refusal is passed on, with a hint for repetition counts."""
    why = refusal(source)
    assert why is not None
    assert needle in why


def test_a_source_re2_refuses_raises_a_schema_error_when_run() -> None:
    """A source that never went through `refusal` fails as a schema error, not a crash."""
    with pytest.raises(SchemaError, match="cannot be run by RE2"):
        Matcher("(").search("x")


def test_matchers_compare_by_source() -> None:
    """Two matchers of one source are equal and hash alike (a contract compares its patterns)."""
    assert Matcher("a+") == Matcher("a+")
    assert hash(Matcher("a+")) == hash(Matcher("a+"))
    assert Matcher("a+") != Matcher("a*")
    assert repr(Matcher("a+")) == "Matcher('a+')"
