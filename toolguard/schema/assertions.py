"""The 2020-12 assertions draft 7 lacks (`dependentRequired`) or decides wrongly (`multipleOf`).

(`minContains`/`maxContains` are counted by `contains` itself, in `applicators`.)
"""

from __future__ import annotations

from toolguard.schema.generator_base import GeneratorBase
from toolguard.schema.runtime import exact_number


class Assertions(GeneratorBase):
    """`dependentRequired`, and `multipleOf` decided exactly."""

    def generate_multiple_of(self) -> None:
        """`multipleOf`, decided on the exact decimal values the JSON text wrote.

        NOTE: fastjsonschema divides floats (every float past 2**53 "is" a multiple of 3) or
        Decimals at 28 digits (1e28 "is" a multiple of 0.7). `exact_number` reads a float back
        through its shortest repr, which is the decimal the parser read, as a Fraction.
        """
        divisor = exact_number(self._here["multipleOf"])
        with (
            self.l("if isinstance({variable}, (int, float)) and not isinstance({variable}, bool):"),
            self.l(
                "if not is_multiple({variable}, Fraction({}, {})):",
                divisor.numerator,
                divisor.denominator,
            ),
        ):
            self.exc("{name} must be multiple of {multipleOf}", rule="multipleOf")

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
