r"""ECMA-262 patterns -> Python patterns: `translate` keeps ECMA's meaning or refuses the pattern.

Every case is the ECMA-262 answer (what a JSON Schema pattern means), checked with
`re.search`, which is how the compiled validator applies a pattern.
"""

from __future__ import annotations

import re

import pytest

from toolguard.errors import SchemaError
from toolguard.schema.regex import translate

WHERE = "/properties/x/pattern"


def matches(pattern: str, text: str) -> bool:
    return re.search(translate(pattern, WHERE), text) is not None


def case(pattern: str, text: str, expected: bool) -> object:
    return pytest.param(pattern, text, expected, id=f"{pattern} ~ {text!r} -> {expected}")


# --- ECMA-262 meaning, where Python's `re` would read the same text differently ---------------


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case(r"^\d$", "7", True),
        case(r"^\d$", "\u0663", False),  # ARABIC-INDIC DIGIT THREE
        case(r"^\d$", "\u0967", False),  # DEVANAGARI DIGIT ONE
        case(r"^\d$", "\uff11", False),  # FULLWIDTH DIGIT ONE
        case(r"^\D$", "\u0663", True),
        case(r"^\D$", "7", False),
    ],
)
def test_digit_escape_is_ascii_only(pattern: str, text: str, expected: bool) -> None:
    r"""`\d` is [0-9] in ECMA-262; Unicode digits such as Arabic-Indic are not digits."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case("^CR-[0-9]+$", "CR-1", True),
        case("^CR-[0-9]+$", "CR-1\n", False),
        case("^a$", "a\n", False),
        case("a$", "a\nb", False),
        case(r"a\$", "a$", True),
    ],
)
def test_dollar_matches_only_at_the_very_end(pattern: str, text: str, expected: bool) -> None:
    """`$` does not match before a trailing newline, as it does in Python."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case("^.$", "a", True),
        case("^.$", "\t", True),
        case("^.$", "\n", False),
        case("^.$", "\r", False),
        case("^.$", "\u2028", False),
        case("^.$", "\u2029", False),
        case("^[.]$", "x", False),
        case("^[.]$", ".", True),
    ],
)
def test_dot_excludes_every_line_terminator(pattern: str, text: str, expected: bool) -> None:
    r"""`.` matches anything but \n, \r, U+2028 and U+2029 (and `[.]` is a literal dot)."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case(r"^\w+$", "Az09_", True),
        case(r"^\w$", "\u00e9", False),  # é is a letter, but not an ECMA word character
        case(r"^\w$", "\u0663", False),
        case(r"^\W$", "\u00e9", True),
        case(r"^\W$", "a", False),
    ],
)
def test_word_escape_is_ascii_only(pattern: str, text: str, expected: bool) -> None:
    r"""`\w` is [A-Za-z0-9_] in ECMA-262."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    "char",
    [
        "\t",
        "\n",
        "\x0b",
        "\x0c",
        "\r",
        " ",
        "\u00a0",
        "\u1680",
        "\u2000",
        "\u200a",
        "\u2028",
        "\u2029",
        "\u202f",
        "\u205f",
        "\u3000",
        "\ufeff",
    ],
    ids=lambda char: f"U+{ord(char):04X}",
)
def test_space_escape_matches_ecma_whitespace(char: str) -> None:
    r"""`\s` matches every ECMA WhiteSpace and LineTerminator, including U+00A0 and U+FEFF."""
    assert matches(r"^\s$", char)
    assert not matches(r"^\S$", char)


@pytest.mark.parametrize(
    "char", ["\x1c", "\x1d", "\x1e", "\x1f", "\x85", "\u200b"], ids=lambda c: f"U+{ord(c):04X}"
)
def test_space_escape_excludes_python_only_whitespace(char: str) -> None:
    r"""`\s` does not match what only Python calls whitespace (U+001C..U+001F, U+0085, U+200B)."""
    assert not matches(r"^\s$", char)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case(r"^a\b", "a b", True),
        case(r"^a\b", "a\u00e9", True),  # é is not a word character, so there is a boundary
        case(r"^a\B", "a\u00e9", False),
        case(r"^a\b", "ab", False),
    ],
)
def test_word_boundary_is_ascii(pattern: str, text: str, expected: bool) -> None:
    r"""`\b` and `\B` use ECMA's ASCII notion of a word character."""
    assert matches(pattern, text) is expected


