"""Shared hypothesis strategies: JSON values and JSON texts that fit inside a given `Limits`.

Values are what `json.dumps` can write and `toolguard.parse` must read back unchanged; texts are
bytes built to be rejected for exactly one reason (a duplicate member, one level too deep).
"""

from __future__ import annotations

import json
import math
import unicodedata
from typing import Any

from hypothesis import strategies as st

from toolguard.invisible import BLANKS
from toolguard.invisible_tables import DEFAULT_IGNORABLE, EMOJI
from toolguard.limits import Limits
from toolguard.number import ExactFloat, exact_number

# NOTE: yajl holds integers as signed 64-bit values, so the widest integer that survives a
# parse is the smaller of 2**63 - 1 and the `max_integer_digits` bound (10**19 - 1 > 2**63 - 1).
INT64_MAX = 2**63 - 1
DEFAULT_LIMITS = Limits()
# Containers are kept small so examples stay cheap; tests of the item budget build their own.
SMALL_CONTAINER = 4


def json_integers(limits: Limits = DEFAULT_LIMITS) -> st.SearchStrategy[int]:
    """Integers that fit both in 64 bits and in `limits.max_integer_digits` digits."""
    bound = min(10**limits.max_integer_digits - 1, INT64_MAX)
    return st.integers(min_value=-bound, max_value=bound)


def json_floats() -> st.SearchStrategy[float]:
    """Finite floats (including -0.0 and subnormals); NaN and infinities are not JSON."""
    return st.floats(allow_nan=False, allow_infinity=False)


@st.composite
def number_texts(draw: st.DrawFn, *, floats_only: bool = False) -> str:
    """JSON number tokens of every shape: long, short, zero, tiny, huge, with or without a
    fraction or an exponent (leading zeros in the exponent included), any sign."""
    digits = st.text("0123456789", min_size=1, max_size=draw(st.sampled_from([3, 17, 25])))
    whole = draw(st.sampled_from(["0", "1", "9"]) | digits.map(lambda d: d.lstrip("0") or "0"))
    zeros = st.text("0", min_size=1, max_size=400).map(lambda z: z + "1")
    fraction = draw(st.none() | digits | zeros)
    exponent = draw(
        st.none()
        | st.tuples(
            st.sampled_from("eE"),
            st.sampled_from(["", "+", "-"]),
            st.integers(min_value=0, max_value=400),
            st.sampled_from(["", "0", "00"]),
        ).map(lambda e: f"{e[0]}{e[1]}{e[3]}{e[2]}")
    )
    if floats_only and fraction is None and exponent is None:
        fraction = "0"
    sign = draw(st.sampled_from(["", "-"]))
    return sign + whole + (f".{fraction}" if fraction is not None else "") + (exponent or "")


def json_strings(limits: Limits = DEFAULT_LIMITS, max_size: int = 16) -> st.SearchStrategy[str]:
    """Unicode text without surrogates, no longer than the string budget (nor `max_size`)."""
    return st.text(max_size=min(limits.max_string_length, max_size))


def json_scalars(limits: Limits = DEFAULT_LIMITS) -> st.SearchStrategy[Any]:
    """null, booleans, numbers and strings within `limits`."""
    return st.one_of(
        st.none(), st.booleans(), json_integers(limits), json_floats(), json_strings(limits)
    )


def json_values(
    limits: Limits = DEFAULT_LIMITS,
    *,
    max_depth: int | None = None,
    max_items: int = SMALL_CONTAINER,
) -> st.SearchStrategy[Any]:
    """JSON values nested at most `max_depth` (default: the depth budget) containers deep.

    Each level may branch into several containers, so a small `max_depth` keeps examples
    cheap; every container holds at most `max_items` (capped by the item budget) entries, every
    string and member name respects the string budget.
    """
    depth = limits.max_depth if max_depth is None else min(max_depth, limits.max_depth)
    items = min(max_items, limits.max_container_items)
    return _values(limits, depth, items)


def _values(limits: Limits, depth: int, items: int) -> st.SearchStrategy[Any]:
    scalars = json_scalars(limits)
    if depth <= 0:
        return scalars
    children = st.deferred(lambda: _values(limits, depth - 1, items))
    return st.one_of(
        scalars,
        st.lists(children, max_size=items),
        st.dictionaries(json_strings(limits), children, max_size=items),
    )


def escape_every_character(name: str) -> str:
    r"""Write `name` as a JSON string literal in which every character is a `\uXXXX` escape."""
    units = name.encode("utf-16-be")
    escapes = (f"\\u{int.from_bytes(units[i : i + 2], 'big'):04x}" for i in range(0, len(units), 2))
    return '"' + "".join(escapes) + '"'


