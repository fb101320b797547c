"""What generated validation code calls at run time, kept light: no fastjsonschema import.

`cache.function_of` gives a validator only the names its code uses: `threading` (for
`$dynamicRef`) and `fractions` (for `multipleOf`) are imported for the schemas that need them.
"""

from __future__ import annotations

from toolguard.number import exact_number
from toolguard.standins import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from fractions import Fraction
    from typing import Any

# Marks each subschema with its location ($comment), so an error names the subschema that failed.
LOCATION_TAG = "toolguard:"


@cache
def _dynamic_scope_class() -> type[Any]:
    import threading  # noqa: PLC0415 - only schemas with $dynamicRef

    class DynamicScope(threading.local):
        """The schema resources entered so far, outermost first, per thread ($dynamicRef)."""

        def __init__(self) -> None:
            self.stack: list[str] = []

    return DynamicScope


def dynamic_scope() -> Any:
    """A fresh per-thread stack of the schema resources entered ($dynamicRef's scope)."""
    return _dynamic_scope_class()()


def is_multiple(value: int | float, divisor: Fraction) -> bool:
    """`multipleOf` on exact values; NaN and infinity (not JSON numbers) are never multiples."""
    from fractions import Fraction  # noqa: PLC0415 - the code calling this imported it

    exact = exact_number(value)
    return isinstance(exact, Fraction) and (exact / divisor).denominator == 1


def unique_key(value: Any) -> Any:
    """What `uniqueItems` compares: JSON equality, each number as the exact value it denotes.

    A boolean is never equal to a number; 1, 1.0 and 1e0 are equal; `0.10000000000000001`
    (an `ExactFloat`) is not 0.1, though their floats are.
    """
    if isinstance(value, bool):
        return (bool, value)
    if type(value) is int:
        return value
    if isinstance(value, int | float):
        return exact_number(value)
    if isinstance(value, dict):
        return frozenset((key, unique_key(item)) for key, item in value.items())
    if isinstance(value, list | tuple):
        return tuple(map(unique_key, value))
    return value


def in_enum(value: Any, keys: frozenset[Any]) -> bool:
    """Whether `value` equals a member of an `enum` whose members' `unique_key`s are `keys`.

    A value nesting deeper than Python's stack equals no member (a schema is read within a
    depth budget): it fails `enum`, as it did when each member was compared in turn, rather
    than raising `RecursionError`, which a validator reports as too deep to follow.
    """
    try:
        return unique_key(value) in keys
    except RecursionError:
        return False
