"""Subschemas nested too deeply for one Python function become functions of their own.

fastjsonschema inlines a subschema's code in its parent's, so the generated blocks nest as
deeply as the schema: CPython refuses a function with more than 20 statically nested blocks
(`for`, `try`; an `except` body counts twice) or 100 levels of indentation, and ten nested
`contains` already reached the first. A subschema whose code would start inside more than
`MAX_INLINE_BLOCKS` such blocks, or deeper than `MAX_INLINE_INDENT`, is generated as a
function of its own (as a `$ref` target is) and called where it would have been inlined. A
function's nesting is then that bound plus what one keyword opens around its subschemas and
its checks (a handful of blocks), so every schema within the limits compiles, whatever its
depth.
"""

from __future__ import annotations

import re
from typing import Any

from toolguard.schema.dynamic_scope import DynamicScope

# NOTE: the schemas people write stay below both bounds (the examples' and the shipped
# schemas' code is what it was before this), so a subschema past them is rare; it costs a call.
MAX_INLINE_BLOCKS = 8
MAX_INLINE_INDENT = 10
# What a block's header weighs against CPython's 20: loops and `try` one, an `except` body
# two (the handler and its clean-up), a `finally` body one; `if`/`else` nothing.
_WEIGHTS = {"for ": 1, "while ": 1, "try:": 1, "with ": 1, "except": 2, "finally:": 1}
_HEADER = re.compile(" *(" + "|".join(_WEIGHTS) + ")")
# Code at this indentation or less is inside blocks weighing at most the bound (2 a level).
_SHALLOW = MAX_INLINE_BLOCKS // 2 + 1
_OUTLINED = "urn:toolguard:outlined:"


class Outlining(DynamicScope):
    """Generate a subschema too deeply nested to inline as its own function, and call it."""

    _outlined: int  # how many subschemas got a function of their own (0 at first)
    _scanned: int  # how many lines of `_code` `_open_blocks` has read (0 at first)
    _last_at: list[int]  # the index of the last line read at each indentation

    def _in_resource(
        self, definition: Any, variable: str, variable_name: str, clear_variables: bool
    ) -> int:
        if self._indent <= _SHALLOW or (
            self._indent <= MAX_INLINE_INDENT and self._open_blocks() <= MAX_INLINE_BLOCKS
        ):
            return super()._in_resource(definition, variable, variable_name, clear_variables)
        self._outlined += 1
        uri = f"{_OUTLINED}{self._outlined}"
        # The resolver finds the function's subschema by its URI, as a `$ref` target's.
        self._resolver.store[uri] = definition
        backup = self._definition, self._variable, self._variable_name
        self._definition, self._variable, self._variable_name = definition, variable, variable_name
        try:
            call = self._call(self._function_for(uri))
            if self._fast_fail:
                self.l(call)
            else:  # the function collects into its own list: merge it into ours
                with self.l("try:", optimize=False):
                    self.l(call)
                with self.l("except JsonSchemaValuesException as e:"):
                    self.l("errors.extend(e.errors)")
        finally:
            self._definition, self._variable, self._variable_name = backup
        return 1

    def _open_blocks(self) -> int:
        """The weight of the blocks enclosing the code being generated.

        They open with the last line written at each lesser indentation (a later line there
        would have closed them). Each line is read once, however often this is asked.
        """
        code, last_at = self._code, self._last_at
        for index in range(self._scanned, len(code)):
            line = code[index]
            last_at[(len(line) - len(line.lstrip(" "))) // self.INDENT] = index
        self._scanned = len(code)
        headers = (_HEADER.match(code[last_at[level]]) for level in range(1, self._indent))
        return sum(_WEIGHTS[header.group(1)] for header in headers if header)
