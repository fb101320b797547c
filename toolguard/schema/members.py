"""`required`, `properties` and `additionalProperties` in the generator, without a set per object.

fastjsonschema builds two sets for every object it checks (`set(required) - keys`, and a copy
of the keys from which `properties` removes each member it finds) even when the object is
valid and nothing reads them: on a large array of records that is most of the work. Here the
members are looked up in the object itself and compared with module-level frozensets
(`GeneratorBase._names`); a set is built only in an error branch, for the message, or when a
keyword reads the leftover members one by one (`GeneratorBase._leftover_read`). The checks run
in the same order, with the same messages.
"""

from __future__ import annotations

import re

from fastjsonschema.exceptions import JsonSchemaDefinitionException

from toolguard.schema.generator_base import GeneratorBase, literal

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# What fastjsonschema drops from a member name to name its variable (`data__<name>`).
_NOT_IN_NAME = re.compile(r"($[^a-zA-Z]|[^a-zA-Z0-9])")


class Members(GeneratorBase):
    """The keywords about which members an object has."""

    def generate_required(self) -> None:
        """`required`: one subset test against a frozenset; the missing names on failure.

        NOTE: a name no member could have (`additionalProperties: false` and nothing declares
        it) makes every object fail, and any other value pass: a valid schema, enforced as
        written (fastjsonschema refused it as an invalid schema). A value that is not an array
        of distinct strings never gets here: `keyword_values` refused it with its pointer.
        """
        required = self._here["required"]
        if not required:
            return
        names = self._names(required)
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            test = "if not {variable}.keys() >= {}:"
            if self._exactly_named():
                # NOTE: one comparison settles this and `additionalProperties` for a valid
                # object; the usual tests still run (and report) when it fails.
                self.l("{variable}_keys_exact = {variable}.keys() == {}", names)
                test = "if not {variable}_keys_exact and not {variable}.keys() >= {}:"
            with self.l(test, names):
                self._missing(required, names)

    def _missing(self, required: list[Any] | tuple[Any, ...], names: str) -> None:
        self.l("{variable}__missing_keys = {} - {variable}.keys()", names)
        dynamic = 'str(sorted({variable}__missing_keys)) + " properties"'
        self.exc("{name} must contain ", self.e(required), rule="required", append_to_msg=dynamic)

    def _exactly_named(self) -> bool:
        """Whether a valid object has exactly the members `properties` names, all required.

        `additionalProperties: false`, no `patternProperties`, `required` naming every one.
        """
        here = self._here
        return (
            here.get("additionalProperties", True) is False
            and not here.get("patternProperties")
            and bool(here.get("required"))
            and set(here["required"]) == set(here.get("properties", {}))
        )

    def generate_properties(self) -> None:
        """`properties`: each member it names that is present must match its schema."""
        if self._leftover_read():
            super().generate_properties()
            return
        if not self._here["properties"]:
            return
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            for key, definition in self._here["properties"].items():
                name = _NOT_IN_NAME.sub("", key)
                if not isinstance(definition, dict | bool):
                    raise JsonSchemaDefinitionException(f"{self._variable}[{name}] must be object")
                with self.l('if "{}" in {variable}:', self.e(key)):
                    self.l('{variable}__{0} = {variable}["{1}"]', name, self.e(key))
                    self.generate_func_code_block(
                        definition,
                        f"{self._variable}__{name}",
                        f"{self._variable_name}.{literal(self.e(key))}",
                        clear_variables=True,
                    )

    def generate_additional_properties(self) -> None:
        """`additionalProperties: false` beside `properties` alone: one subset test.

        `true` or `{}` generate nothing (fastjsonschema built the set of keys all the same).
        """
        extra = self._here["additionalProperties"]
        if extra is True or extra == {}:
            return
        if extra is not False or self._leftover_read():
            super().generate_additional_properties()
            return
        names = self._names(self._here.get("properties", {}))
        self.create_variable_is_dict()
        test = "if not {variable}.keys() <= {}:"
        if self._exactly_named():  # `generate_required` compared the keys (it runs first)
            test = "if not {variable}_keys_exact and not {variable}.keys() <= {}:"
        with self.l("if {variable}_is_dict:"), self.l(test, names):
            # NOTE: the same set fastjsonschema reports, its members in the same order: the
            # object's keys, with the named members removed in place.
            self.l("{variable}_keys = set({variable}.keys())")
            self.l("{variable}_keys -= {}", names)
            self.exc(
                '{name} must not contain "+str({variable}_keys)+" properties',
                rule="additionalProperties",
            )
