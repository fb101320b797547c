"""`unevaluatedProperties`/`unevaluatedItems`, and the annotation tracking they need.

They need annotations: which members and items the other keywords evaluated, through every
in-place applicator that *succeeded*. When a schema uses them, the generated code keeps one
set per instance location, `<variable>_ev`: keywords add the member names and item indexes
they evaluate; each in-place subschema collects into its own set, merged into its parent's
only if it passes; `not` never contributes; a `$ref`'d function returns its set (see
`dynamic_scope`). Schemas without them get exactly the untracked code, and so does each
instance location whose set nothing could read (`_read_here`): on an array of records whose
items use `unevaluatedProperties` and whose members are plain values, one set per record.
"""

from __future__ import annotations

from typing import Any

from toolguard.schema.generator_base import GeneratorBase, literal

# The keywords that read an instance location's annotations, or hand them to what does: the
# `unevaluated*` pair, and the in-place applicators (their subschemas apply to the same
# instance, and may hold the pair, directly or behind a reference).
_READERS = frozenset(
    (
        "unevaluatedProperties",
        "unevaluatedItems",
        "$ref",
        "$dynamicRef",
        "allOf",
        "anyOf",
        "oneOf",
        "not",
        "if",
        "then",
        "else",
        "dependentSchemas",
    )
)


