r"""ECMA-262 patterns -> Python `re` patterns with the same meaning, or a `SchemaError`.

JSON Schema patterns are ECMA-262 regular expressions. Python's `re` reads the same text
differently in ways that accept more: `\d` matches any Unicode digit, `$` matches before a
trailing newline, `.` matches `\r` and U+2028. A schema's `^CR-[0-9]+$` must not accept
"CR-1\n", so every pattern is rewritten here before it is compiled, and a construct whose
meaning we cannot carry over is refused rather than guessed.
"""

from __future__ import annotations

import re
from typing import NoReturn

from toolguard.errors import SchemaError

_WORD = "A-Za-z0-9_"
_SPACE = "\\t\\n\\x0b\\x0c\\r \\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000\\ufeff"
_CLASS_BODY = {"d": "0-9", "w": _WORD, "s": _SPACE}
_SHORTHAND = {
    "d": "[0-9]",
    "D": "[^0-9]",
    "w": f"[{_WORD}]",
    "W": f"[^{_WORD}]",
    "s": f"[{_SPACE}]",
    "S": f"[^{_SPACE}]",
    # NOTE: spelled out: Python's \B never matches in an empty string, ECMA's does.
    "b": f"(?:(?<=[{_WORD}])(?![{_WORD}])|(?<![{_WORD}])(?=[{_WORD}]))",
    "B": f"(?:(?<=[{_WORD}])(?=[{_WORD}])|(?<![{_WORD}])(?![{_WORD}]))",
}
# NOTE: no backreferences (\1-\9): ECMA lets one to a group that did not take part match the
# empty string (and resets groups on each repetition); Python fails it. Refused, not guessed.
_SAME_ESCAPES = set("nrtfv0") | set("\\/^$.*+?()[]{}|-")
_ESCAPE_LENGTH = {"u": 6, "x": 4}  # characters an escape spans, backslash included
_GROUP_OPENERS = ("(?:", "(?=", "(?!", "(?<=", "(?<!")
_NAMED_GROUP = re.compile(r"\(\?<([A-Za-z_$][A-Za-z0-9_$]*)>")
_QUANTIFIER = re.compile(r"\{[0-9]+(?:,[0-9]*)?\}")


def translate(pattern: str, where: str = "") -> str:  # noqa: PLR0915 - one tokenizer loop
    """Return a Python pattern that matches exactly what the ECMA-262 `pattern` matches."""
    out: list[str] = []
    i, n = 0, len(pattern)
    in_class = False
    while i < n:
        char = pattern[i]
        if char == "\\":
            if i + 1 == n:
                _refuse(pattern, where, "ends with a lone backslash")
            escaped = _escape(pattern, i, in_class, where)
            out.append(escaped)
            i += _ESCAPE_LENGTH.get(pattern[i + 1], 2)
            if escaped.startswith("\\U"):
                i += 6  # a surrogate pair: two \u escapes, one character
            continue
        if in_class:
            if char == "]":
                in_class = False
                out.append(char)
            elif char == "-" and _next_to_shorthand(pattern, i):
                out.append("\\-")  # ECMA: `[\w-z]` is \w, "-" and "z", never a range
            else:
                # NOTE: Python reserves `[`, `&&`, `||`, `~~` inside sets, and fastjsonschema
                # rewrites every unescaped `$`; escape them all as the literals they are.
                out.append("\\" + char if char in "[&|~$" else char)
        elif char == "[":
            in_class = True
            if pattern.startswith("[]", i) or pattern.startswith("[^]", i):
                # ECMA: `[]` matches nothing, `[^]` matches any character.
                empty = pattern.startswith("[]", i)
                out.append("(?!)" if empty else "[\\s\\S]")
                i += 2 if empty else 3
                in_class = False
                continue
            out.append("[^" if pattern.startswith("[^", i) else "[")
            i += 2 if pattern.startswith("[^", i) else 1
            continue
        elif char == "(":
            out.append(_group(pattern, i, where))
            i += len(out[-1]) - (1 if out[-1].startswith("(?P<") else 0)
            continue
        elif char == ".":
            out.append("[^\\n\\r\\u2028\\u2029]")
        elif char == "$":
            out.append("\\Z")
        elif char in "*+?}" and pattern.startswith("+", i + 1):
            _refuse(pattern, where, "uses a possessive quantifier, which ECMA-262 does not have")
        elif char == "{" and _QUANTIFIER.match(pattern, i) is None:
            out.append("\\{")  # ECMA: a brace that is not a full quantifier is a literal
        else:
            out.append(char)
        i += 1
    if in_class:
        _refuse(pattern, where, "has an unterminated character class")
    translated = "".join(out)
    try:
        re.compile(translated)
    except (re.error, OverflowError, RecursionError) as exc:
        _refuse(pattern, where, f"is not a valid regular expression ({exc})")
    return translated


