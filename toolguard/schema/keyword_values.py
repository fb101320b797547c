"""What values the assertion keywords accept: the metaschema's constraints, checked up front.

A schema breaking them is invalid, and fastjsonschema would compile some of them into code
that crashes (`multipleOf: 0`) or cannot spell (a NaN in `const`).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from toolguard.errors import SchemaError
from toolguard.pointer import escape

_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})


# Generated code spells each number in Python source, and CPython refuses to write out an int of
# over 4,300 digits (`sys.set_int_max_str_digits`): a bound well inside what any schema means.
_UNSPELLABLE = 10**4000


def _number(value: Any) -> bool:
    # NOTE: an int is exact and finite however large (10**400: `math.isfinite` would overflow).
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    return abs(value) < _UNSPELLABLE if isinstance(value, int) else math.isfinite(value)


def _finite(value: Any) -> bool:
    """No NaN or infinity anywhere in a const/enum value (generated code cannot spell them)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, int) and not isinstance(value, bool):
        return abs(value) < _UNSPELLABLE
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


def _count(value: Any) -> bool:
    if not _number(value) or value < 0:
        return False
    return isinstance(value, int) or value.is_integer()


# keyword -> (whether a value is allowed, what the message says it must be)
_VALUE_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "multipleOf": (lambda v: _number(v) and v > 0, "a number above 0 (under 4,000 digits)"),
    **dict.fromkeys(
        ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"),
        (_number, "a number (under 4,000 digits)"),
    ),
    **dict.fromkeys(
        ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"),
        (_count, "a non-negative integer (under 4,000 digits)"),
    ),
    **dict.fromkeys(
        ("minContains", "maxContains"), (_count, "a non-negative integer (under 4,000 digits)")
    ),
    "dependentRequired": (
        lambda v: (
            isinstance(v, dict)
            and all(
                isinstance(names, list)
                and all(isinstance(name, str) for name in names)
                and len(set(names)) == len(names)
                for names in v.values()
            )
        ),
        "an object of arrays of distinct strings",
    ),
    "required": (
        lambda v: (
            isinstance(v, list)
            and all(isinstance(item, str) for item in v)
            and len(set(v)) == len(v)
        ),
        "an array of distinct strings",
    ),
    "enum": (
        lambda v: isinstance(v, list) and _finite(v),
        "an array of finite values (integers under 4,000 digits)",
    ),
    "const": (_finite, "a value without NaN or infinity (integers under 4,000 digits)"),
    "uniqueItems": (lambda v: isinstance(v, bool), "a boolean"),
    "format": (lambda v: isinstance(v, str), "a string"),
}


def _shown(value: Any) -> str:
    """`value` for a message, bounded: a huge integer (or a value holding one) is not spelled."""
    try:
        text = repr(value)
    except ValueError:  # an int past what CPython will write out
        return "a value holding an integer of over 4,000 digits"
    return text if len(text) <= 200 else f"{text[:200]}..."


def check_value(keyword: str, value: Any, at: str) -> None:
    """Refuse an assertion whose value the metaschema does not allow, naming what it must be."""
    if keyword in _VALUE_RULES:
        valid, expected = _VALUE_RULES[keyword]
        if not valid(value):
            raise SchemaError(f"{keyword!r} must be {expected}, not {_shown(value)}", field=at)
    if keyword == "pattern" and not isinstance(value, str):
        raise SchemaError("'pattern' must be a string", field=at)
    if keyword == "type":
        names = value if isinstance(value, list) else [value]
        if not names or any(not isinstance(n, str) or n not in _TYPES for n in names):
            raise SchemaError(f"'type' must name JSON types, not {value!r}", field=at)


def check_json_data(schema: Any) -> None:
    """Refuse a schema that holds a value JSON cannot write, naming where it stands.

    A schema read from a file is JSON by construction; one built in Python may hold a member
    name that is not a string, a tuple, a set, bytes or NaN, which the keyword walk would crash
    on, and the generator and the compile cache would misread (a set compared as a `const`).
    """
    stack: list[tuple[Any, str]] = [(schema, "")]
    while stack:  # NOTE: a loop, not recursion: a schema nested past the stack is refused later
        value, at = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise SchemaError(
                        f"member name {_shown(key)} is not a string: a schema must be JSON data",
                        field=at or "/",
                    )
                stack.append((item, f"{at}/{escape(key)}"))
        elif isinstance(value, list):
            stack.extend((item, f"{at}/{index}") for index, item in enumerate(value))
        elif isinstance(value, float) and not math.isfinite(value):
            raise SchemaError(f"{value!r} is not JSON data (no NaN or infinity)", field=at or "/")
        elif value is not None and not isinstance(value, str | int | float):  # bool is an int
            raise SchemaError(
                f"{_shown(value)} ({type(value).__name__}) is not JSON data: a schema holds "
                "only objects, arrays, strings, numbers, booleans and null",
                field=at or "/",
            )
