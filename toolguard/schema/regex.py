r"""ECMA-262 patterns -> RE2 patterns with the same meaning, or a `SchemaError`.

JSON Schema patterns are ECMA-262 regular expressions, read with the `u` flag as ajv and the
spec's own tests do. They run on response data, so they run on RE2 (see `matcher.py`): time
linear in the input, whatever the pattern. Every pattern is parsed here by the ECMA-262 grammar
and re-emitted in RE2's syntax with explicit code point ranges (`\d` is [0-9], `$` is the very
end, `.` excludes all four line terminators); a construct whose meaning we cannot carry over,
or that RE2 cannot run in linear time (lookaround, backreferences), is refused rather than
guessed. `is_ecma_pattern` answers the narrower question the `regex` format asks: is this text
valid ECMA-262 at all? `python_reading` answers
the one a schema published to other validators raises: does Python read the text as written?
"""

from __future__ import annotations

import re

from toolguard.errors import SchemaError
from toolguard.schema import charsets
from toolguard.schema.charsets import Ranges
from toolguard.schema.matcher import Matcher, refusal

TYPE_CHECKING = False  # NOTE: a text contract translates its patterns on every load
if TYPE_CHECKING:
    from typing import Literal, NoReturn

_SYNTAX = frozenset("^$\\.*+?()[]{}|/")
_SET_OPERATORS = frozenset("-&~|")  # doubled in a class: `re`'s FutureWarning
_CONTROL = {"f": 0x0C, "n": 0x0A, "r": 0x0D, "t": 0x09, "v": 0x0B}
_CLASS_ESCAPES = {"d": charsets.DIGIT, "w": charsets.WORD, "s": charsets.SPACE}
_QUANTIFIER = re.compile(r"\{([0-9]+)(,?)([0-9]*)\}")
_LOOKAROUNDS = ("(?=", "(?!", "(?<=", "(?<!")
_MAX_NESTING = 100  # six Python frames per level: well inside the recursion limit
_PLAIN = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_IDENTIFIER_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$_")
MAX_COUNT = 1000  # RE2's largest repetition count
_TOO_MANY = "RE2 repeats at most 1000 times; bound the length with minLength/maxLength instead"
_REPEATED_GROUP = "which ECMA-262 clears on every repetition and RE2 does not: put it outside"
_EMPTY = "which ECMA-262 then leaves unset and RE2 sets to an empty string"
_LOOKAROUND = "uses a lookaround assertion, which RE2 does not run (it is linear-time only without)"
_HEX = frozenset("0123456789abcdefABCDEF")
# NOTE: JSON Schema 2020-12 cites ECMA-262's 11th edition (ES2020); what later editions add to
# the grammar (ES2025's modifier groups and duplicate group names) is not valid there.
_EDITION = "ECMA-262 11th edition (ES2020), the one JSON Schema 2020-12 cites,"
_MODIFIERS = re.compile(r"\(\?[a-zA-Z]*-?[a-zA-Z]*:")


# Escapes Python's `re` reads exactly as ECMA-262 does, and those it reads more loosely.
_SAME_ESCAPE = re.compile(
    r"\\(?:[tnrfv]|0(?![0-9])|x[0-9A-Fa-f]{2}|u(?![dD][89a-fA-F])[0-9A-Fa-f]{4}|[\^$\\.*+?()\[\]{}|/])"
)
_LOOSER_ESCAPES = ("\\d", "\\w")  # Python: any Unicode digit or word character


class _Invalid(Exception):
    """The text is not an ECMA-262 pattern."""


def translate(pattern: str, where: str = "") -> str:
    """Return an RE2 pattern that matches exactly what the ECMA-262 `pattern` matches."""
    return _translate(pattern, where, captures=False)[0]


