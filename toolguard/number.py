"""JSON numbers as written: what a float token may become, and the exact value it stands for.

A number token with a fraction or an exponent becomes a `float`, the value the agent receives.
Usually that float's shortest repr is the number the text wrote (`0.1`, `6.02e23`), so the
float alone tells the schema engine what was written. When it is not (`9007199254740992.9`
reads as `9007199254740992.0`), or the number is an integer beyond the integer budget however
it is spelled (`1e300`, `1.0e19`), the parsers return an `ExactFloat`: the same float, carrying
the exact decimal, on which every numeric keyword is decided. A token the delivered float would
misrepresent is rejected instead: more than 17 significant digits (I-JSON, RFC 7493 section
2.2), or a non-zero value that underflows to zero. Overflow to infinity was already rejected.
Both parsers read every float token through `float_reader`, so they agree on each decision.
"""

from __future__ import annotations

import math

from toolguard.errors import ParseError
from toolguard.standins import bounded, cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from decimal import Context, Decimal
    from fractions import Fraction
    from typing import Any

INT64_MAX = 2**63 - 1
# I-JSON: 17 significant digits tell any two doubles apart; more say what no double holds.
MAX_SIGNIFICANT_DIGITS = 17
_MIN_NORMAL = 2.2250738585072014e-308
# Shortest repr of every double, and every decimal of at most 15 significant digits in the
# normal range, survive a round trip; a token of at most 16 characters has at most 15 digits.
SHORT_TOKEN = 16
_SHORT_PLAIN_MAGNITUDE = 10**15
_PLAIN_TAG = "toolguard.number.ExactFloat"


# NOTE: `decimal` and `fractions` are imported where an exact value is needed, never for a
# document of plain numbers: together they cost a one-shot check a tenth of its start-up.
@cache
def _exact_context() -> Context:
    """Strips trailing zeros exactly: the numbers it sees have at most 17 significant digits."""
    from decimal import MAX_EMAX, MIN_EMIN, Context  # noqa: PLC0415

    return Context(prec=MAX_SIGNIFICANT_DIGITS, Emin=MIN_EMIN, Emax=MAX_EMAX)


class ExactFloat(float):
    """A float token's float that needs the number written beside it, for the schema engine.

    Either the float's shortest repr is not the number the text wrote, or that number is an
    integer over the integer budget. It is delivered as the float; the schema engine decides
    on `exact`, the decimal the text wrote (trailing zeros stripped), and on `integer`: whether
    that decimal is an integer within the integer budget, which is what `type: integer` accepts.
    """

    __slots__ = ("exact", "integer")
    exact: Decimal
    integer: bool

    def __new__(cls, value: float, exact: Decimal, integer: bool) -> ExactFloat:
        """The float `value`, standing for `exact`; `integer`: an integer within budget."""
        number = super().__new__(cls, value)
        number.exact = exact
        number.integer = integer
        return number

    def __reduce__(self) -> tuple[Any, ...]:
        return (ExactFloat, (float(self), self.exact, self.integer))

    def __copy__(self) -> ExactFloat:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> ExactFloat:
        return self


def integer_bound(max_integer_digits: int) -> int:
    """The largest magnitude an integer may have: `max_integer_digits` digits and 64 bits."""
    return min(int(10**max_integer_digits) - 1, INT64_MAX)


@bounded(32)
def float_reader(max_integer_digits: int) -> Callable[[str], float]:
    """`read(text)`: what to deliver for the float token `text` (a fraction, an exponent).

    Returns its float when that float's shortest repr is the number written and, if that number
    is an integer, it is within the budget; else an `ExactFloat`. Raises `ParseError` for a
    token the float would misrepresent. NOTE: this runs once per float token of a document, so
    the usual tokens are settled without a `Decimal`: short ones (at most 15 digits) in the
    normal range and the budget, and longer ones written as their own shortest repr.
    """
    bound = integer_bound(max_integer_digits)
    limit = float(bound)
    if limit > bound:  # 2**63 - 1 rounds up to 2**63: keep to floats within the budget
        limit = math.nextafter(limit, 0.0)
    below = -limit
    minimum = _MIN_NORMAL
    short_and_plain_is_enough = short_decimals_are_floats(max_integer_digits)

    def read(text: str) -> float:
        value = float(text)
        if len(text) <= SHORT_TOKEN:
            if short_and_plain_is_enough and "e" not in text and "E" not in text:
                return value
            if minimum <= abs(value) <= limit:
                return value
        elif repr(value) == text and below <= value <= limit:
            return value
        return _read_exactly(text, value, bound)

    return read