class AnnotationTracking(GeneratorBase):
    """Every keyword's annotations, collected when `unevaluated*` needs them, and those two."""

    def generate_validation_function(self, uri: str, name: str) -> None:
        """Each function returns the set of what it evaluated in its instance (when tracking)."""
        if not self._track_schema:
            super().generate_validation_function(uri, name)
            return
        self._validation_functions_done.add(uri)
        self.l("")
        track, self._track = self._track, True  # NOTE: its caller reads the set it returns
        with (
            self._resolver.resolving(uri) as definition,
            self.l("def {}(data, custom_formats={{}}, name_prefix=None):", name),
        ):
            self.l("data_ev = set()")
            self._in_resource(definition, "data", "data", clear_variables=True)
            self.l("return data_ev")
        self._track = track

    def generate_func_code_block(
        self, definition: Any, variable: str, variable_name: str, clear_variables: bool = False
    ) -> int:
        """Generate a subschema's code, giving it its own annotation set when tracking.

        A new instance location starts empty. An in-place subschema (a branch of `allOf`,
        `anyOf`, ...) also collects into a set of its own, merged into its parent's only once
        it has passed: its `unevaluated*` must not see what its siblings evaluated.
        """
        if variable != self._variable and self._track_schema:
            # A new instance location: it keeps a set only if something may read it.
            track, self._track = self._track, _read_here(definition)
            if self._track:
                self.l("{}_ev = set()", variable)
            try:
                return self._in_resource(definition, variable, variable_name, clear_variables)
            finally:
                self._track = track
        if not self._track:
            return self._in_resource(definition, variable, variable_name, clear_variables)
        self._any_or_one_of_count += 1
        parent = f"{variable}_evp{self._any_or_one_of_count}"
        self.l("{} = {}_ev", parent, variable)
        self.l("{}_ev = set()", variable)
        count = self._in_resource(definition, variable, variable_name, clear_variables)
        self.l("{}.update({}_ev)", parent, variable)
        self.l("{}_ev = {}", variable, parent)
        return count

    def _trial(self, definition: Any, on_success: str) -> None:
        """Try `definition` on the same instance; if it fails, its annotations are dropped.

        (It collects into a set of its own, merged only on success: the `except` branch just
        rebinds the location's set to the parent's.)
        """
        self._any_or_one_of_count += 1
        outer = f"{self._variable}_evo{self._any_or_one_of_count}"
        self.l("{} = {variable}_ev", outer)
        with self.l("try:", optimize=False), self.trial_validation():
            self._block(definition, str(self._variable), str(self._variable_name), True)
            self.l(on_success)
        with self.l("except JsonSchemaValueException:", optimize=False):
            self.l("{variable}_ev = {}", outer)

    def generate_any_of(self) -> None:
        """`anyOf`: when tracking, every branch is tried, as each valid one adds annotations."""
        if not self._track:
            super().generate_any_of()
            return
        self._any_or_one_of_count += 1
        counter = f"{self._variable}_any_of{self._any_or_one_of_count}"
        self.l("{} = 0", counter)
        for branch in self._here["anyOf"]:
            self._trial(branch, f"{counter} += 1")
        with self.l("if not {}:", counter):
            self.exc("{name} cannot be validated by any definition", rule="anyOf")

    def generate_one_of(self) -> None:
        """`oneOf`: the one valid branch keeps its annotations."""
        if not self._track:
            super().generate_one_of()
            return
        self._any_or_one_of_count += 1
        counter = f"{self._variable}_one_of{self._any_or_one_of_count}"
        self.l("{} = 0", counter)
        for branch in self._here["oneOf"]:
            self._trial(branch, f"{counter} += 1")
        with self.l("if {} != 1:", counter):
            self.exc("{name} must be valid exactly by one definition", rule="oneOf")

    def generate_not(self) -> None:
        """`not`: never contributes annotations, whether its subschema passes or not.

        NOTE: the subschema collects into a set of its own (`generate_func_code_block`), merged
        only once it has passed, when `not` fails: a failed one's set is simply dropped here.
        """
        if not self._track or isinstance(self._here["not"], bool):
            super().generate_not()
            return
        self._any_or_one_of_count += 1
        outer = f"{self._variable}_evo{self._any_or_one_of_count}"
        failed = f"{outer}_failed"
        self.l("{} = {variable}_ev", outer)
        self.l("{} = False", failed)
        with self.l("try:", optimize=False), self.trial_validation():
            self._block(self._here["not"], str(self._variable), str(self._variable_name), True)
        with self.l("except JsonSchemaValueException:", optimize=False):
            self.l("{} = True", failed)
        self.l("{variable}_ev = {}", outer)
        with self.l("if not {}:", failed):
            self.exc("{name} must NOT match a disallowed definition", rule="not")

    def generate_if_then_else(self) -> None:
        """`if`: its annotations count when it passes; then `then` or `else` applies."""
        if not self._track:
            super().generate_if_then_else()
            return
        self._any_or_one_of_count += 1
        passed = f"{self._variable}_if{self._any_or_one_of_count}"
        self.l("{} = False", passed)
        self._trial(self._here["if"], f"{passed} = True")
        for keyword, condition in (("then", "if {}:"), ("else", "if not {}:")):
            if keyword in self._here:
                with self.l(condition, passed):
                    self._block(
                        self._here[keyword], str(self._variable), str(self._variable_name), True
                    )

    def generate_properties(self) -> None:
        """`properties` evaluates the members it names that are present."""
        super().generate_properties()
        names = literal(repr(sorted(self._here["properties"])))
        self._annotate_members(f"{{variable}}_ev.update({{variable}}.keys() & {names})")

    def generate_pattern_properties(self) -> None:
        """`patternProperties` evaluates the members any of its patterns matches."""
        super().generate_pattern_properties()
        patterns = [
            f"REGEX_PATTERNS[{literal(repr(pattern))}]"
            for pattern in self._here["patternProperties"]
        ]
        if patterns:
            matched = " or ".join(f"{pattern}.search(key)" for pattern in patterns)
            self._annotate_members(
                f"{{variable}}_ev.update(key for key in {{variable}} if {matched})"
            )

    def generate_additional_properties(self) -> None:
        """`additionalProperties` evaluates every member the others left."""
        super().generate_additional_properties()
        self._annotate_members("{variable}_ev.update({variable})")

    def _annotate_members(self, line: str) -> None:
        """Add an object's annotations (when tracking).

        NOTE: the keyword may have generated nothing (`properties: {}`, `additionalProperties:
        true`: see `members`), so `{variable}_is_dict` is made here if no keyword made it.
        """
        if self._track:
            self.create_variable_is_dict()
            self._annotate("if {variable}_is_dict:", line)

    def generate_unevaluated_properties(self) -> None:
        """`unevaluatedProperties`: members no other keyword evaluated must match it."""
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            self.l("{variable}_unevaluated = [k for k in {variable} if k not in {variable}_ev]")
            if self._here["unevaluatedProperties"] is False:
                with self.l("if {variable}_unevaluated:"):
                    self.exc(
                        "{name} must not contain unevaluated properties "
                        '" + str({variable}_unevaluated) + "',
                        rule="unevaluatedProperties",
                    )
            else:
                with self.l("for {variable}_uk in {variable}_unevaluated:"):
                    self.l("{variable}_uv = {variable}[{variable}_uk]")
                    self._block(
                        self._here["unevaluatedProperties"],
                        f"{self._variable}_uv",
                        f"{self._variable_name}.{{{self._variable}_uk}}",
                    )
            self.l("{variable}_ev.update({variable})")

    def generate_unevaluated_items(self) -> None:
        """`unevaluatedItems`: items no other keyword evaluated must match it."""
        self.create_variable_is_list()
        with self.l("if {variable}_is_list:"):
            if self._here["unevaluatedItems"] is False:
                with self.l("if len({variable}_ev) < len({variable}):"):
                    self.exc("{name} must not contain unevaluated items", rule="unevaluatedItems")
            else:
                with (
                    self.l("for {variable}_ux, {variable}_uv in enumerate({variable}):"),
                    self.l("if {variable}_ux not in {variable}_ev:"),
                ):
                    self._block(
                        self._here["unevaluatedItems"],
                        f"{self._variable}_uv",
                        f"{self._variable_name}[{{{self._variable}_ux}}]",
                    )
            self.l("{variable}_ev.update(range(len({variable})))")


def _read_here(definition: Any) -> bool:
    """Whether an instance location's annotations may be read (see `_READERS`).

    Without such a keyword, nothing at the location reads its set: its members and items
    are new locations with sets of their own, and its parent records only that it is there.
    """
    return isinstance(definition, dict) and not _READERS.isdisjoint(definition)