def test_backspace_escape_inside_a_class_is_a_backspace() -> None:
    r"""`[\b]` is the backspace character U+0008 in ECMA-262, not a word boundary."""
    assert matches(r"^[\b]$", "\x08")


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case(r"^[\d-]$", "-", True),
        case(r"^[\d-]$", "5", True),
        case(r"^[\d-]$", "\u0663", False),
        case(r"^[\d-]$", "a", False),
        case(r"^[-\d]$", "-", True),
        case(r"^[\d-z]$", "z", True),
        case(r"^[\d-z]$", "-", True),
        case(r"^[\d-z]$", "a", False),
        case(r"^[^\d]$", "\u0663", True),
        case(r"^[\s\d]$", "\u00a0", True),
        case(r"^[\w.]+$", "a.b_1", True),
    ],
)
def test_class_escapes_inside_character_classes(pattern: str, text: str, expected: bool) -> None:
    r"""`\d`, `\s`, `\w` inside `[...]` keep their ECMA meaning; a `-` beside them is literal."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case(r"^[\w-z]$", "-", True),
        case(r"^[\w-z]$", "`", False),  # U+0060 lies between "_" and "z"
        case(r"^[!-\d]$", "-", True),
        case(r"^[!-\d]$", "#", False),  # U+0023 lies between "!" and "0"
    ],
)
def test_dash_next_to_a_class_escape_is_never_a_range(
    pattern: str, text: str, expected: bool
) -> None:
    r"""ECMA (Annex B) reads `[\w-z]` as \w, "-" and "z": the dash never forms a range."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case("[]", "", False),
        case("[]", "a", False),
        case("^[]*$", "", True),
        case("^[^]$", "\n", True),
        case("^[^]$", "\u2028", True),
        case("^[^]$", "a", True),
        case("^[^]$", "", False),
    ],
)
def test_empty_and_negated_empty_classes(pattern: str, text: str, expected: bool) -> None:
    """`[]` matches nothing and `[^]` matches any one character, line terminators included."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case("^[[]$", "[", True),
        case("^[a&&b]$", "&", True),
        case("^[a||b]$", "|", True),
        case("^[a~~b]$", "~", True),
    ],
)
def test_python_set_operators_are_literal_in_a_class(
    pattern: str, text: str, expected: bool
) -> None:
    """`[`, `&&`, `||` and `~~` inside a class are plain characters, as ECMA-262 reads them."""
    assert matches(pattern, text) is expected


def test_named_group_syntax_is_translated() -> None:
    """`(?<name>...)` is an ECMA named group and becomes a Python named group."""
    compiled = re.compile(translate("^(?<year>[0-9]{4})-(?<n>[0-9]+)$", WHERE))
    match = compiled.search("2026-42")
    assert match is not None
    assert match.group("year", "n") == ("2026", "42")


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case("^(?:ab)+$", "abab", True),
        case("^a(?=b)", "ab", True),
        case("^a(?!b)", "ab", False),
        case("(?<=x)a", "xa", True),
        case("(?<!x)a", "xa", False),
        case(r"^\u0041\x42$", "AB", True),
        case(r"^[\u0041-\u0043]+$", "ABC", True),
        case(r"^\/\-$", "/-", True),
        case(r"^a{2}$", "aa", True),
        case(r"^a{2,}?$", "aaa", True),
    ],
)
def test_shared_syntax_keeps_its_meaning(pattern: str, text: str, expected: bool) -> None:
    """Groups, lookarounds, back-references, hex/unicode escapes and quantifiers carry over."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case("^a{,2}$", "a{,2}", True),
        case("^a{,2}$", "", False),
        case("^a{,2}$", "aa", False),
    ],
)
def test_brace_without_a_lower_bound_is_literal(pattern: str, text: str, expected: bool) -> None:
    """ECMA (Annex B) reads `a{,2}` as the literal text "a{,2}"; Python reads it as `a{0,2}`."""
    assert matches(pattern, text) is expected


