"""A Draft 2020-12 code generator: fastjsonschema's draft 7 generator plus what 2020-12 adds.

fastjsonschema 2.22 runs 2020-12 schemas as draft 7 and silently skips the newer keywords.
This generator produces code for them, with the same execution model (Python source,
compiled once). Keywords still missing here are refused by `keywords.prepare`, never skipped.

It is composed of one mixin per keyword family over `generator_base` (`$ref` beside other
keywords): `unevaluated` (`unevaluated*` and the annotations they need), `dynamic_scope`
(`$ref`/`$dynamicRef` calls), `applicators` (`prefixItems`, `items`, `contains`,
`dependentSchemas`), `assertions` (`dependentRequired`, exact `multipleOf`) and
`pattern_keywords` (`pattern`, `patternProperties`, run on RE2), `members` (`required`,
`properties`, `additionalProperties`, without a set per object) and `outline` (a subschema
nested too deeply for one Python function gets its own).
"""

from __future__ import annotations

import hashlib
from typing import Any

from fastjsonschema.ref_resolver import RefResolver

from toolguard.schema.applicators import Applicators
from toolguard.schema.assertions import Assertions
from toolguard.schema.dynamic_scope import DynamicScope
from toolguard.schema.members import Members
from toolguard.schema.outline import Outlining
from toolguard.schema.pattern_keywords import PatternKeywords
from toolguard.schema.unevaluated import AnnotationTracking


class CodeGenerator202012(
    Outlining, AnnotationTracking, DynamicScope, Applicators, Assertions, PatternKeywords, Members
):
    """Draft 7 generation plus every Draft 2020-12 keyword `keywords.prepare` lets through."""

    def __init__(
        self,
        definition: Any,
        resolver: RefResolver,
        formats: dict[str, Any],
        *,
        use_formats: bool,
        collect: bool = False,
    ) -> None:
        self._constants = {}
        self._plain = {}
        self._outlined = 0
        self._scanned = 0
        self._last_at = [0] * 128  # deeper than `outline` lets code go
        super().__init__(
            definition,
            resolver,
            formats,
            use_default=False,
            use_formats=use_formats,
            fast_fail=not collect,
        )
        self._start_budget()
        self._track_schema = _uses(definition, ("unevaluatedProperties", "unevaluatedItems"))
        self._track = self._track_schema  # per instance location from here (`unevaluated`)
        self._dynamic = _uses(definition, ("$dynamicRef",))
        # NOTE: annotation tracking and the dynamic scope pass values through every call that
        # collecting would have to merge as well; such schemas stop at their first error.
        self._fast_fail = not collect or self._track_schema or self._dynamic
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
    definition: Any,
    handlers: Any,
    formats: dict[str, Any],
    *,
    use_formats: bool,
    collect: bool = False,
) -> str:
    """Python source of the validation module for a prepared 2020-12 schema.

    `collect`: fastjsonschema's `fast_fail=False`, every error recorded, each subschema only
    tried out (under `anyOf`, `not`, `if`...) still failing at its first. A schema that uses
    `unevaluated*` or `$dynamicRef` is generated stopping at its first error all the same.
    """
    resolver = _UniqueNames.from_schema(definition, handlers=handlers, store={})
    generator = CodeGenerator202012(
        definition, resolver, formats, use_formats=use_formats, collect=collect
    )
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
