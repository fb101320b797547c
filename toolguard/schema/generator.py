"""A Draft 2020-12 code generator: fastjsonschema's draft 7 generator plus what 2020-12 adds.

fastjsonschema 2.22 runs 2020-12 schemas as draft 7 and silently skips the newer keywords.
This subclass generates code for them, with the same execution model (Python source,
compiled once). Keywords still missing here are refused by `keywords.prepare`, never skipped.

`unevaluatedProperties`/`unevaluatedItems` need annotations: which members and items the
other keywords evaluated, through every in-place applicator that *succeeded*. When a schema
uses them, the generated code keeps one set per instance location, `<variable>_ev`: keywords
add the member names and item indexes they evaluate; each in-place subschema collects into its
own set, merged into its parent's only if it passes; `not` never contributes; a `$ref`'d
function returns its set. Schemas without them get exactly the untracked code.

`$dynamicRef` needs the dynamic scope: generated code keeps a per-thread stack of the schema
resources entered (`runtime.DynamicScope`) and picks, among the targets `keywords.prepare`
listed, the outermost resource of the stack with a matching `$dynamicAnchor`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, cast

from fastjsonschema.draft07 import CodeGeneratorDraft07
from fastjsonschema.exceptions import JsonSchemaDefinitionException
from fastjsonschema.ref_resolver import RefResolver

from toolguard.schema.keywords import REF_RESOURCE_TAG, RESOURCE_TAG
from toolguard.schema.runtime import exact_number


class CodeGenerator202012(CodeGeneratorDraft07):
    """Draft 7 generation plus every Draft 2020-12 keyword `keywords.prepare` lets through."""

    def __init__(
        self, definition: Any, resolver: RefResolver, formats: dict[str, Any], *, use_formats: bool
    ) -> None:
        super().__init__(definition, resolver, formats, use_default=False, use_formats=use_formats)
        self._track = _uses(definition, ("unevaluatedProperties", "unevaluatedItems"))
        self._dynamic = _uses(definition, ("$dynamicRef",))
        self._json_keywords_to_function.update(
            (
                ("prefixItems", self.generate_prefix_items),
                ("dependentRequired", self.generate_dependent_required),
                ("dependentSchemas", self.generate_dependent_schemas),
                ("$dynamicRef", self.generate_dynamic_ref),
                # Last: they need every other keyword's annotations.
                ("unevaluatedProperties", self.generate_unevaluated_properties),
                ("unevaluatedItems", self.generate_unevaluated_items),
            )
        )

    # --- annotation tracking ------------------------------------------------------------------

    def generate_validation_function(self, uri: str, name: str) -> None:
        """Each function returns the set of what it evaluated in its instance (when tracking)."""
        if not self._track:
            super().generate_validation_function(uri, name)
            return
        self._validation_functions_done.add(uri)
        self.l("")
        with (
            self._resolver.resolving(uri) as definition,
            self.l("def {}(data, custom_formats={{}}, name_prefix=None):", name),
        ):
            self.l("data_ev = set()")
            self.generate_func_code_block(definition, "data", "data", clear_variables=True)
            self.l("return data_ev")

    def generate_func_code_block(
        self, definition: Any, variable: str, variable_name: str, clear_variables: bool = False
    ) -> int:
        """Generate a subschema's code, giving it its own annotation set when tracking.

        A new instance location starts empty. An in-place subschema (a branch of `allOf`,
        `anyOf`, ...) also collects into a set of its own, merged into its parent's only once
        it has passed: its `unevaluated*` must not see what its siblings evaluated.
        """
        if not self._track:
            return self._in_resource(definition, variable, variable_name, clear_variables)
        if variable != self._variable:
            self.l("{}_ev = set()", variable)
            return self._in_resource(definition, variable, variable_name, clear_variables)
        self._any_or_one_of_count += 1
        parent = f"{variable}_evp{self._any_or_one_of_count}"
        self.l("{} = {}_ev", parent, variable)
        self.l("{}_ev = set()", variable)
        count = self._in_resource(definition, variable, variable_name, clear_variables)
        self.l("{}.update({}_ev)", parent, variable)
        self.l("{}_ev = {}", variable, parent)
        return count

    def _in_resource(
        self, definition: Any, variable: str, variable_name: str, clear_variables: bool
    ) -> int:
        """Generate a subschema; a resource's root enters the dynamic scope while it runs."""
        resource = definition.get(RESOURCE_TAG) if isinstance(definition, dict) else None
        if not (self._dynamic and resource):
            return int(
                super().generate_func_code_block(
                    definition, variable, variable_name, clear_variables
                )
            )
        with self._entering(resource):
            count = super().generate_func_code_block(
                definition, variable, variable_name, clear_variables
            )
        return int(count)

    @contextmanager
    def _entering(self, resource: str) -> Iterator[None]:
        """Generated code: push `resource` on the dynamic scope around the block."""
        self.l("DYNAMIC_SCOPE.stack.append({})", repr(resource))
        with self.l("try:", optimize=False):
            before = len(self._code)
            yield
            if len(self._code) == before:
                self.l("pass")
        with self.l("finally:", optimize=False):
            self.l("DYNAMIC_SCOPE.stack.pop()")

    def _function_for(self, ref: str) -> str:
        """The name of the generated function for a local pointer ref, queued if needed."""
        with self._resolver.in_scope(ref):
            name: str = self._resolver.get_scope_name()
            uri = self._resolver.get_uri()
            if uri not in self._validation_functions_done:
                self._needed_validation_functions[uri] = name
        return name

    def _call(self, function: str) -> str:
        """A call of a generated function on the current instance (keeping its annotations)."""
        path = str(self._variable_name)[4:]
        name_arg = f'(name_prefix or "data") + "{path}"'
        if "{" in name_arg or "}" in name_arg:
            name_arg += ".format(**locals())"
        call = f"{function}({{variable}}, custom_formats, {_literal(name_arg)})"
        return f"{{variable}}_ev.update({call})" if self._track else call

    def generate_dynamic_ref(self) -> None:
        """`$dynamicRef`: the outermost resource of the dynamic scope with a matching anchor.

        Without one, or for a plain reference, the static target.
        """
        info = self._here["$dynamicRef"]
        static = self._function_for(info["static"])
        if not info["dynamic"]:
            with self._entering(info["resource"]):
                self.l(self._call(static))
            return
        choices = {uri: self._function_for(ref) for uri, ref in info["dynamic"].items()}
        table = "{" + ", ".join(f"{uri!r}: {name}" for uri, name in choices.items()) + "}"
        self.l("{variable}_dyn = None")
        with self.l("for {variable}_dres in DYNAMIC_SCOPE.stack:"):
            self.l("{variable}_dyn = {}.get({variable}_dres)", table)
            with self.l("if {variable}_dyn is not None:"):
                self.l("break")
        with self.l("if {variable}_dyn is None:"):
            self.l("{variable}_dyn = {}", static)
            self.l("{variable}_dres = {}", repr(info["resource"]))
        self.l("DYNAMIC_SCOPE.stack.append({variable}_dres)")
        with self.l("try:", optimize=False):
            self.l(self._call("{variable}_dyn"))
        with self.l("finally:", optimize=False):
            self.l("DYNAMIC_SCOPE.stack.pop()")

    def generate_ref(self) -> None:
        """`$ref`: call the target's function; keep what it evaluated; enter its resource."""
        resource = self._here.get(REF_RESOURCE_TAG)
        if not self._track and not (self._dynamic and resource):
            super().generate_ref()
            return
        function = self._function_for(self._here["$ref"])
        if self._dynamic and resource:
            with self._entering(resource):
                self.l(self._call(function))
        else:
            self.l(self._call(function))

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
        """`not`: never contributes annotations, whether its subschema passes or not."""
        if not self._track or isinstance(self._here["not"], bool):
            super().generate_not()
            return
        self._any_or_one_of_count += 1
        outer = f"{self._variable}_evo{self._any_or_one_of_count}"
        before = f"{outer}_copy"
        failed = f"{outer}_failed"
        self.l("{} = {variable}_ev", outer)
        self.l("{} = set({variable}_ev)", before)
        self.l("{} = False", failed)
        with self.l("try:", optimize=False), self.trial_validation():
            self._block(self._here["not"], str(self._variable), str(self._variable_name), True)
        with self.l("except JsonSchemaValueException:", optimize=False):
            self.l("{} = True", failed)
        self.l("{variable}_ev = {}", outer)
        self.l("{variable}_ev.clear()")
        self.l("{variable}_ev.update({})", before)
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

    def _annotate(self, guard: str, line: str) -> None:
        if self._track:
            with self.l(guard):
                self.l(line)

    def generate_properties(self) -> None:
        """`properties` evaluates the members it names that are present."""
        super().generate_properties()
        names = _literal(repr(sorted(self._here["properties"])))
        self._annotate(
            "if {variable}_is_dict:", f"{{variable}}_ev.update({{variable}}.keys() & {names})"
        )

    def generate_pattern_properties(self) -> None:
        """`patternProperties` evaluates the members any of its patterns matches."""
        super().generate_pattern_properties()
        patterns = [
            f"REGEX_PATTERNS[{_literal(repr(pattern))}]"
            for pattern in self._here["patternProperties"]
        ]
        if patterns:
            matched = " or ".join(f"{pattern}.search(key)" for pattern in patterns)
            self._annotate(
                "if {variable}_is_dict:",
                f"{{variable}}_ev.update(key for key in {{variable}} if {matched})",
            )

    def generate_additional_properties(self) -> None:
        """`additionalProperties` evaluates every member the others left."""
        super().generate_additional_properties()
        self._annotate("if {variable}_is_dict:", "{variable}_ev.update({variable})")

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

    # --- keywords draft 7 lacks ----------------------------------------------------------------

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
            with self.l(
                "for {variable}_x, {variable}_item in enumerate({variable}[{0}:], {0}):", start
            ):
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

    def generate_dependent_schemas(self) -> None:
        """`dependentSchemas`: when a member is present, the object must match its schema."""
        if not self._here["dependentSchemas"]:
            return
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            for key, dependent in self._here["dependentSchemas"].items():
                with self.l("if {} in {variable}:", repr(key)):
                    self._block(dependent, str(self._variable), str(self._variable_name), True)