def translate_groups(pattern: str, where: str = "") -> tuple[str, tuple[str | None, ...]]:
    """`translate` for a pattern whose groups are read, and the name of each in order.

    Groups are emitted unnamed (ECMA names may hold `$`, RE2's cannot): group `i + 1` of a
    match is the one named `names[i]` (None where unnamed). A group inside a repetition is
    refused here: ECMA-262 clears it on every repetition, RE2 keeps the last value it took.
    """
    return _translate(pattern, where, captures=True)


def _translate(pattern: str, where: str, *, captures: bool) -> tuple[str, tuple[str | None, ...]]:
    parser = _Parser(pattern)
    try:
        translated = parser.parse()
    except RecursionError:
        _refuse(pattern, where, "nests too deeply")
    except _Invalid as exc:
        _refuse(pattern, where, f"is not a valid ECMA-262 pattern: {exc}")
    if parser.untranslatable:
        _refuse(pattern, where, parser.untranslatable[0])
    why = refusal(translated)
    if why is not None:
        _refuse(pattern, where, why)
    if captures:
        for atom, optional in parser.quantified_groups:
            if not optional:
                _refuse(pattern, where, "repeats a capturing group, " + _REPEATED_GROUP)
            if Matcher(atom).fullmatch("") or "\\b" in atom:
                _refuse(pattern, where, "makes optional a group that can match empty, " + _EMPTY)
    return translated, tuple(parser.group_names)


def is_ecma_pattern(text: str) -> bool:
    """Whether `text` is a valid ECMA-262 pattern (`u` flag), whether or not RE2 can run it."""
    try:
        _Parser(text).parse()
    except (_Invalid, RecursionError):
        return False
    return True


def python_reading(pattern: str) -> Literal["same", "looser", "other"]:
    r"""How Python's `re.search` reads a valid ECMA-262 `pattern` written as is.

    python-jsonschema does just that. The answer: exactly as ECMA-262 does; more loosely (a
    superset: `\d`, `\w`, `.` and `$` outside negated classes); or otherwise (a syntax error, a
    warning, or a meaning that differs both ways, as `\s`, `\b` or `[^\d]` do). Conservative:
    "other" when unsure.
    """
    looser = False
    at, in_class, negated = 0, False, False
    while at < len(pattern):
        char = pattern[at]
        if char == "\\":
            if (escape := _SAME_ESCAPE.match(pattern, at)) is not None:
                at = escape.end()
                continue
            pair = pattern[at : at + 2]
            if in_class and pair in ("\\-", "\\b"):
                at += 2
                continue
            if pair not in _LOOSER_ESCAPES or (in_class and negated):
                return "other"
            looser, at = True, at + 2
            continue
        if in_class:
            if char in _SET_OPERATORS and pattern.startswith(char, at + 1):
                return "other"  # `--`, `&&`, `~~`, `||`: set operations Python warns of
            in_class = char != "]"
        elif char == "[":
            if pattern.startswith("[", at + 1):
                return "other"  # `[[`: a nested set Python warns of
            negated = pattern.startswith("^", at + 1)
            if pattern.startswith("]", at + 1 + negated):
                return "other"  # `[]` and `[^]`: Python reads a `]` there as a member
            in_class, at = True, at + negated
        elif char == "(" and pattern.startswith("(?", at):
            if not pattern.startswith(("(?:", "(?=", "(?!"), at):
                return "other"  # lookbehind (Python's must be fixed-width), named groups
        elif char in ".$":
            looser = True
        at += 1
    # NOTE: no `warnings.catch_warnings`: it swaps the process's filters, which other threads
    # share (two at once could leave every warning an error). The scan above answers "other"
    # for every pattern `re` warns of (its FutureWarning: a set Python may one day read anew);
    # `Warning` is caught for a host that made warnings errors.
    try:
        re.compile(pattern)
    except (re.error, Warning, OverflowError, RecursionError):
        return "other"
    return "looser" if looser else "same"


