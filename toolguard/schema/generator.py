"""A Draft 2020-12 code generator: fastjsonschema's draft 7 generator plus what 2020-12 adds.

fastjsonschema 2.22 runs 2020-12 schemas as draft 7 and silently skips the newer keywords.
This subclass generates code for them, with the same execution model (Python source,
compiled once). Keywords still missing here are refused by `keywords.prepare`, never skipped.
"""

from __future__ import annotations

from typing import Any, cast

from fastjsonschema.draft07 import CodeGeneratorDraft07
from fastjsonschema.exceptions import JsonSchemaDefinitionException
from fastjsonschema.ref_resolver import RefResolver


class CodeGenerator202012(CodeGeneratorDraft07):
    """Draft 7 generation, with `$ref` beside other keywords and the 2020-12 array keywords."""

    def __init__(
        self, definition: Any, resolver: RefResolver, formats: dict[str, Any], *, use_formats: bool
    ) -> None:
        super().__init__(definition, resolver, formats, use_default=False, use_formats=use_formats)
        self._json_keywords_to_function.update(
            (
                ("prefixItems", self.generate_prefix_items),
                ("dependentRequired", self.generate_dependent_required),
                ("dependentSchemas", self.generate_dependent_schemas),
            )
        )

    def _generate_func_code_block(self, definition: Any) -> int:
        # NOTE: draft 7 lets `$ref` override its siblings; in 2020-12 it is one keyword among
        # others, all of which apply.
        if isinstance(definition, bool):
            return int(self.generate_boolean_schema() or 0)
        if not isinstance(definition, dict):
            raise JsonSchemaDefinitionException("definition must be an object")
        count = 0
        if "$ref" in definition:
            self.generate_ref()
            count = 1
        return count + int(self.run_generate_functions(definition))

    @property
    def _here(self) -> dict[str, Any]:
        """The subschema being generated (an object whenever a keyword function runs)."""
        return cast(dict[str, Any], self._definition)

    def _expand_refs(self, definition: Any) -> Any:
        # Error reports carry the failing subschema as written (with its location tag), not
        # the target of its `$ref`, which would hide the sibling keyword that failed.
        return definition

    def _block(self, definition: Any, variable: str, name: str, clear: bool = False) -> None:
        """Generate a nested block, with `pass` if the subschema generated no code."""
        before = len(self._code)
        self.generate_func_code_block(definition, variable, name, clear_variables=clear)
        if len(self._code) == before:
            self.l("pass")

    def generate_prefix_items(self) -> None:
        """`prefixItems`: item i must match schema i, for the items the array has."""
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            self.create_variable_with_length()
            for index, item_definition in enumerate(self._here["prefixItems"]):
                with self.l("if {variable}_len > {}:", index):
                    self.l("{variable}__{0} = {variable}[{0}]", index)
                    self._block(
                        item_definition,
                        f"{self._variable}__{index}",
                        f"{self._variable_name}[{index}]",
                    )

    def generate_items(self) -> None:
        """`items`: every item after those `prefixItems` covers must match."""
        items_definition = self._here["items"]
        if items_definition is True:
            return
        start = len(self._here.get("prefixItems", ()))
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            if items_definition is False:
                self.create_variable_with_length()
                with self.l("if {variable}_len > {}:", start):
                    self.exc("{name} must contain only specified items", rule="items")
                return
            with self.l(
                "for {variable}_x, {variable}_item in enumerate({variable}[{0}:], {0}):", start
            ):
                self._block(
                    items_definition,
                    f"{self._variable}_item",
                    f"{self._variable_name}[{{{self._variable}_x}}]",
                )

    def generate_contains(self) -> None:
        """`contains` with `minContains` (default 1) and `maxContains` matching items."""
        minimum = self._here.get("minContains", 1)
        maximum = self._here.get("maxContains")
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            self.l("{variable}_contains = 0")
            with self.l("for {variable}_key in {variable}:"):
                with self.l("try:"), self.trial_validation():
                    self._block(
                        self._here["contains"], f"{self._variable}_key", str(self._variable_name)
                    )
                    self.l("{variable}_contains += 1")
                self.l("except JsonSchemaValueException: pass")
            with self.l("if {variable}_contains < {}:", minimum):
                self.exc(
                    f"{{name}} must contain at least {minimum} matching items", rule="contains"
                )
            if maximum is not None:
                with self.l("if {variable}_contains > {}:", maximum):
                    self.exc(
                        f"{{name}} must contain at most {maximum} matching items",
                        rule="maxContains",
                    )

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

    def generate_dependent_schemas(self) -> None:
        """`dependentSchemas`: when a member is present, the object must match its schema."""
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            for key, dependent in self._here["dependentSchemas"].items():
                with self.l("if {} in {variable}:", repr(key)):
                    self._block(dependent, str(self._variable), str(self._variable_name), True)


def generate_source(
    definition: Any, handlers: Any, formats: dict[str, Any], *, use_formats: bool
) -> str:
    """Python source of the validation module for a prepared 2020-12 schema."""
    resolver = RefResolver.from_schema(definition, handlers=handlers, store={})
    generator = CodeGenerator202012(definition, resolver, formats, use_formats=use_formats)
    return f"{generator.global_state_code}\n{generator.func_code}"
