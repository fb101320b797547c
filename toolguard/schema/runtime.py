"""What generated validation code calls at run time, kept light: no fastjsonschema import."""

from __future__ import annotations

import math
import threading
from decimal import Decimal
from fractions import Fraction

# Marks each subschema with its location ($comment), so an error names the subschema that failed.
LOCATION_TAG = "toolguard:"


class DynamicScope(threading.local):
    """The schema resources entered so far, outermost first, per thread ($dynamicRef)."""

    def __init__(self) -> None:
        self.stack: list[str] = []


def is_multiple(value: int | float, divisor: Fraction) -> bool:
    """`multipleOf` on exact values; NaN and infinity (not JSON numbers) are never multiples."""
    if isinstance(value, float) and not math.isfinite(value):
        return False
    return (exact_number(value) / divisor).denominator == 1


def exact_number(value: int | float) -> Fraction:
    """The exact rational a JSON number denotes (a float through its shortest repr).

    The shortest repr of a float the parser made is the decimal the JSON text wrote, so
    `multipleOf` is decided on that value, not on binary floats or 28-digit Decimals.
    """
    if isinstance(value, float):
        return Fraction(Decimal(repr(value)))
    return Fraction(value)