@st.composite
def objects_with_duplicate_member(draw: st.DrawFn, limits: Limits = DEFAULT_LIMITS) -> bytes:
    r"""Object text, possibly nested in arrays or objects, in which one member name repeats.

    The repeat may be spelled differently (`\uXXXX` escapes, raw UTF-8) but unescapes to the
    same name; everything else in the text is within `limits` (which must allow two members),
    so the duplicate is the only reason to reject it.
    """
    wrappers = draw(st.integers(min_value=0, max_value=min(3, limits.max_depth - 1)))
    members = draw(
        st.dictionaries(
            json_strings(limits),
            json_values(limits, max_depth=min(2, limits.max_depth - wrappers - 1)),
            min_size=1,
            max_size=min(SMALL_CONTAINER, limits.max_container_items - 1),
        )
    )
    names = list(members)
    repeated = draw(st.sampled_from(names))
    position = draw(st.integers(min_value=0, max_value=len(names)))
    spelled = draw(
        st.sampled_from(
            [
                json.dumps(repeated),
                json.dumps(repeated, ensure_ascii=False),
                escape_every_character(repeated),
            ]
        )
    )
    parts = [f"{json.dumps(name)}:{json.dumps(members[name])}" for name in names]
    parts.insert(position, f"{spelled}:{json.dumps(draw(json_scalars(limits)))}")
    text = "{" + ",".join(parts) + "}"
    for _ in range(wrappers):
        text = draw(st.sampled_from([f"[{text}]", f'{{"w":{text}}}']))
    return text.encode()


def nested_text(kinds: list[bool], innermost: str = "0") -> bytes:
    """Text nesting one container per entry of `kinds` (True: array, False: object)."""
    opening = "".join("[" if is_array else '{"k":' for is_array in kinds)
    closing = "".join("]" if is_array else "}" for is_array in reversed(kinds))
    return (opening + innermost + closing).encode()


def nesting_kinds(depth: int) -> st.SearchStrategy[list[bool]]:
    """A random mix of arrays (True) and objects (False), exactly `depth` of them."""
    return st.lists(st.booleans(), min_size=depth, max_size=depth)


# Bytes that tend to break JSON tokenizers, for mutating otherwise valid texts.
HOSTILE_FRAGMENTS = (
    b'"',
    b"\\",
    b"\\u",
    b"\\ud800",
    b"\\udc00",
    b"\\ud83d\\ude00",
    b"\x00",
    b"\x0b",
    b"\x0c",
    b"\x1f",
    b"\x80",
    b"\xc0\xaf",
    b"\xed\xa0\x80",
    b"\xef\xbb\xbf",
    b"NaN",
    b"-Infinity",
    b"1e999",
    b"99999999999999999999",
    b"[",
    b"]",
    b"{",
    b"}",
    b",",
    b":",
)


@st.composite
def mutated_json_texts(draw: st.DrawFn, limits: Limits = DEFAULT_LIMITS) -> bytes:
    """A valid JSON text with a few hostile fragments inserted, bytes deleted or replaced."""
    value = draw(json_values(limits, max_depth=4))
    text = bytearray(json.dumps(value, ensure_ascii=draw(st.booleans())).encode())
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        at = draw(st.integers(min_value=0, max_value=len(text)))
        action = draw(st.sampled_from(["insert", "delete", "replace"]))
        if action == "insert":
            text[at:at] = draw(st.sampled_from(HOSTILE_FRAGMENTS))
        elif action == "delete":
            del text[at : at + draw(st.integers(min_value=1, max_value=3))]
        else:
            text[at : at + 1] = bytes([draw(st.integers(min_value=0, max_value=255))])
    return bytes(text)


def same_json(left: Any, right: Any) -> bool:
    """Equality that also tells int from float and bool, and 0.0 from -0.0, at every level.

    An `ExactFloat` is a float that also carries the number written: it equals a float that
    denotes the same number (a plain float denotes its shortest repr), and another
    `ExactFloat` only with the same `integer` verdict too (`same_types` tells them apart).
    """
    if isinstance(left, float) and isinstance(right, float):
        both_exact = type(left) is ExactFloat and type(right) is ExactFloat
        return bool(
            left == right
            and math.copysign(1.0, left) == math.copysign(1.0, right)
            and exact_number(left) == exact_number(right)
            and (not both_exact or left.integer == right.integer)
        )
    if type(left) is not type(right):
        return False
    # NOTE: plain loops, not `all(map(...))`: from Python 3.12 a call made through a C function
    # counts against a fixed C recursion limit that `sys.setrecursionlimit` does not raise, and
    # a 500-deep document the JSON test suite accepts (three C calls a level) went over it.
    if isinstance(left, list):
        if len(left) != len(right):
            return False
        for left_item, right_item in zip(left, right, strict=True):
            if not same_json(left_item, right_item):
                return False
        return True
    if isinstance(left, dict):
        if left.keys() != right.keys():
            return False
        for key, item in left.items():  # noqa: SIM110 - not `all()`: see the note above
            if not same_json(item, right[key]):
                return False
        return True
    return bool(left == right)