class _Parser:
    """Recursive descent over ECMA-262 22.2.1 (Patterns, `[+UnicodeMode, +NamedCaptureGroups]`).

    Each method consumes one production and returns its RE2 spelling. A construct that is
    valid ECMA-262 but cannot be carried over is recorded in `untranslatable`, so the same
    parse serves both the `regex` format (syntax only) and `translate` (which refuses it).
    `quantified_groups` holds each quantified atom that has a capturing group, and whether the
    quantifier is a plain `?` (at most once): `translate_groups` judges them.
    """

    def __init__(self, pattern: str) -> None:
        self.pattern = pattern
        self.i = 0
        self.depth = 0
        self.groups = 0
        self.names: set[str] = set()
        self.group_names: list[str | None] = []
        self.backreferences: list[int | str] = []
        self.untranslatable: list[str] = []
        self.quantified_groups: list[tuple[str, bool]] = []

    def parse(self) -> str:
        out = self.disjunction()
        if self.i < len(self.pattern):
            raise _Invalid("unmatched ')'")
        for reference in self.backreferences:
            if isinstance(reference, int) and reference > self.groups:
                raise _Invalid(f"\\{reference} refers to a group that does not exist")
            if isinstance(reference, str) and reference not in self.names:
                raise _Invalid(f"\\k<{reference}> refers to a group that does not exist")
        if self.backreferences:
            # NOTE: no linear-time engine matches backreferences (the problem is NP-hard).
            self.untranslatable.append("uses a backreference, which RE2 does not run")
        return out

    def peek(self, text: str) -> bool:
        return self.pattern.startswith(text, self.i)

    def disjunction(self) -> str:
        self.depth += 1
        if self.depth > _MAX_NESTING:
            raise _Invalid(f"groups nested deeper than {_MAX_NESTING}")
        alternatives = [self.alternative()]
        while self.peek("|"):
            self.i += 1
            alternatives.append(self.alternative())
        self.depth -= 1
        return "|".join(alternatives)

    def alternative(self) -> str:
        terms: list[str] = []
        while self.i < len(self.pattern) and self.pattern[self.i] not in "|)":
            terms.append(self.term())
        return "".join(terms)

    def term(self) -> str:
        """An assertion (never quantified in Unicode mode) or an atom and its quantifier."""
        if self.peek("^"):
            self.i += 1
            return "^"
        if self.peek("$"):
            self.i += 1
            return "\\z"  # the very end: never before a trailing newline
        if self.peek("\\b") or self.peek("\\B"):
            self.i += 2  # RE2's word boundaries are ASCII, as ECMA's are without the `i` flag
            return self.pattern[self.i - 2 : self.i]
        for opener in _LOOKAROUNDS:
            if self.peek(opener):
                self.i += len(opener)
                self.group_body()
                self.untranslatable.append(_LOOKAROUND)
                return "(?:)"
        groups = self.groups
        atom = self.atom()
        quantifier = self.quantifier()
        repeats = _repeats(quantifier)
        if repeats != "once" and self.groups > groups:
            self.quantified_groups.append((atom, repeats == "optional"))
        return atom + quantifier

    def group_body(self) -> str:
        body = self.disjunction()
        if not self.peek(")"):
            raise _Invalid("unterminated group")
        self.i += 1
        return body

    def atom(self) -> str:
        char = self.pattern[self.i]
        if char in "*+?{":
            raise _Invalid(f"{char!r} has nothing to repeat")
        if char in "}]":
            raise _Invalid(f"a lone {char!r}, which Unicode mode does not allow")
        if char == ".":
            self.i += 1
            return emit_class(charsets.LINE_TERMINATOR, negate=True)
        if char == "[":
            self.i += 1
            return self.character_class()
        if char == "(":
            return self.group()
        if char == "\\":
            return self.atom_escape()
        self.i += 1
        return emit_char(self.code_point(ord(char)))

    def group(self) -> str:
        if self.peek("(?:"):
            self.i += 3
            return f"(?:{self.group_body()})"
        if self.peek("(?<"):
            self.i += 3
            name = self.group_name()
            if name in self.names:
                raise _Invalid(
                    f"the group name {name!r} twice: {_EDITION} allows each name once, even in "
                    "separate alternatives (ES2025 allows that; toolguard does not read it)"
                )
            self.names.add(name)
            self.group_names.append(name)
        elif _MODIFIERS.match(self.pattern, self.i):
            raise _Invalid(
                f"a modifier group such as (?i:...), which {_EDITION} does not have (ES2025 "
                "added it; toolguard does not read it)"
            )
        elif self.peek("(?"):
            raise _Invalid("a group syntax ECMA-262 does not have")
        else:
            self.i += 1
            self.group_names.append(None)
        self.groups += 1
        return f"({self.group_body()})"

    def group_name(self) -> str:
        r"""`RegExpIdentifierName >` after its `<`: the name's StringValue, escapes decoded.

        `(?<\u0061>x)` is named `a`, as `(?<a>x)` is: `\k<...>` and duplicates compare these.
        """
        name: list[str] = []
        while not self.peek(">"):
            if self.i >= len(self.pattern):
                raise _Invalid("an unterminated group name")
            if self.peek("\\u"):
                self.i += 2
                code_point = self.unicode_escape()
            elif self.peek("\\"):
                raise _Invalid("an escape other than \\u in a group name")
            else:
                code_point = ord(self.pattern[self.i])
                self.i += 1
            if not _identifier_char(code_point, first=not name):
                where = "start" if not name else "go on with"
                raise _Invalid(f"a group name cannot {where} U+{code_point:04X}")
            name.append(chr(code_point))
        if not name:
            raise _Invalid("an empty group name")
        self.i += 1
        return "".join(name)

    def quantifier(self) -> str:
        char = self.pattern[self.i : self.i + 1]
        if char and char in "*+?":
            self.i += 1
            out = char
        elif char == "{":
            match = _QUANTIFIER.match(self.pattern, self.i)
            if match is None:
                raise _Invalid("'{' that does not start a quantifier")
            low, comma, high = _decimal(match[1]), match[2], _decimal(match[3])
            if high and (len(low), low) > (len(high), high):
                raise _Invalid("a quantifier whose numbers are out of order")
            self.i = match.end()
            out = f"{{{low}{comma}{high}}}"
            if any(len(count) > 4 or int(count) > MAX_COUNT for count in (low, high) if count):
                # NOTE: refused here: RE2 reads a count past 10**8 as literal text, not a count.
                self.untranslatable.append(f"repeats {out}: {_TOO_MANY}")
        else:
            return ""
        if self.peek("?"):
            self.i += 1
            out += "?"
        return out

    def atom_escape(self) -> str:
        letter = self.pattern[self.i + 1 : self.i + 2]
        if letter.isdigit() and letter != "0":
            end = self.i + 1
            while end < len(self.pattern) and self.pattern[end].isdigit():
                end += 1
            self.backreferences.append(int(self.pattern[self.i + 1 : end]))
            self.i = end
            return "(?:)"
        if letter == "k":
            self.i += 2
            if not self.peek("<"):
                raise _Invalid("\\k without a group name")
            self.i += 1
            self.backreferences.append(self.group_name())
            return "(?:)"
        ranges = self.class_escape()
        if ranges is not None:
            return emit_class(ranges)
        return emit_char(self.character_escape(in_class=False))

    def class_escape(self) -> Ranges | None:
        r"""`\d \D \w \W \s \S \p{..} \P{..}` as ranges, or None for another escape."""
        letter = self.pattern[self.i + 1 : self.i + 2]
        if letter.lower() in _CLASS_ESCAPES:
            self.i += 2
            ranges = _CLASS_ESCAPES[letter.lower()]
            return ranges if letter.islower() else charsets.complement(ranges)
        if letter not in ("p", "P"):
            return None
        end = self.pattern.find("}", self.i)
        if not self.pattern.startswith("{", self.i + 2):
            raise _Invalid(f"\\{letter} without a {{property}}")
        if end < 0:
            raise _Invalid(f"an unterminated \\{letter}{{...}}")
        expression = self.pattern[self.i + 3 : end]
        self.i = end + 1
        try:
            ranges = charsets.property_ranges(expression)
        except charsets.UnknownProperty as exc:
            if not exc.valid:
                raise _Invalid(f"unknown property \\{letter}{{{expression}}}") from None
            self.untranslatable.append(
                f"uses \\{letter}{{{expression}}}, which needs data toolguard lacks"
            )
            ranges = ()
        return ranges if letter == "p" else charsets.complement(ranges)

    def character_escape(self, *, in_class: bool) -> int:
        """One code point from an escape that stands for a character."""
        letter = self.pattern[self.i + 1 : self.i + 2]
        start = self.i
        self.i += 2
        if letter in _CONTROL:
            return _CONTROL[letter]
        if letter == "c":
            control = self.pattern[self.i : self.i + 1]
            if not (control.isascii() and control.isalpha()):
                raise _Invalid("\\c without an ASCII letter")
            self.i += 1
            return ord(control) % 32
        if letter == "0":
            if self.pattern[self.i : self.i + 1].isdigit():
                raise _Invalid("an octal escape, which Unicode mode does not allow")
            return 0
        if letter == "x":
            return self.hex_digits(2, "\\x")
        if letter == "u":
            return self.code_point(self.unicode_escape(), escaped=True)
        if letter in _SYNTAX or (in_class and letter == "-"):
            return ord(letter)
        self.i = start
        if not letter:
            raise _Invalid("a lone '\\'")
        raise _Invalid(f"\\{letter} is not an escape {'in a class ' * in_class}in Unicode mode")

    def code_point(self, code_point: int, *, escaped: bool = False) -> int:
        r"""A code point the pattern matches, noted as untranslatable if it is a lone surrogate.

        NOTE: valid ECMA-262 that matches a lone surrogate (`\uD83D`, or U+D83D itself in a
        library caller's str), which a parsed JSON string never holds: refused, not
        half-supported.
        """
        if 0xD800 <= code_point <= 0xDFFF:
            self.untranslatable.append(
                f"has a lone surrogate{' escape' * escaped} (U+{code_point:04X}), refused: no "
                "UTF-8 text holds one, so RE2 cannot match it (write a character past U+FFFF as "
                "\\u{...} or as a pair of 4-digit \\u escapes)"
            )
        return code_point

    def unicode_escape(self) -> int:
        r"""The code point of `\u` after its `u`: `{...}`, 4 digits, or a pair of surrogates."""
        if self.peek("{"):
            end = self.pattern.find("}", self.i)
            if end < 0:
                raise _Invalid("an unterminated \\u{...}")
            digits = self.pattern[self.i + 1 : end]
            if not digits:
                raise _Invalid("\\u{} without hex digits")
            if not all(c in _HEX for c in digits):
                raise _Invalid("\\u{...} holding other than hex digits")
            self.i = end + 1
            if int(digits, 16) > charsets.MAX_CODE_POINT:
                raise _Invalid("\\u{...} beyond U+10FFFF")
            return int(digits, 16)
        unit = self.hex_digits(4, "\\u")
        trail = self.pattern[self.i + 2 : self.i + 6]
        if 0xD800 <= unit <= 0xDBFF and self.peek("\\u") and _is_trail_surrogate(trail):
            # NOTE: only two 4-digit escapes pair (RegExpUnicodeEscapeSequence): `\uD83D\u{DE00}`
            # is two lone surrogates, as `\u{D83D}\uDE00` is.
            self.i += 6
            return 0x10000 + ((unit - 0xD800) << 10) + (int(trail, 16) - 0xDC00)
        return unit

    def hex_digits(self, count: int, escape: str) -> int:
        digits = self.pattern[self.i : self.i + count]
        if len(digits) != count or not all(c in _HEX for c in digits):
            braces = " or {...}" if escape == "\\u" else ""
            raise _Invalid(f"{escape} without {count} hex digits{braces}")
        self.i += count
        return int(digits, 16)

    def character_class(self) -> str:
        """`[...]` after its `[`: ranges of code points, where a class escape never bounds one."""
        negate = self.peek("^")
        self.i += negate
        spans: list[tuple[int, int]] = []
        while not self.peek("]"):
            if self.i >= len(self.pattern):
                raise _Invalid("unterminated character class")
            first = self.class_atom()
            if self.peek("-") and not self.pattern.startswith("]", self.i + 1):
                self.i += 1
                last = self.class_atom()
                if isinstance(first, tuple) or isinstance(last, tuple):
                    raise _Invalid("a class range bounded by a class escape")
                if first > last:
                    raise _Invalid("a class range out of order")
                spans.append((first, last))
            else:
                spans.extend(first if isinstance(first, tuple) else [(first, first)])
        self.i += 1
        return emit_class(charsets.union(spans), negate=negate)

    def class_atom(self) -> int | Ranges:
        if self.i >= len(self.pattern):
            raise _Invalid("unterminated character class")
        if not self.peek("\\"):
            self.i += 1
            return self.code_point(ord(self.pattern[self.i - 1]))
        if self.peek("\\b"):
            self.i += 2
            return 0x08  # `[\b]` is backspace
        ranges = self.class_escape()
        return ranges if ranges is not None else self.character_escape(in_class=True)