def short_decimals_are_floats(max_integer_digits: int) -> bool:
    """Whether `float_reader` returns the plain float of each short token without an exponent.

    Such a token (at most `SHORT_TOKEN` characters) has at most 15 digits: it is normal, and
    under 10**15.
    """
    return integer_bound(max_integer_digits) >= _SHORT_PLAIN_MAGNITUDE


def _read_exactly(text: str, value: float, bound: int) -> float:
    if value - value != 0.0:  # infinity (yajl rejects it first; `float` does not)
        raise ParseError("non_finite_number", "number overflows to infinity")
    digits = significant_digits(text)
    if digits > MAX_SIGNIFICANT_DIGITS:
        raise ParseError(
            "number_too_precise",
            f"number has {digits} significant digits; a float holds {MAX_SIGNIFICANT_DIGITS}"
            " (I-JSON), so it would be delivered as another number",
        )
    if digits == 0:
        return value  # a zero, signed as written
    if value == 0.0:
        raise ParseError("number_underflow", "a non-zero number underflows to zero")
    from decimal import Decimal  # noqa: PLC0415 - see `_exact_context`

    # Trailing zeros stripped: `digits` digits are left.
    exact = Decimal(text).normalize(_exact_context())
    integral = exact.adjusted() >= digits - 1  # the last digit's exponent is at least 0
    within = not integral or -bound <= exact <= bound
    if within and Decimal(repr(value)) == exact:
        return value
    return ExactFloat(value, exact, integral and within)


def significant_digits(text: str) -> int:
    """Significant digits of a JSON number token: its mantissa without sign, point or zeros."""
    end = len(text)
    for mark in "eE":
        at = text.find(mark)
        if at >= 0:
            end = at
    return len(text[:end].lstrip("-").replace(".", "").strip("0"))


def to_plain_data(value: Any) -> Any:
    """`value` (JSON data) with each `ExactFloat` as a tuple, which `marshal` can store.

    JSON data holds no tuples, so the tuple is unambiguous; `value` itself when it holds no
    `ExactFloat` (the compile cache stores plain data only: see `from_plain_data`).
    """
    if type(value) is ExactFloat:
        return (_PLAIN_TAG, float(value), str(value.exact), value.integer)
    if isinstance(value, dict):
        items = {key: to_plain_data(item) for key, item in value.items()}
        return value if all(items[key] is value[key] for key in value) else items
    if isinstance(value, list):
        import operator  # noqa: PLC0415 - compiles and cache keys only: not a warm check

        plain = [to_plain_data(item) for item in value]
        return value if all(map(operator.is_, plain, value)) else plain
    return value


def from_plain_data(value: Any) -> Any:
    """The JSON data `to_plain_data` made `value` from, each `ExactFloat` restored."""
    if isinstance(value, tuple) and value[:1] == (_PLAIN_TAG,):
        from decimal import Decimal  # noqa: PLC0415 - see `_exact_context`

        _, number, exact, integer = value
        return ExactFloat(number, Decimal(exact), integer)
    if isinstance(value, dict):
        return {key: from_plain_data(item) for key, item in value.items()}
    if isinstance(value, list):
        return [from_plain_data(item) for item in value]
    return value


def delivered_as_written(value: Any) -> bool:
    """Whether the number the agent receives for `value` is the number the JSON text wrote.

    Only an `ExactFloat` can differ: its float's shortest repr (what the envelope serialises)
    may be another decimal than `exact` (`9007199254740992.9` goes out as `9007199254740992.0`);
    an integer over the budget written as its float's repr (`1e300`) goes out as written.
    """
    if type(value) is not ExactFloat:
        return True
    from decimal import Decimal  # noqa: PLC0415 - see `_exact_context`

    # NOTE: decimals compare by value, exactly: no `Fraction` for each of 100,000 numbers.
    return Decimal(repr(float(value))) == value.exact


def exact_number(value: int | float) -> Fraction | float:
    """The exact rational a JSON number denotes; a non-finite float (not JSON) is itself.

    An `ExactFloat` denotes its `exact` decimal; any other float its shortest repr, which is
    the decimal the JSON text wrote whenever the parser returned a plain float.
    """
    from decimal import Decimal  # noqa: PLC0415 - see `_exact_context`
    from fractions import Fraction  # noqa: PLC0415

    if type(value) is ExactFloat:
        return Fraction(value.exact)
    if isinstance(value, float):
        return Fraction(Decimal(repr(value))) if math.isfinite(value) else value
    return Fraction(value)
