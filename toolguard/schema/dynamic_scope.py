"""References in generated code: `$ref` and `$dynamicRef` call their target's function.

`$dynamicRef` needs the dynamic scope: generated code keeps a per-thread stack of the schema
resources entered (`runtime.DynamicScope`) and picks, among the targets `keywords.prepare`
listed, the outermost resource of the stack with a matching `$dynamicAnchor`. A call also
keeps what its target evaluated when `unevaluated*` needs it.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from toolguard.schema.generator_base import GeneratorBase, literal
from toolguard.schema.walker import REF_RESOURCE_TAG, RESOURCE_TAG


class DynamicScope(GeneratorBase):
    """`$ref` and `$dynamicRef`, and the resources they enter on the dynamic scope."""

    def _in_resource(
        self, definition: Any, variable: str, variable_name: str, clear_variables: bool
    ) -> int:
        """Generate a subschema; a resource's root enters the dynamic scope while it runs."""
        resource = definition.get(RESOURCE_TAG) if isinstance(definition, dict) else None
        if not (self._dynamic and resource):
            return super()._in_resource(definition, variable, variable_name, clear_variables)
        with self._entering(resource):
            return super()._in_resource(definition, variable, variable_name, clear_variables)

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
        call = f"{function}({{variable}}, custom_formats, {literal(name_arg)})"
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