def test_translation_result_is_a_string_python_compiles() -> None:
    """`translate` returns Python pattern text that `re` compiles."""
    assert isinstance(re.compile(translate(r"^[\w.-]+@\d{1,3}$", WHERE)), re.Pattern)


# --- Refusals: constructs whose meaning cannot be carried over --------------------------------


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param("(?i)abc", id="inline flag (?i)"),
        pytest.param("(?i:abc)", id="scoped flag (?i:)"),
        pytest.param("(?P<x>a)", id="python named group (?P<x>)"),
        pytest.param("(?P=x)", id="python named backref (?P=x)"),
        pytest.param("(?#comment)", id="comment group"),
        pytest.param("(?>a)", id="atomic group"),
        pytest.param("(a)?(?(1)b|c)", id="conditional group"),
        pytest.param("a++", id="possessive a++"),
        pytest.param("a*+", id="possessive a*+"),
        pytest.param("a?+", id="possessive a?+"),
        # ECMA: a backreference to a group that did not take part matches empty; Python fails.
        pytest.param(r"^(?:(a)|b)(?!\1)", id="backreference"),
        pytest.param("a{2}+", id="possessive a{2}+"),
        pytest.param(r"\Aabc", id=r"\A"),
        pytest.param(r"abc\Z", id=r"\Z"),
        pytest.param(r"abc\z", id=r"\z"),
        pytest.param("abc\\", id="lone trailing backslash"),
        pytest.param("[abc", id="unterminated class"),
        pytest.param("[^abc", id="unterminated negated class"),
        pytest.param(r"\u12", id=r"\u12 incomplete"),
        pytest.param(r"\u12G4", id=r"\u with a non-hex digit"),
        pytest.param(r"\x4", id=r"\x4 incomplete"),
        pytest.param(r"\u{41}", id=r"\u{...} code point escape"),
        pytest.param(r"\p{L}", id=r"\p{L} property escape"),
        pytest.param(r"(?<n>a)\k<n>", id=r"\k named backref"),
        pytest.param(r"\cJ", id=r"\c control escape"),
        pytest.param(r"\N{DIGIT ONE}", id=r"\N named character"),
        pytest.param(r"[\D]", id=r"\D inside a class"),
        pytest.param("(abc", id="unbalanced parenthesis"),
        pytest.param("*a", id="nothing to repeat"),
    ],
)
def test_untranslatable_pattern_is_refused(pattern: str) -> None:
    """A construct ECMA-262 lacks, or reads differently, raises SchemaError at the pattern."""
    with pytest.raises(SchemaError) as caught:
        translate(pattern, WHERE)
    assert caught.value.field == WHERE


def test_refusal_message_quotes_the_pattern() -> None:
    """The refusal names the offending pattern so the schema author can find it."""
    with pytest.raises(SchemaError, match="maxLenght"):
        translate("(?i)maxLenght", WHERE)


def test_surrogate_pair_escape_is_one_character() -> None:
    r"""`\uD83D\uDE00` is the one character U+1F600, in and outside classes (no false reject,
    which under `not` would be a false accept)."""
    assert re.fullmatch(translate(r"\uD83D\uDE00"), "\U0001f600")
    assert re.fullmatch(translate(r"[\uD83D\uDE00]"), "\U0001f600")


@pytest.mark.parametrize("pattern", [r"\uD83D", r"\uDE00", r"\uD83Dx", r"\uDE00\uD83D"])
def test_lone_surrogate_escape_is_refused(pattern: str) -> None:
    """A lone or reversed surrogate escape matches no code-point string: refused."""
    with pytest.raises(SchemaError):
        translate(pattern)
