"""The 2020-12 applicators draft 7 lacks or reads differently: arrays and dependent schemas.

`prefixItems` with `items` replace draft 7's array-form `items`; `contains` counts its
matches for `minContains`/`maxContains`; `dependentSchemas` is half of draft 7's
`dependencies`. Each adds the items it evaluates when `unevaluated*` needs them.
"""

from __future__ import annotations

from toolguard.schema.generator_base import GeneratorBase


class Applicators(GeneratorBase):
    """`prefixItems`, `items`, `contains` (with its counts) and `dependentSchemas`."""

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
            if self._track:
                count = len(self._here["prefixItems"])
                self.l("{variable}_ev.update(range(min({variable}_len, {})))", count)

    def generate_items(self) -> None:
        """`items`: every item after those `prefixItems` covers must match."""
        items_definition = self._here["items"]
        if items_definition is True:
            if self._track:  # `items: true` evaluates every item all the same
                self._annotate(
                    "if isinstance({variable}, list):",
                    "{variable}_ev.update(range(len({variable})))",
                )
            return
        start = len(self._here.get("prefixItems", ()))
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            if items_definition is False:
                self.create_variable_with_length()
                with self.l("if {variable}_len > {}:", start):
                    self.exc("{name} must contain only specified items", rule="items")
                return
            # NOTE: no slice from 0: it would copy the whole array first.
            rest = "{variable}[{0}:], {0}" if start else "{variable}"
            with self.l(f"for {{variable}}_x, {{variable}}_item in enumerate({rest}):", start):
                self._block(
                    items_definition,
                    f"{self._variable}_item",
                    f"{self._variable_name}[{{{self._variable}_x}}]",
                )
            if self._track:
                self.l("{variable}_ev.update(range(len({variable})))")

    def generate_contains(self) -> None:
        """`contains` with `minContains` (default 1) and `maxContains` matching items."""
        minimum = self._here.get("minContains", 1)
        maximum = self._here.get("maxContains")
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            self.l("{variable}_contains = 0")
            with self.l("for {variable}_ci, {variable}_key in enumerate({variable}):"):
                with self.l("try:"), self.trial_validation():
                    self._block(
                        self._here["contains"], f"{self._variable}_key", str(self._variable_name)
                    )
                    self.l("{variable}_contains += 1")
                    if self._track:
                        self.l("{variable}_ev.add({variable}_ci)")
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

    def generate_dependent_schemas(self) -> None:
        """`dependentSchemas`: when a member is present, the object must match its schema."""
        if not self._here["dependentSchemas"]:
            return
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            for key, dependent in self._here["dependentSchemas"].items():
                with self.l("if {} in {variable}:", repr(key)):
                    self._block(dependent, str(self._variable), str(self._variable_name), True)