# Characters a person cannot see, and the real-text neighbours they hide among: letters,
# marks (a virama), emoji, joiners, selectors, kept and refused spaces, controls, tags.
HIDDEN_PRONE = (
    *"aZ1# \t\n\r\u00e9\u0301\u094d\u0915\u06cc\u062e\u263a\u2764",
    "\U0001f600",
    "\U0001f468",
    "\U0001f3fd",
    *"\u200c\u200d\ufe0e\ufe0f\ufe00\u00a0\u202f\u3000\u2800\u3164\u200b\u2028\ue000\u0378\u00ad",
    "\U000e0041",
    "\U000e0100",
)


def hidden_prone_text(max_size: int = 24, *, surrogates: bool = True) -> st.SearchStrategy[str]:
    """Text mixing `HIDDEN_PRONE` with any other code point (lone surrogates: JSON refuses them)."""
    others = st.characters() if surrogates else st.characters(exclude_categories=["Cs"])
    return st.text(st.sampled_from(HIDDEN_PRONE) | others, max_size=max_size)


_HIDDEN_CATEGORIES = {"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"}
_IGNORABLE = {code for first, last in DEFAULT_IGNORABLE for code in range(first, last + 1)}
_EMOJI = {code for first, last in EMOJI for code in range(first, last + 1)}


def _joinable(char: str) -> bool:
    return unicodedata.category(char)[0] == "L" or (ord(char) in _EMOJI and ord(char) > 0x7F)


def refused(text: str, index: int, *, display: bool = False) -> bool:
    """The definition, one code point at a time: whether a person cannot see `text[index]`.

    Written from docs/contract.md with only `unicodedata` and the generated tables, to judge
    `toolguard.invisible` (whose fast paths skip most characters) by.
    """
    char = text[index]
    if char in "\u200c\u200d":  # ZWNJ, ZWJ: between two letters or emoji, past marks
        before = index - 1
        while before >= 0 and unicodedata.category(text[before])[0] == "M":
            before -= 1
        after = index + 1
        return not (
            before >= 0 and after < len(text) and _joinable(text[before]) and _joinable(text[after])
        )
    if char in "\ufe0e\ufe0f":  # one presentation selector, right after an emoji
        return not (index > 0 and ord(text[index - 1]) in _EMOJI)
    if display and char in "\t\n":
        return False
    category = unicodedata.category(char)
    return category in _HIDDEN_CATEGORIES or ord(char) in _IGNORABLE or ord(char) in BLANKS


def first_refused(text: str, *, display: bool = False) -> int | None:
    """The index of the first code point `refused` refuses, or None."""
    return next((i for i in range(len(text)) if refused(text, i, display=display)), None)


# Regular expressions both ECMA-262 (`u` flag) and Python's `re` read alike on `REGEX_TEXT`:
# ASCII atoms and classes, groups, alternation, greedy and lazy quantifiers, anchors and word
# boundaries. (Python's `\s` also holds U+001C..U+001F, its `$` also matches before a final
# newline and its `.` matches `\r`: the text alphabet leaves those characters out.)
REGEX_ATOMS = (
    "a",
    "b",
    "0",
    " ",
    ".",
    "[ab]",
    "[^a]",
    "[a-c0]",
    "[.]",
    *map("\\{}".format, "dwsDWS"),
)
REGEX_ASSERTIONS = ("^", "$", r"\b", r"\B")
REGEX_QUANTIFIERS = ("", "", "*", "+", "?", "*?", "+?", "??", "{2}", "{0,2}", "{1,}", "{1,3}?")
REGEX_TEXT = "ab0 _-."


def shared_regexes(
    atoms: tuple[str, ...] = REGEX_ATOMS, assertions: tuple[str, ...] = REGEX_ASSERTIONS
) -> st.SearchStrategy[str]:
    """Small patterns in the syntax ECMA-262 and Python share, nested a few levels deep."""

    def quantified(inner: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.tuples(inner, st.sampled_from(REGEX_QUANTIFIERS)).map("".join)

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        sequence = st.lists(children, min_size=1, max_size=3).map("".join)
        return st.one_of(
            sequence,
            quantified(sequence.map("(?:{})".format)),
            quantified(sequence.map("({})".format)),
            st.tuples(sequence, sequence).map("(?:{0[0]}|{0[1]})".format),
        )

    leaves = st.one_of(quantified(st.sampled_from(atoms)), st.sampled_from(assertions))
    return st.recursive(leaves, extend, max_leaves=8)


def same_types(value: Any) -> Any:
    """The value's shape with every scalar replaced by its type (`ExactFloat` told from float)."""
    if isinstance(value, list):
        return [same_types(item) for item in value]
    if isinstance(value, dict):
        return {key: same_types(item) for key, item in value.items()}
    return type(value)
