"""The base of the Draft 2020-12 generator: draft 7's generator with 2020-12's subschema model.

In draft 7 `$ref` overrides its siblings; in 2020-12 it is one keyword among others, all of
which apply. The keyword families (`unevaluated`, `dynamic_scope`, `applicators`,
`assertions`) are mixins over this base and share its helpers; `generator` composes them.
"""

from __future__ import annotations

import ast
import re
from string import Formatter
from typing import Any, cast

from fastjsonschema.draft07 import CodeGeneratorDraft07
from fastjsonschema.exceptions import JsonSchemaDefinitionException

from toolguard.errors import SchemaError

# NOTE: CPython needs 35-70 bytes of memory per byte of source it compiles, so the code a
# schema generates is the budget that bounds compiling it (toolguard's own contract schema
# generates 0.3 MiB). Counted line by line, so an oversized schema stops generating at once.
MAX_SOURCE_BYTES = 8 << 20
# fastjsonschema fills an array index into an instance's name with `"...".format(**locals())`.
# NOTE: every string literal is matched whole, from the left: only then is a quote known to open
# a literal, and `.format(**locals())` known to be code. A schema's own strings (a `const` in a
# `repr`, a member name) may hold quotes and that very text.
_LITERAL_FORMATTED = re.compile(
    r"""("(?:[^"\\]|\\.)*+"|'(?:[^'\\]|\\.)*+')(\.format\(\*\*locals\(\)\))?"""
)


class GeneratorBase(CodeGeneratorDraft07):
    """Draft 7 generation where `$ref` applies beside its siblings; helpers for the mixins."""

    # Set by the composed generator from the schema it compiles.
    _track_schema: bool  # it uses unevaluated* somewhere: annotations are collected
    _track: bool  # ... at the instance location being generated (see `unevaluated`)
    _dynamic: bool  # it uses $dynamicRef: resources enter the dynamic scope (`dynamic_scope`)
    _constants: dict[str, str]  # expression -> its module-level name (see `_constant`)

    def _start_budget(self) -> None:
        """Check every line generated from now on (`_GeneratedLines`)."""
        self._code = _GeneratedLines()

    @property
    def global_state_code(self) -> str:
        """The module's head: imports, then the constants the functions read (`_constant`)."""
        self._generate_func_code()
        lines = [*self._extra_imports_lines, "", ""]
        lines += [f"{name} = {expression}" for expression, name in self._constants.items()]
        return "\n".join(lines)

    def _constant(self, expression: str) -> str:
        """A name for `expression`, evaluated once when the module loads, not on every call."""
        name = self._constants.get(expression)
        if name is None:
            name = self._constants[expression] = f"CONSTANT_{len(self._constants)}"
        return name

    def _names(self, names: Any) -> str:
        """A module-level frozenset of member `names` (sorted: the same code every time)."""
        return self._constant(f"frozenset({sorted(names)!r})")

    def _in_resource(
        self, definition: Any, variable: str, variable_name: str, clear_variables: bool
    ) -> int:
        """Draft 7's code for a subschema block (`dynamic_scope` wraps it in its resource)."""
        return int(
            super().generate_func_code_block(definition, variable, variable_name, clear_variables)
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

    def _leftover_read(self) -> bool:
        """Whether a keyword reads the members no other keyword claimed, one by one.

        `additionalProperties` with a schema, or `false` beside `patternProperties`: then
        `properties` and `patternProperties` remove what they claim from `{variable}_keys`.
        Otherwise no set is built: members are looked up in the object itself (`members`).
        """
        extra = self._here.get("additionalProperties", True)
        if extra is True or extra == {}:
            return False
        return extra is not False or bool(self._here.get("patternProperties"))

    def _annotate(self, guard: str, line: str) -> None:
        if self._track:
            with self.l(guard):
                self.l(line)


class _GeneratedLines(list[str]):
    """The generated lines: within `MAX_SOURCE_BYTES`, and costing no more as the code grows.

    The schema is refused once the lines pass the budget. A name formatted from `locals()`
    is given its own variables instead: `locals()` copies every variable of the function, so
    each array item a `$ref` or a failed `anyOf` branch named cost more the larger the
    schema (66 µs an item beside 1,000 properties, 1 µs alone).
    """

    size = 0

    def append(self, line: str) -> None:
        """Add `line`, or raise `SchemaError` if the code would grow past the budget."""
        self.size += len(line) + 1
        if self.size > MAX_SOURCE_BYTES:
            raise SchemaError(
                f"schema too large to compile: its validator passes {MAX_SOURCE_BYTES >> 20} MiB"
                " of code; split it, or share repeated subschemas through $defs and $ref"
            )
        super().append(_LITERAL_FORMATTED.sub(_own_variables, line) if "locals()" in line else line)


def _own_variables(match: re.Match[str]) -> str:
    """`"[{data_x}]".format(**locals())` -> `"[{data_x}]".format(data_x=data_x)`.

    Any other literal is left as it is. The fields are read from the string the literal
    denotes, not from its source text.
    """
    if match[2] is None:
        return match[0]
    try:
        text = ast.literal_eval(match[1])
        names = {field for _, field, _, _ in Formatter().parse(text) if field is not None}
    except (ValueError, SyntaxError):  # a lone brace: leave the code as fastjsonschema wrote it
        return match[0]
    if not all(name.isidentifier() for name in names):
        return match[0]
    given = ", ".join(f"{name}={name}" for name in sorted(names))
    return f"{match[1]}.format({given})"


def literal(code: str) -> str:
    """Protect a Python literal from the `str.format` that fastjsonschema's `l()` applies."""
    return code.replace("{", "{{").replace("}", "}}")
