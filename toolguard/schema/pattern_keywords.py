"""`pattern`, `patternProperties` and `required` in the generator: patterns run on RE2.

fastjsonschema compiles each pattern with Python's `re` as it generates, and its module builds
`re.compile(...)` objects, whose backtracking lets one hostile string hold a check for hours.
Here the prepared schema's patterns are already RE2 syntax (`regex.py`), and the generated
module holds a `Matcher` for each (`PATTERN`, which `cache.function_of` puts in its globals),
compiled when first used: loading a cached validator imports no regex engine.
"""

from __future__ import annotations

from fastjsonschema.exceptions import JsonSchemaDefinitionException

from toolguard.schema.generator_base import GeneratorBase
from toolguard.schema.matcher import Matcher


class PatternKeywords(GeneratorBase):
    """The keywords that read a pattern, generated for RE2 instead of Python's `re`."""

    def generate_pattern(self) -> None:
        """`pattern`: an ECMA-262 search (not anchored) on strings."""
        pattern = self._here["pattern"]
        self._compile_regexps[pattern] = pattern
        with (
            self.l("if isinstance({variable}, str):"),
            self.l("if not REGEX_PATTERNS[{}].search({variable}):", repr(pattern)),
        ):
            self.exc("{name} must match pattern {}", self.e(pattern), rule="pattern")

    def generate_pattern_properties(self) -> None:
        """`patternProperties`: each member whose name a pattern finds must match its schema."""
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            self.create_variable_keys()
            patterns = self._here["patternProperties"]
            if not patterns:
                return
            self._compile_regexps.update((pattern, pattern) for pattern in patterns)
            with self.l("for {variable}_key, {variable}_val in {variable}.items():"):
                for pattern, definition in patterns.items():
                    with (
                        self.l("if REGEX_PATTERNS[{}].search({variable}_key):", repr(pattern)),
                    ):
                        with self.l("if {variable}_key in {variable}_keys:"):
                            self.l("{variable}_keys.remove({variable}_key)")
                        self.generate_func_code_block(
                            definition,
                            f"{self._variable}_val",
                            f"{self._variable_name}.{{{self._variable}_key}}",
                            clear_variables=True,
                        )

    def generate_required(self) -> None:
        """`required`, generated as fastjsonschema does, with names matched by RE2.

        A required name no member could have (a closed object, no pattern finds it) is refused.
        """
        required = self._here["required"]
        if not isinstance(required, list | tuple):
            raise JsonSchemaDefinitionException("required must be an array")
        if len(required) != len(set(required)):
            raise JsonSchemaDefinitionException("required must contain unique elements")
        if not self._here.get("additionalProperties", True):
            allowed = self._here.get("properties", {})
            patterns = [Matcher(pattern) for pattern in self._here.get("patternProperties", {})]
            impossible = [
                name
                for name in required
                if name not in allowed and not any(pattern.search(name) for pattern in patterns)
            ]
            if impossible:
                raise JsonSchemaDefinitionException(
                    f"{self._variable}: items {impossible} are required but not allowed"
                )
        self.create_variable_is_dict()
        with self.l("if {variable}_is_dict:"):
            self.l("{variable}__missing_keys = set({required}) - {variable}.keys()")
            with self.l("if {variable}__missing_keys:"):
                dynamic = 'str(sorted({variable}__missing_keys)) + " properties"'
                self.exc(
                    "{name} must contain ", self.e(required), rule="required", append_to_msg=dynamic
                )

    @property
    def global_state_code(self) -> str:
        """The module's head: one lazily compiled `PATTERN` per pattern, no `import re`."""
        self._generate_func_code()
        lines = [*self._extra_imports_lines, "", ""]
        if self._compile_regexps:
            if not all(isinstance(value, str) for value in self._compile_regexps.values()):
                raise JsonSchemaDefinitionException("a regex toolguard did not translate")
            entries = "".join(
                f"\n    {pattern!r}: PATTERN({pattern!r})," for pattern in self._compile_regexps
            )
            lines.append(f"REGEX_PATTERNS = {{{entries}\n}}")
        return "\n".join(lines)
