"""What generated validation code calls at run time, kept light: no fastjsonschema import."""

from __future__ import annotations

import threading
from fractions import Fraction
from typing import Any

from toolguard.number import exact_number

# Marks each subschema with its location ($comment), so an error names the subschema that failed.
LOCATION_TAG = "toolguard:"


class DynamicScope(threading.local):
    """The schema resources entered so far, outermost first, per thread ($dynamicRef)."""

    def __init__(self) -> None:
        self.stack: list[str] = []


def is_multiple(value: int | float, divisor: Fraction) -> bool:
    """`multipleOf` on exact values; NaN and infinity (not JSON numbers) are never multiples."""
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