def _identifier_char(code_point: int, *, first: bool) -> bool:
    """ECMA-262's IdentifierStartChar (`first`) or IdentifierPartChar, in Unicode's own terms.

    `$` and `_` may start a name, `$`, ZWNJ and ZWJ go on with one, besides ID_Start and
    ID_Continue (whose tables load only for a name that is not ASCII).
    """
    if code_point < 0x80:
        char = chr(code_point)
        return char in _IDENTIFIER_START or (not first and char.isdigit())
    if not first and code_point in (0x200C, 0x200D):
        return True
    return charsets.contains(charsets.identifier_ranges(start=first), code_point)


def _is_trail_surrogate(digits: str) -> bool:
    """Whether these are 4 hex digits spelling a trail surrogate (U+DC00-U+DFFF)."""
    return len(digits) == 4 and set(digits) <= _HEX and 0xDC00 <= int(digits, 16) <= 0xDFFF


def _decimal(digits: str) -> str:
    """Digits without leading zeros, never converted to int (a 5,000-digit count stays text)."""
    return (digits.lstrip("0") or "0") if digits else ""


def _repeats(quantifier: str) -> str:
    """How often a quantifier repeats: once (none, `{1}`, `{0}`), optional (`?`) or more."""
    body = quantifier[:-1] if len(quantifier) > 1 and quantifier.endswith("?") else quantifier
    if body in ("", "?"):
        return "optional" if body else "once"
    if body in ("*", "+"):
        return "more"
    low, comma, high = body[1:-1].partition(",")
    high = high if comma else low
    if high in ("0", "1"):
        return "optional" if (low, high) == ("0", "1") else "once"
    return "more"


def emit_char(code_point: int) -> str:
    r"""One code point in RE2 syntax: itself if plain ASCII, else a `\x{...}` escape."""
    char = chr(code_point)
    return char if char in _PLAIN else f"\\x{{{code_point:x}}}"


def emit_class(ranges: Ranges, *, negate: bool = False) -> str:
    """A class of code point ranges in RE2 syntax (`[]` never matches, `[^]` any code point)."""
    if not ranges:  # `[]` matches nothing, `[^]` any one code point
        ranges, negate = ((0, charsets.MAX_CODE_POINT),), not negate
    body = "".join(
        emit_char(low) if low == high else f"{emit_char(low)}-{emit_char(high)}"
        for low, high in ranges
    )
    return f"[{'^' if negate else ''}{body}]"


def _refuse(pattern: str, where: str, why: str) -> NoReturn:
    raise SchemaError(f"pattern {pattern!r} {why}", field=where)