def _escape(pattern: str, i: int, in_class: bool, where: str) -> str:
    letter = pattern[i + 1]
    if letter in _SHORTHAND:
        if not in_class:
            return _SHORTHAND[letter]
        if letter in _CLASS_BODY:
            return _CLASS_BODY[letter]
        if letter == "b":
            return "\\x08"  # ECMA: `[\b]` is backspace
        _refuse(pattern, where, f"uses \\{letter} inside a character class")
    if letter == "u":
        unit = _hex(pattern[i + 2 : i + 6], pattern, where)
        if 0xDC00 <= unit <= 0xDFFF:
            _refuse(pattern, where, "has a lone low surrogate escape")
        if 0xD800 <= unit <= 0xDBFF:
            # NOTE: strings here are code points: the pair `\uD83D\uDE00` is one character.
            low = pattern[i + 6 : i + 12]
            if not low.startswith("\\u") or not 0xDC00 <= _hex(low[2:], pattern, where) <= 0xDFFF:
                _refuse(pattern, where, "has a lone high surrogate escape")
            code_point = (
                0x10000 + ((unit - 0xD800) << 10) + (_hex(low[2:], pattern, where) - 0xDC00)
            )
            return f"\\U{code_point:08X}"
        return pattern[i : i + 6]
    if letter == "x":
        digits = pattern[i + 2 : i + 4]
        if len(digits) != 2 or not all(c in "0123456789abcdefABCDEF" for c in digits):
            _refuse(pattern, where, "has a \\x escape without two hex digits")
        return pattern[i : i + 4]
    if letter in _SAME_ESCAPES:
        return pattern[i : i + 2]
    _refuse(pattern, where, f"uses \\{letter}, which means something else (or nothing) in Python")


def _hex(digits: str, pattern: str, where: str) -> int:
    if len(digits) != 4 or not all(c in "0123456789abcdefABCDEF" for c in digits):
        _refuse(pattern, where, "has a \\u escape without four hex digits")
    return int(digits, 16)


def _next_to_shorthand(pattern: str, i: int) -> bool:
    r"""Whether the `-` at `i` in a class touches a class escape such as `\d` or `\w`."""
    before = pattern[i - 2 : i] if i >= 2 and pattern[i - 3 : i - 2] != "\\" else ""
    after = pattern[i + 1 : i + 3]
    return any(len(s) == 2 and s[0] == "\\" and s[1] in "dDwWsS" for s in (before, after))


def _group(pattern: str, i: int, where: str) -> str:
    if not pattern.startswith("(?", i):
        return "("
    for opener in _GROUP_OPENERS:
        if pattern.startswith(opener, i):
            return opener
    named = _NAMED_GROUP.match(pattern, i)
    if named is None:
        _refuse(pattern, where, "uses a group syntax that ECMA-262 does not have")
    return f"(?P<{named.group(1)}>"


def _refuse(pattern: str, where: str, why: str) -> NoReturn:
    raise SchemaError(f"pattern {pattern!r} {why}", field=where)
