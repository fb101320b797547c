"""The 2020-12 assertions draft 7 lacks (`dependentRequired`) or decides wrongly (numbers).

Every numeric decision is made on the exact number the JSON text wrote, never on a binary
float: `type: integer`, `minimum`, `maximum`, `exclusiveMinimum`, `exclusiveMaximum`,
`multipleOf`, and number equality in `const`, `enum` and `uniqueItems`. A plain float stands
for its shortest repr (the number written, whenever the parser returned a plain float); an
`ExactFloat` for its `exact` decimal (see `toolguard/number.py`). The generated code stays a
float comparison in the usual case and looks at the decimal only where they can differ.
(`minContains`/`maxContains` are counted by `contains` itself, in `applicators`.)
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from fastjsonschema.draft04 import JSON_TYPE_TO_PYTHON_TYPE
from fastjsonschema.generator import enforce_list

from toolguard.number import ExactFloat, exact_number
from toolguard.schema.generator_base import GeneratorBase, literal

# Every integer up to 2**53 is a float, and a float below it compares with an integer as its
# shortest repr does: bounds within it are compared as floats (see `_fails`).
_EXACTLY_FLOAT = 2**53
# NOTE: the exact types come first: `type(x) is float` is the common case, and it answers
# without the tuple `isinstance` and the `bool` check (a bool's type is `bool`, never `int`).
_IS_NUMBER = (
    "type({variable}) is float or type({variable}) is int"
    " or isinstance({variable}, (int, float)) and not isinstance({variable}, bool)"
)
# The exact types of a JSON type that pass its `type` check at once: the rest are decided by
# the full test (a bool is no number, an integral float may be an integer...).
_EXACT_TYPES = {"integer": ("int",), "number": ("float", "int")}
# An enum with more values than this that are not strings is decided by one set lookup.
_SCAN_AT_MOST = 16
# keyword -> (the comparison that fails it, its message)
_BOUNDS = {
    "minimum": ("<", "bigger than or equal to"),
    "maximum": (">", "smaller than or equal to"),
    "exclusiveMinimum": ("<=", "bigger than"),
    "exclusiveMaximum": (">=", "smaller than"),
}


class Assertions(GeneratorBase):
    """`dependentRequired`, and every numeric keyword decided on exact values."""

    def generate_type(self) -> None:
        """`type`, where `integer` is decided on the number written and its integer budget.

        NOTE: draft 6 onwards calls a float with no fraction an integer (`float.is_integer`);
        an `ExactFloat` answers with its own verdict (`1e300`: integral, over the budget).
        """
        types = enforce_list(self._here["type"])
        python_types = ", ".join(JSON_TYPE_TO_PYTHON_TYPE[name] for name in types)
        extra = ""
        if "integer" in types:
            extra += (
                " and not (isinstance({variable}, float) and ({variable}.integer"
                " if type({variable}) is ExactFloat else {variable}.is_integer()))"
            )
        if ("number" in types or "integer" in types) and "boolean" not in types:
            extra += " or isinstance({variable}, bool)"
        extra = extra.format(variable=self._variable)
        test = f"not isinstance({self._variable}, ({python_types})){extra}"
        exact = [name for json_type in types for name in _EXACT_TYPES.get(json_type, ())]
        if exact:
            passes = " and ".join(f"type({self._variable}) is not {name}" for name in exact)
            test = f"{passes} and ({test})"
        with self.l("if {}:", test):
            self.exc("{name} must be {}", " or ".join(types), rule="type")

    def generate_minimum(self) -> None:
        """`minimum`, on exact values (`_fails`)."""
        self._bound("minimum")

    def generate_maximum(self) -> None:
        """`maximum`, on exact values (`_fails`)."""
        self._bound("maximum")

    def generate_exclusive_minimum(self) -> None:
        """`exclusiveMinimum`, on exact values (`_fails`)."""
        self._bound("exclusiveMinimum")

    def generate_exclusive_maximum(self) -> None:
        """`exclusiveMaximum`, on exact values (`_fails`)."""
        self._bound("exclusiveMaximum")

    def _bound(self, keyword: str) -> None:
        bound = self._here[keyword]
        failing, words = _BOUNDS[keyword]
        with (
            self.l(f"if {_IS_NUMBER}:"),
            self.l("if {}:", _fails(str(self._variable), failing, bound)),
        ):
            self.exc(f"{{name}} must be {words} {{}}", _written(bound), rule=keyword)

    def generate_multiple_of(self) -> None:
        """`multipleOf`, decided on the exact decimal values the JSON text wrote.

        NOTE: fastjsonschema divides floats (every float past 2**53 "is" a multiple of 3) or
        Decimals at 28 digits (1e28 "is" a multiple of 0.7).
        """
        divisor = _exact(self._here["multipleOf"])
        with (
            self.l(f"if {_IS_NUMBER}:"),
            self.l(
                "if not is_multiple({variable}, Fraction({}, {})):",
                divisor.numerator,
                divisor.denominator,
            ),
        ):
            self.exc(
                "{name} must be multiple of {}",
                _written(self._here["multipleOf"]),
                rule="multipleOf",
            )

    def generate_enum(self) -> None:
        """`enum`; an exact `str` is looked up in the set of the enum's strings at once.

        (For any other value, and a `str` subclass, each value's own test decides; past
        `_SCAN_AT_MOST` values that are not strings, the value's `unique_key` is looked up in a
        set instead (`in_enum`), when no value holds a float: one test per value would make
        checking an array of 10,000 items against 1,000 objects ten million tests.)
        """
        enum = self._here["enum"]
        if not isinstance(enum, list | tuple):
            super().generate_enum()
            return
        others = [value for value in enum if type(value) is not str]
        if len(others) > _SCAN_AT_MOST and all(map(_literal_data, others)):
            keys = self._constant(f"frozenset(map(unique_key, {list(enum)!r}))")
            with self.l(f"if not in_enum({{variable}}, {keys}):"):
                self.exc("{name} must be one of {}", self.e(enum), rule="enum")
            return
        strings = {value for value in enum if type(value) is str}
        if not strings:
            super().generate_enum()
            return
        tests = " or ".join(self._enum_value_matches(str(self._variable), value) for value in enum)
        lookup = literal(f"{self._variable} in {self._names(strings)}")
        with self.l(f"if not (({lookup}) if type({{variable}}) is str else ({literal(tests)})):"):
            self.exc("{name} must be one of {}", self.e(enum), rule="enum")

    def _enum_value_matches(self, var: str, value: Any) -> str:
        """The test for one `const` or `enum` value; numbers compare as the numbers written."""
        if isinstance(value, int | float) and not isinstance(value, bool):
            test = f"isinstance({var}, (int, float)) and not isinstance({var}, bool) and "
            if _near_float(value):
                return test + (
                    f"{var} == {_float_literal(value)} and "
                    f"(type({var}) is not ExactFloat or {var}.exact == {_decimal_literal(value)})"
                )
            return test + f"exact_number({var}) == {_fraction_literal(value)}"
        return str(super()._enum_value_matches(var, value))

    def generate_unique_items(self) -> None:
        """`uniqueItems`, with JSON equality: numbers by their exact values (`unique_key`)."""
        if not self._here["uniqueItems"]:
            return
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            self.create_variable_with_length()
            with self.l("if {variable}_len > len(set(map(unique_key, {variable}))):"):
                self.exc("{name} must contain unique items", rule="uniqueItems")

    def generate_dependent_required(self) -> None:
        """`dependentRequired`: when a member is present, so must be the members it names."""
        dependents = {key: names for key, names in self._here["dependentRequired"].items() if names}
        if not dependents:
            return
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            for key, required in dependents.items():
                with self.l("if {} in {variable}:", repr(key)):
                    for needed in required:
                        with self.l("if {} not in {variable}:", repr(needed)):
                            self.exc(
                                "{name} must contain {} when it contains {}",
                                self.e(needed),
                                self.e(key),
                                rule="dependentRequired",
                            )


def _fails(variable: str, failing: str, bound: int | float) -> str:
    """The condition under which `variable` (a number) fails `variable <failing> bound`.

    For a bound that is a plain float or a small integer the float comparison decides, except
    when the instance's float equals the bound: rounding to the nearest float keeps order, so
    only there can an `ExactFloat` lie on the other side (9007199254740992.9 > 2**53). In the
    usual case that costs one comparison, as before. Other bounds (huge integers, floats past
    2**53, an `ExactFloat` from a schema file) compare exact rationals (`exact_number`).
    """
    if not _near_float(bound):
        return f"exact_number({variable}) {failing} {_fraction_literal(bound)}"
    literal = _float_literal(bound)
    beyond, at_or_beyond = failing[0], failing[0] + "="
    at_bound = failing in ("<=", ">=")  # a plain float equal to the bound is the bound
    return (
        f"{variable} {at_or_beyond} {literal} and ({variable} {beyond} {literal} or "
        f"({variable}.exact {failing} {_decimal_literal(bound)}"
        f" if type({variable}) is ExactFloat else {at_bound}))"
    )


def _near_float(number: int | float) -> bool:
    """Whether `number` compares with any JSON number as its float does (see `_EXACTLY_FLOAT`)."""
    if type(number) is int:
        return -_EXACTLY_FLOAT <= number <= _EXACTLY_FLOAT
    return type(number) is float and -_EXACTLY_FLOAT < number < _EXACTLY_FLOAT


def _float_literal(number: int | float) -> str:
    return repr(number) if type(number) is int else float.__repr__(number)


def _decimal_literal(number: int | float) -> str:
    """Python source for the exact decimal of a schema number (a float: its shortest repr)."""
    return repr(number) if type(number) is int else f"Decimal({float.__repr__(number)!r})"


def _fraction_literal(number: int | float) -> str:
    exact = _exact(number)
    return f"Fraction({exact.numerator}, {exact.denominator})"


def _exact(number: int | float) -> Fraction:
    exact = exact_number(number)
    if not isinstance(exact, Fraction):  # NOTE: unreachable: `keyword_values` refuses them
        raise TypeError(f"{number!r} is not a finite number")
    return exact


def _written(number: int | float) -> str:
    """A schema number as its messages show it: as written."""
    return str(number.exact) if type(number) is ExactFloat else repr(number)


def _literal_data(value: Any) -> bool:
    """Whether `value` is null, a boolean, an integer, a string, or arrays and objects of them.

    Their `repr` is a Python literal of the same value, and `unique_key` keys them exactly (a
    number written with a fraction or an exponent may be an `ExactFloat`: it keeps its tests).
    """
    if value is None or type(value) in (bool, int, str):
        return True
    if type(value) is list:
        return all(map(_literal_data, value))
    if type(value) is dict:
        return all(type(key) is str and _literal_data(item) for key, item in value.items())
    return False
