r"""ECMA-262 patterns -> RE2 patterns: `translate` keeps ECMA's meaning or refuses the pattern.

Every case is the ECMA-262 answer (what a JSON Schema pattern means), checked with
`Matcher.search`, which is how the compiled validator applies a pattern. The differential
tests at the end hold RE2 to Python's `re` on the patterns both read alike.
"""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import REGEX_TEXT, shared_regexes

from toolguard.errors import SchemaError
from toolguard.schema.matcher import Matcher, refusal
from toolguard.schema.regex import is_ecma_pattern, python_reading, translate, translate_groups

WHERE = "/properties/x/pattern"


def matches(pattern: str, text: str) -> bool:
    return Matcher(translate(pattern, WHERE)).search(text)


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


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case(r"\B", "a\u00e91", False),  # a boundary between every two characters
        case(r"\B", "a\U0001f6001", False),
        case(r"\B", "\u00e9\u00e9", True),  # two non-word characters: no boundary between
        case(r"\B", "\u00e9", True),  # nor between the start and a non-word character
        case(r"\B", "", True),
        case(r"x?\B", "a\u00e91", False),
        case(r"\B|z", "a\u00e91", False),
        case(r"(?:)\B(?:)", "a\u00e9\u00e91", True),
        case(r"\\B", "a\u00e91", False),  # an escaped backslash, then B: no assertion
        case(r"\\B", "\u00e9\\B", True),
    ],
)
def test_non_boundary_is_judged_between_characters_only(
    pattern: str, text: str, expected: bool
) -> None:
    r"""`\B` is tried only where ECMA-262 tries it: between characters, never inside one.

    RE2 matches UTF-8 and its unanchored search starts anywhere, inside a character's bytes
    too, where two non-word bytes made `\B` hold: `{"pattern": "\\B"}` accepted "a\u00e91".
    """
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
        case(r"^[^\d]$", "\u0663", True),
        case(r"^[\D]$", "\u0663", True),
        case(r"^[\D]$", "3", False),
        case(r"^[\W\d]$", "3", True),
        case(r"^[\W\d]$", "a", False),
        case(r"^[^\S]$", "\u00a0", True),
        case(r"^[\s\d]$", "\u00a0", True),
        case(r"^[\w.]+$", "a.b_1", True),
    ],
)
def test_class_escapes_inside_character_classes(pattern: str, text: str, expected: bool) -> None:
    r"""Class escapes inside `[...]` keep their ECMA meaning; a `-` beside them is literal."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize("pattern", [r"^[\w-z]$", r"^[!-\d]$", r"[\s-\d]", r"[\p{L}-z]"])
def test_dash_between_a_class_escape_and_a_character_is_refused(pattern: str) -> None:
    r"""`[\w-z]` is a SyntaxError with the `u` flag (Annex B would read \w, "-", "z")."""
    assert not is_ecma_pattern(pattern)
    with pytest.raises(SchemaError, match="class escape"):
        translate(pattern, WHERE)


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


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case("^(?:ab)+$", "abab", True),
        case(r"^\u0041\x42$", "AB", True),
        case(r"^[\u0041-\u0043]+$", "ABC", True),
        case(r"^\/[\-]$", "/-", True),
        case(r"^\cJ$", "\n", True),
        case(r"^\cj$", "\n", True),
        case(r"^[\cA-\cC]+$", "\x01\x03", True),
        case(r"^\u{1F600}$", "\U0001f600", True),
        case(r"^\0$", "\x00", True),
        case(r"^[^]$", "\n", True),
        case(r"^a{2}$", "aa", True),
        case(r"^a{2,}?$", "aaa", True),
        case(r"^a{1000}$", "a" * 1000, True),
        case(r"^a{1000}$", "a" * 999, False),
        case(r"^(?:a{0010}){0100}$", "a" * 1000, True),
    ],
)
def test_shared_syntax_keeps_its_meaning(pattern: str, text: str, expected: bool) -> None:
    """Groups, hex/unicode escapes and quantifiers (counts up to RE2's 1000) carry over."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize("char", sorted("^$\\.*+?()[]{}|/-"))
def test_an_escaped_syntax_character_matches_itself_only(char: str) -> None:
    r"""`\.` is a dot, not any character; so in a class; every syntax character likewise."""
    for pattern in (f"^\\{char}$", f"^[\\{char}]$"):
        if char == "-" and not pattern.startswith("^["):
            continue  # outside a class, `\-` is no escape in Unicode mode
        assert matches(pattern, char), pattern
        assert not matches(pattern, "x"), pattern


def test_translation_result_is_a_string_re2_runs() -> None:
    """`translate` returns ASCII RE2 pattern text that RE2 runs within toolguard's bounds."""
    translated = translate(r"^[\w.-]+@\d{1,3}\u00e9$", WHERE)
    assert translated.isascii()
    assert refusal(translated) is None


def test_named_groups_are_read_by_position() -> None:
    """`translate_groups` names each group in order; `Matcher.groups` reads them by position."""
    translated, names = translate_groups(r"^(?<year>[0-9]{4})-(?<$n>[0-9]+)(x)?$", WHERE)
    assert names == ("year", "$n", None)
    assert Matcher(translated).groups("2026-42") == ("2026", "42", None)
    assert Matcher(translated).groups("2026-4a") is None


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
        pytest.param(r"^(a)\1", id="backreference"),
        pytest.param("^a(?=b)", id="lookahead"),
        pytest.param("^a(?!b)", id="negative lookahead"),
        pytest.param("(?<=x)a", id="lookbehind"),
        pytest.param("(?<!x)a", id="negative lookbehind"),
        pytest.param("a{1001}", id="count over 1000"),
        pytest.param("a{0,1001}", id="upper count over 1000"),
        pytest.param("a{1001,}", id="open count over 1000"),
        pytest.param("(?:a{100}){11}", id="nested counts over 1000 in all"),
        pytest.param("(?:[a-z]{1,63}\\.){1,127}", id="hostname-like nested counts"),
        pytest.param(r"\p{L}{1,64}", id="program over the size bound"),
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
        pytest.param(r"(?<n>a)\k<n>", id=r"\k named backref"),
        pytest.param(r"\N{DIGIT ONE}", id=r"\N named character"),
        pytest.param(r"\p{Script=Greek}", id=r"\p{Script=...} (no Script data)"),
        pytest.param(r"\p{Alphabetic}", id=r"\p{Alphabetic} (no data)"),
        pytest.param(r"\p{NoSuchProperty}", id=r"\p unknown property"),
        pytest.param(r"(?<=a+)b", id="variable-width lookbehind"),
        pytest.param(r"a{,2}", id="brace without a lower bound"),
        pytest.param(r"\-", id="escaped dash outside a class"),
        pytest.param(r"\a", id=r"\a identity escape"),
        pytest.param(r"a{2,1}", id="quantifier out of order"),
        pytest.param(r"(?=a)*", id="quantified lookahead"),
        pytest.param(r"(?<n>a)(?<n>b)", id="duplicate group name"),
        pytest.param(r"(a)\2", id="backreference to a missing group"),
        pytest.param(r"\01", id="octal escape"),
        pytest.param("a{99999999999999999999}", id="count RE2 would read as text"),
        pytest.param("(" * 150 + ")" * 150, id="groups nested 150 deep"),
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
    assert Matcher(translate(r"\uD83D\uDE00")).fullmatch("\U0001f600")
    assert Matcher(translate(r"[\uD83D\uDE00]")).fullmatch("\U0001f600")


@pytest.mark.parametrize("pattern", [r"\uD83D", r"\uDE00", r"\uD83Dx", r"\uDE00\uD83D"])
def test_lone_surrogate_escape_is_refused(pattern: str) -> None:
    """A lone or reversed surrogate escape matches no code-point string: refused."""
    with pytest.raises(SchemaError):
        translate(pattern)


@pytest.mark.parametrize(
    ("pattern", "text", "expected"),
    [
        case(r"^\p{L}+$", "h\u00e9llo", True),
        case(r"^\p{Letter}+$", "\u0436\u4e2d", True),
        case(r"^\p{L}$", "1", False),
        case(r"^\P{L}$", "1", True),
        case(r"^\p{Lu}$", "A", True),
        case(r"^\p{gc=Lu}$", "a", False),
        case(r"^\p{General_Category=Nd}$", "\u0663", True),
        case(r"^[\p{Nd}_]+$", "\u0663_7", True),
        case(r"^[^\p{N}]$", "7", False),
        case(r"^[\P{L}]$", "\u00e9", False),
        case(r"^\p{digit}$", "\uff11", True),
        case(r"^\p{ASCII}+$", "abc~", True),
        case(r"^\p{ASCII}$", "\u00e9", False),
        case(r"^\p{Any}$", "\U0010ffff", True),
        case(r"^\p{Assigned}$", "\U0010ffff", False),
        case(r"^\p{Cn}$", "\U0010ffff", True),
    ],
)
def test_unicode_property_escapes(pattern: str, text: str, expected: bool) -> None:
    r"""`\p{...}`/`\P{...}` take General_Category from `unicodedata`, in and out of classes."""
    assert matches(pattern, text) is expected


@pytest.mark.parametrize(
    ("pattern", "valid"),
    [
        (r"(?<n>a)\k<n>", True),
        (r"(a)\1", True),
        (r"(?<=a+)b", True),
        (r"\p{Alphabetic}", True),
        (r"a{99999999999999999999}", True),
        (r"^a(?=b)", True),
        (r"\p{L}{1,64}", True),
        (r"\cA", True),
        (r"[]", True),
        (r"\uD800", True),
        (r"\k<n>", False),
        (r"\a", False),
        (r"(?P<n>x)", False),
        (r"(?i)abc", False),
        (r"(?#comment)a", False),
        (r"^(abc]", False),
        (r"\p{Script=NoSuchScript}", False),
        (r"\p{Script=Greek}", True),
        (r"[\P{sc=Latn}\p{scx=Kawi}]", True),
        (r"\p{Greek}", False),
        (r"\c1", False),
        pytest.param("\\c\u00e9", False, id="\\c with a letter past ASCII"),
        pytest.param(r"a{9,10}", True, id="{9,10}: counts compare as numbers, not text"),
        pytest.param(r"a{10,9}", False, id="{10,9}"),
        (r"\u{110000}", False),
        ("(" * 1000, False),
    ],
)
def test_ecma_pattern_syntax_is_checked_apart_from_translation(pattern: str, valid: bool) -> None:
    """The `regex` format asks only whether the text is ECMA-262, not whether re can run it."""
    assert is_ecma_pattern(pattern) is valid


@pytest.mark.parametrize(
    ("pattern", "valid"),
    [
        pytest.param(r"(?<\u0061bc>x)", True, id="escaped first letter"),
        pytest.param(r"(?<a\u0062>x)", True, id="escaped later letter"),
        pytest.param(r"(?<\u{61}>x)", True, id=r"\u{...} escape"),
        pytest.param(r"(?<\u{1D4D1}>x)", True, id=r"astral letter as \u{...}"),
        pytest.param(r"(?<\uD835\uDCD1>x)", True, id="astral letter as a surrogate pair"),
        pytest.param("(?<\U0001d4d1>x)", True, id="astral letter written as is"),
        pytest.param(r"(?<$>x)", True, id="$ alone"),
        pytest.param(r"(?<$a>x)", True, id="$ first"),
        pytest.param(r"(?<\u0024>x)", True, id="escaped $"),
        pytest.param(r"(?<_1>x)", True, id="_ then a digit"),
        pytest.param("(?<a\u200cb\u200d>x)", True, id="ZWNJ and ZWJ after the first"),
        pytest.param(r"(?<a\u200C>x)", True, id="escaped ZWNJ after the first"),
        pytest.param("(?<\u037a>x)", True, id="U+037A: ID_Start, not XID_Start"),
        pytest.param("(?<a\u00b7>x)", True, id="U+00B7: Other_ID_Continue"),
        pytest.param("(?<\u2118>x)", True, id="U+2118: Other_ID_Start"),
        pytest.param("(?<a\u0301>x)", True, id="a combining mark after the first"),
        pytest.param("(?<\u03c0>x)", True, id="Greek letter"),
        pytest.param(r"(?<a>x)\k<\u0061>", True, id=r"\k<...> with an escape names the group"),
        pytest.param(r"(?<\u0061>x)\k<a>", True, id=r"\k<...> plain, the group escaped"),
        pytest.param(r"(?<\u{1F600}>x)", False, id=r"an emoji (So) as \u{...}"),
        pytest.param("(?<\U0001f98a>x)", False, id="an emoji written as is"),
        pytest.param("(?<\u2e2f>x)", False, id="U+2E2F: Lm but Pattern_Syntax"),
        pytest.param("(?<\u200c>x)", False, id="ZWNJ first"),
        pytest.param(r"(?<\u200D>x)", False, id="escaped ZWJ first"),
        pytest.param("(?<\u0301>x)", False, id="a combining mark first"),
        pytest.param(r"(?<1a>x)", False, id="a digit first"),
        pytest.param(r"(?<\u0031>x)", False, id="an escaped digit first"),
        pytest.param(r"(?<a-b>x)", False, id="a hyphen"),
        pytest.param(r"(?<\uD835>x)", False, id="a lone surrogate escape"),
        pytest.param(r"(?<\u{110000}>x)", False, id=r"\u{...} past U+10FFFF"),
        pytest.param(r"(?<\x61>x)", False, id=r"\x escape"),
        pytest.param(r"(?<\a>x)", False, id="identity escape"),
        pytest.param(r"(?<>x)", False, id="empty name"),
        pytest.param(r"(?<ab", False, id="unterminated name"),
        pytest.param(r"(?<a>x)(?<\u0061>y)", False, id="duplicate name, one escaped"),
        pytest.param(r"(?<a>x)\k<\u0062>", False, id=r"\k<...> naming no group"),
        pytest.param(r"(?<a>x)\k<\u0061", False, id=r"\k<...> unterminated"),
    ],
)
def test_group_names_are_ecma_identifier_names(pattern: str, valid: bool) -> None:
    r"""A group name is ECMA-262's RegExpIdentifierName: ID_Start, `$` or `_`, then ID_Continue,
    `$`, ZWNJ or ZWJ, each written as is or as a `\u` escape of one (never Python's rules)."""
    assert is_ecma_pattern(pattern) is valid


def test_escaped_group_names_are_decoded() -> None:
    r"""`translate_groups` gives each name's value (`\u0061b` is `ab`) and matches as unnamed."""
    translated, names = translate_groups(r"^(?<\u0061b>[0-9]+)-(?<\u{1D4D1}>x)(?<$\u200C>y)$")
    assert names == ("ab", "\U0001d4d1", "$\u200c")
    assert Matcher(translated).groups("12-xy") == ("12", "x", "y")


@given(st.text(alphabet="()[]{}^$\\.*+?|-,<>=!:abkpPuUxcdDwWsSbB019L", max_size=24))
def test_any_text_gets_a_defined_answer(pattern: str) -> None:
    """Hostile pattern text never crashes: an RE2 pattern that runs, or a SchemaError."""
    valid = is_ecma_pattern(pattern)
    try:
        translated = translate(pattern, WHERE)
    except SchemaError:
        return
    assert valid
    assert refusal(translated) is None
    Matcher(translated).search("abc")


# --- Groups read by `[text]`: only where ECMA-262 and RE2 give the same value ------------------


@pytest.mark.parametrize(
    "pattern",
    [
        pytest.param(r"^(?:(?<a>x)|y)+$", id="group in an alternation under +"),
        pytest.param(r"^(?<a>x)*$", id="group under *"),
        pytest.param(r"^(?<a>x){2}$", id="group under {2}"),
        pytest.param(r"^(?:(?<a>x)y){1,3}$", id="group inside a counted repetition"),
        pytest.param(r"^(?<a>x*)?$", id="optional group that can match empty"),
        pytest.param(r"^(?:(?<a>x)|)??$", id="lazy optional group that can match empty"),
        pytest.param(r"^(?<a>\b)?x$", id="optional group holding only a boundary"),
    ],
)
def test_a_group_whose_value_re2_would_not_give_as_ecma_does_is_refused(pattern: str) -> None:
    """ECMA-262 clears a group on each repetition and leaves it unset after an empty optional
    pass; RE2 does neither, so a pattern whose groups are read refuses those shapes."""
    with pytest.raises(SchemaError, match="group"):
        translate_groups(pattern, WHERE)
    assert refusal(translate(pattern, WHERE)) is None  # matching alone is unaffected


@pytest.mark.parametrize(
    ("pattern", "text", "groups"),
    [
        (r"^(?<a>x)?y$", "y", (None,)),
        (r"^(?<a>x)?y$", "xy", ("x",)),
        (r"^(?<a>x){1}(?<b>y){0}$", "x", ("x", None)),
        (r"^(?<a>[0-9]+)(?:,[0-9]+)*$", "12,3,4", ("12",)),
        (r"^(?<a>.*?)(?<b>\d*)$", "ab12", ("ab", "12")),
        (r"^(?<a>.*)(?<b>\d*)$", "ab12", ("ab12", "")),
        (r"^(?<a>a|ab)(?<b>c|bcd)$", "abcd", ("a", "bcd")),
    ],
)
def test_groups_take_the_value_ecma_gives(
    pattern: str, text: str, groups: tuple[str | None, ...]
) -> None:
    """Optional groups, lazy and greedy parts and alternatives capture as ECMA-262's
    backtracking order says (leftmost, first alternative first)."""
    translated, _ = translate_groups(pattern, WHERE)
    assert Matcher(translated).groups(text) == groups


# --- RE2 against Python's re, on patterns both read alike ------------------------------------


@settings(max_examples=400, deadline=None)
@given(shared_regexes(), st.text(alphabet=REGEX_TEXT, min_size=1, max_size=8))
def test_re2_finds_what_python_re_finds(pattern: str, text: str) -> None:
    """On patterns ECMA-262 and Python's `re` read alike, the RE2 translation matches where
    `re.search` does and, for a whole-text match, its groups hold what `re` captures."""
    try:
        expected = re.search(pattern, text)
    except re.error:
        return  # a repeated assertion Python refuses
    assert is_ecma_pattern(pattern)
    assert matches(pattern, text) is (expected is not None)
    translated, refused = _groups_or_refusal(pattern)
    if refused:
        assert "group" in refused  # a group ECMA-262 and RE2 would fill differently
        return
    full = re.fullmatch(pattern, text)
    assert Matcher(translated).groups(text) == (full.groups() if full else None)


def _groups_or_refusal(pattern: str) -> tuple[str, str]:
    try:
        return translate_groups(pattern, WHERE)[0], ""
    except SchemaError as exc:
        return "", exc.message


@pytest.mark.parametrize(
    ("pattern", "reading"),
    [
        (r"^\d+$", "looser"),  # Python's `\d` is any Unicode digit: more than [0-9]
        (r"[\w.]", "looser"),
        (r"[^\d]", "other"),  # a negated looser class is narrower: not a superset
        (r"[^a\w]", "other"),
        (r"\s", "other"),  # Python's and ECMA's whitespace differ both ways
        (r"\bx", "other"),
        (r"[\b]", "same"),  # a backspace to both
        (r"\.\/", "same"),
    ],
)
def test_python_reading_judges_each_escape(pattern: str, reading: str) -> None:
    """A looser escape in a negated class makes the reading "other", not "looser"."""
    assert python_reading(pattern) == reading


@pytest.mark.parametrize(
    ("pattern", "reading"),
    [
        ("[[a]", "other"),  # a nested set, to Python's FutureWarning
        ("[a&&b]", "other"),
        ("[a||b]", "other"),
        ("[a~~b]", "other"),
        ("[+--]", "other"),  # a range ending in `-`, then `-`: a set difference to Python
        ("[^[a]", "same"),  # Python warns only of `[` right after the opening one
        ("^[a-z]+$", "looser"),
        ("^ab$", "looser"),
        ("a", "same"),
    ],
)
def test_python_reading_leaves_the_warning_filters_alone(
    pattern: str, reading: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """No warning is shown, and the process's filters (shared by its threads) are never swapped."""

    def shared(*args: object, **kwargs: object) -> None:
        raise AssertionError("the warning filters are the whole process's")

    with warnings.catch_warnings(record=True) as shown:
        warnings.simplefilter("always")
        for name in ("catch_warnings", "simplefilter", "filterwarnings", "resetwarnings"):
            monkeypatch.setattr(warnings, name, shared)
        assert python_reading(pattern) == reading
        monkeypatch.undo()
    assert shown == []


_LONE = "lone surrogate escape (U+{}), refused: no UTF-8 text holds one"
_EDITION = "ECMA-262 11th edition (ES2020), the one JSON Schema 2020-12 cites,"


@pytest.mark.parametrize(
    ("pattern", "message"),
    [
        pytest.param(r"\uD83D\u{DE00}", _LONE.format("D83D"), id=r"\u{...} never pairs"),
        pytest.param(r"\u{D83D}\uDE00", _LONE.format("D83D"), id=r"nor does it lead a pair"),
        pytest.param(r"\uDE00\uD83D", _LONE.format("DE00"), id="a reversed pair"),
        pytest.param(r"[\uD83D-\uDE00]", _LONE.format("D83D"), id="a range of surrogates"),
        pytest.param("x\ud83d", "a lone surrogate (U+D83D), refused", id="one written as is"),
        pytest.param(r"\uD83D\uZZZZ", r"\u without 4 hex digits or {...}", id=r"bad \u after"),
        pytest.param(r"\u12", r"\u without 4 hex digits or {...}", id=r"\u short"),
        pytest.param(r"\x{41}", r"\x without 2 hex digits", id=r"\x with braces"),
        pytest.param(r"\u{41", r"an unterminated \u{...}", id=r"\u{ unterminated"),
        pytest.param(r"\u{}", r"\u{} without hex digits", id=r"\u{} empty"),
        pytest.param(r"\u{4G}", r"\u{...} holding other than hex digits", id=r"\u{ not hex"),
        pytest.param(r"\u{110000}", r"\u{...} beyond U+10FFFF", id=r"\u{ too high"),
        pytest.param(r"\p{Lu", r"an unterminated \p{...}", id=r"\p{ unterminated"),
        pytest.param(r"\pL", r"\p without a {property}", id=r"\p without braces"),
        pytest.param(r"[\B]", r"\B is not an escape in a class in Unicode mode", id=r"[\B]"),
        pytest.param(r"[\1]", r"\1 is not an escape in a class", id=r"[\1]"),
        pytest.param(r"\q", r"\q is not an escape in Unicode mode", id=r"\q"),
        pytest.param(r"(?<a>x)|(?<a>y)", f"the group name 'a' twice: {_EDITION}", id="ES2025 dup"),
        pytest.param(r"(?<a>x)(?<\u0061>y)", "the group name 'a' twice", id="duplicate"),
        pytest.param(r"(?i:a)", f"a modifier group such as (?i:...), which {_EDITION}", id="(?i:"),
        pytest.param(r"(?-m:a)", "a modifier group", id="(?-m:"),
        pytest.param(r"(?i)a", "a group syntax ECMA-262 does not have", id="(?i)"),
        pytest.param(r"(?<a>x)\k<a", "an unterminated group name", id=r"\k<a"),
        pytest.param(r"a{2,1}", "a quantifier whose numbers are out of order", id="{2,1}"),
        pytest.param(r"a{1001}", "repeats {1001}: RE2 repeats at most 1000 times", id="{1001}"),
        pytest.param(r"a{0,1001}", "repeats {0,1001}: RE2", id="{0,1001}"),
    ],
)
def test_a_refusal_names_its_cause(pattern: str, message: str) -> None:
    """Each refusal says what is wrong with the pattern, not a neighbouring cause."""
    with pytest.raises(SchemaError, match=re.escape(message)):
        translate(pattern, WHERE)


@pytest.mark.parametrize(
    ("pattern", "valid"),
    [
        (r"\uD83D\u{DE00}", True),
        (r"\u{D83D}\uDE00", True),
        (r"\uD83D\uDE00", True),
        (r"(?<a>x)|(?<a>y)", False),
        (r"(?i:a)", False),
    ],
)
def test_the_regex_format_reads_the_edition_json_schema_cites(pattern: str, valid: bool) -> None:
    r"""`\uD83D\u{DE00}` is two lone surrogates, valid ECMA-262 that a schema cannot use; ES2025
    syntax (duplicate names in separate alternatives, modifier groups) is not 11th edition."""
    assert is_ecma_pattern(pattern) is valid