class _UniqueNames(RefResolver):
    """Function names that cannot collide.

    fastjsonschema names a function after its scope with punctuation dropped, so `/a-b` and
    `/a_b` would share a name and one would silently replace the other: add a digest.
    """

    def walk(self, node: Any, depth: int = 0, rewrite_refs: bool = True) -> None:
        """Walk nothing: `prepare` already resolved every reference and removed every `$id`.

        NOTE: fastjsonschema's walk also enters `const` data and rewrites `$ref` strings found
        there against any `$id` beside them, silently changing what the const compares to.
        """

    def get_scope_name(self) -> str:
        name = super().get_scope_name()
        digest = hashlib.sha256(self.get_uri().encode()).hexdigest()[:12]
        return f"{name}_{digest}"


def generate_source(
    definition: Any, handlers: Any, formats: dict[str, Any], *, use_formats: bool
) -> str:
    """Python source of the validation module for a prepared 2020-12 schema."""
    resolver = _UniqueNames.from_schema(definition, handlers=handlers, store={})
    generator = CodeGenerator202012(definition, resolver, formats, use_formats=use_formats)
    return f"{generator.global_state_code}\n{generator.func_code}"


def _uses(node: Any, keywords: tuple[str, ...]) -> bool:
    """Whether any object in the schema has one of `keywords` (data included: harmless)."""
    if isinstance(node, dict):
        if any(keyword in node for keyword in keywords):
            return True
        return any(_uses(value, keywords) for value in node.values())
    if isinstance(node, list):
        return any(_uses(item, keywords) for item in node)
    return False


def _literal(code: str) -> str:
    """Protect a Python literal from the `str.format` that fastjsonschema's `l()` applies."""
    return code.replace("{", "{{").replace("}", "}}")
