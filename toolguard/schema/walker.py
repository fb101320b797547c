"""The walk over a schema's subschemas: each keyword checked, refused, or copied for compiling.

`SchemaWalker.visit` returns the copy fastjsonschema compiles: patterns translated from
ECMA-262 to Python, references rewritten to local pointers, data and resolved keywords
dropped (a `contentSchema` is kept only where a reference leads into it), and every subschema
tagged with its location (the tags below, which the generator and the error reports read). It
records the reference graph for `graph_checks`.
"""

from __future__ import annotations

import copy
import re
from typing import Any
from urllib.parse import quote, unquote

from toolguard.errors import SchemaError
from toolguard.pointer import escape
from toolguard.schema.formats import FORMAT_CHECKERS
from toolguard.schema.graph_checks import (
    refuse_cycles,
    refuse_negated_formats,
    refuse_off_schema_references,
    under,
)
from toolguard.schema.keyword_values import check_value
from toolguard.schema.refs import Index
from toolguard.schema.regex import translate
from toolguard.schema.runtime import LOCATION_TAG
from toolguard.schema.vocabulary import (
    ANNOTATIONS,
    ASSERTIONS,
    DRAFT_2020_12,
    NOT_ENFORCED,
    SUBSCHEMA,
    SUBSCHEMA_LIST,
    SUBSCHEMA_MAP,
    check_vocabularies,
)

# Subschemas applied to the same instance as their parent: a cycle through these alone never
# reaches the end of the instance, so it would recurse forever.
_SAME_INSTANCE = frozenset(
    {"allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas"}
)
# Data, not schemas; fastjsonschema's resolver walks every object it finds for `$ref` and `$id`.
# Annotations kept out of the compiled copy: fastjsonschema would walk `default`/`examples`
# as schemas, and would *assert* `content*` (draft 7), which 2020-12 makes annotations only.
_DROPPED = frozenset(
    {"default", "examples", "contentEncoding", "contentMediaType", "contentSchema"}
    | {"$id", "$anchor", "$dynamicAnchor", "$vocabulary"}  # resolved here, not by fastjsonschema
)
_ANCHOR = re.compile(r"[A-Za-z_][-A-Za-z0-9._]*")
RESOURCE_TAG = "toolguard:resource"  # on a schema resource's root, when dynamic scope matters
REF_RESOURCE_TAG = "toolguard:ref-resource"  # beside a $ref: the resource its target is in


class SchemaWalker:
    """Checks and copies subschemas, recording references, formats and negations on the way."""

    def __init__(
        self, index: Index, formats: bool, annotation_only: frozenset[str], dialect: str
    ) -> None:
        self.index = index
        self.formats = formats
        # For the negated-format check: where formats are asserted, which subschemas only
        # count when they *fail* (under not/if/oneOf...), and every reference edge.
        self.format_sites: list[str] = []
        self.negated: set[str] = set()
        self.ref_edges: list[tuple[str, str]] = []
        self.annotation_only = annotation_only  # keywords whose vocabulary the dialect omits
        self.dialect = dialect
        self.ref_resources: dict[str, str] = {}
        self.subschemas: set[str] = set()
        self.references: dict[str, str] = {}  # where the $ref is -> the pointer it targets
        self.same_instance: dict[str, list[str]] = {}  # schema -> schemas on the same instance
        # A `patternProperties` member's pointer -> its key in the copy (the translated
        # pattern), and the copies holding a reference: see `point_into_copy`.
        self.renamed: dict[str, str] = {}
        self.referring: list[dict[str, Any]] = []
        # Each `contentSchema`'s pointer -> (the copy of the subschema it stands in, its value):
        # see `visit_referenced_content`.
        self.content: dict[str, tuple[dict[str, Any], Any]] = {}

    def visit(self, node: Any, where: str) -> Any:
        """The checked, tagged copy of the subschema `node` found at pointer `where`."""
        self.subschemas.add(where)
        if isinstance(node, bool):
            return node
        if not isinstance(node, dict):
            raise SchemaError("a subschema must be a JSON object or a boolean", field=where or "/")
        self._note_negated(node, where)
        out: dict[str, Any] = {}
        if "$ref" in node:
            out["$ref"] = self._check_ref(node, where)
            if where in self.ref_resources:
                out[REF_RESOURCE_TAG] = self.ref_resources[where]
        if "$dynamicRef" in node:
            out["$dynamicRef"] = self._check_dynamic_ref(node, where)
        if "$ref" in out or "$dynamicRef" in out:
            self.referring.append(out)
        if self.index.dynamic_anchors() and where in self.index.resources.values():
            out[RESOURCE_TAG] = self.index.resource_of(where)
        for keyword, value in node.items():
            checked = self._keyword(keyword, value, where, f"{where}/{escape(keyword)}")
            if keyword in self.annotation_only:
                continue
            if keyword == "contentSchema":
                self.content[f"{where}/contentSchema"] = (out, value)
            if keyword not in _DROPPED and keyword not in ("$ref", "$dynamicRef"):
                out[keyword] = checked
        out["$comment"] = LOCATION_TAG + (where or "/")
        return out

    def _keyword(self, keyword: str, value: Any, where: str, at: str) -> Any:
        if keyword in NOT_ENFORCED:
            raise SchemaError(f"keyword {keyword!r} is refused: {NOT_ENFORCED[keyword]}", field=at)
        if keyword == "$schema":
            if where and where not in self.index.resources.values():
                # Core 2020-12 section 8.1.1: it MUST NOT appear below a resource's root.
                raise SchemaError(
                    "'$schema' is only allowed at the root of a schema resource (beside '$id')",
                    field=at,
                )
            if where and value not in (DRAFT_2020_12, DRAFT_2020_12 + "#", self.dialect):
                # NOTE: an embedded or referenced resource is read in its own dialect (Core
                # 2020-12 section 8.1.1); toolguard has only this one, so another dialect is
                # refused, not misread.
                raise SchemaError(
                    f"a schema resource in another dialect ({value!r}) is refused: toolguard "
                    "reads Draft 2020-12 only",
                    field=at,
                )
            return value  # the root's dialect is read once, by prepare()
        if keyword == "$vocabulary":
            check_vocabularies(value, at)
            return value
        if keyword in ("$id", "$anchor", "$dynamicAnchor"):
            if not isinstance(value, str) or (keyword != "$id" and not _ANCHOR.fullmatch(value)):
                raise SchemaError(f"{keyword!r} must be a valid name, not {value!r}", field=at)
            return value
        if keyword in ANNOTATIONS:
            return value
        if keyword in ("$ref", "$dynamicRef"):
            return value  # resolved and rewritten by visit()
        if keyword in SUBSCHEMA:
            if keyword == "items" and isinstance(value, list):
                raise SchemaError("array-form 'items' is not Draft 2020-12 (prefixItems)", field=at)
            self._link(keyword, where, [at])
            return self.visit(value, at)
        if keyword in SUBSCHEMA_LIST:
            if not isinstance(value, list) or not value:
                raise SchemaError(f"{keyword!r} must be a non-empty array of schemas", field=at)
            self._link(keyword, where, [f"{at}/{index}" for index in range(len(value))])
            return [self.visit(item, f"{at}/{index}") for index, item in enumerate(value)]
        if keyword in SUBSCHEMA_MAP:
            if not isinstance(value, dict):
                raise SchemaError(f"{keyword!r} must be an object of schemas", field=at)
            if keyword == "patternProperties":
                return self._pattern_properties(value, at)
            self._link(keyword, where, [f"{at}/{escape(key)}" for key in value])
            return {key: self.visit(sub, f"{at}/{escape(key)}") for key, sub in value.items()}
        if keyword in ASSERTIONS:
            return self._assertion(keyword, value, at)
        raise SchemaError(f"unknown keyword {keyword!r}: refused rather than ignored", field=at)

    def _link(self, keyword: str, where: str, targets: list[str]) -> None:
        if keyword in _SAME_INSTANCE:
            self.same_instance.setdefault(where, []).extend(targets)

    def _pattern_properties(self, value: dict[str, Any], at: str) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, sub in value.items():
            pattern = translate(key, at)
            while pattern in out:  # `\d` and `[0-9]` translate alike; both must be enforced
                pattern = f"(?:{pattern})"
            if pattern != key:
                self.renamed[f"{at}/{escape(key)}"] = escape(pattern)
            out[pattern] = self.visit(sub, f"{at}/{escape(key)}")
        return out

    def _assertion(self, keyword: str, value: Any, at: str) -> Any:
        check_value(keyword, value, at)
        if keyword == "pattern":
            return translate(value, at)
        if keyword == "format" and self.formats:
            self.format_sites.append(at)
        if keyword == "format" and self.formats and value not in FORMAT_CHECKERS:
            known = ", ".join(sorted(FORMAT_CHECKERS))
            raise SchemaError(f"format {value!r} cannot be asserted (supported: {known})", field=at)
        return copy.deepcopy(value)

    def _check_ref(self, node: dict[str, Any], where: str) -> str:
        """Resolve the `$ref` and return it rewritten as a local pointer reference."""
        target = self._target(node, "$ref", where)
        if self.index.dynamic_anchors():  # following the ref enters the target's resource
            self.ref_resources[where] = self.index.resource_of(target)
        return "#" + quote(target, safe="/~")

    def _check_dynamic_ref(self, node: dict[str, Any], where: str) -> dict[str, Any]:
        """Resolve a `$dynamicRef`: where it lands statically, and by dynamic scope.

        The generator receives {"static": pointer, "resource": its resource URI,
        "dynamic": {resource URI: pointer}}: at run time the outermost resource of the
        dynamic scope that has a matching `$dynamicAnchor` wins, else the static target.
        """
        target = self._target(node, "$dynamicRef", where)
        dynamic = self.index.dynamic_targets(node["$dynamicRef"], where, target)
        for pointer in dynamic.values():
            self.ref_edges.append((where, pointer))
            self.references.setdefault(f"{where}/$dynamicRef@{pointer}", pointer)
            self.same_instance.setdefault(where, []).append(pointer)
        return {
            "static": "#" + quote(target, safe="/~"),
            "resource": self.index.resource_of(target),
            "dynamic": {uri: "#" + quote(pointer, safe="/~") for uri, pointer in dynamic.items()},
        }

    def _target(self, node: dict[str, Any], keyword: str, where: str) -> str:
        ref = node[keyword]
        if not isinstance(ref, str):
            raise SchemaError(f"{keyword!r} must be a string", field=f"{where}/{keyword}")
        target = self.index.resolve(ref, where, keyword)
        self.ref_edges.append((where, target))
        self.references[f"{where}/{keyword}"] = target
        self.same_instance.setdefault(where, []).append(target)
        return target

    def point_into_copy(self) -> None:
        """Rewrite each reference's pointer for the copy, once every subschema is visited.

        A `patternProperties` member is keyed in the copy by its translated pattern, so a
        reference written through its original key (`#/patternProperties/^a$`) is rewritten
        through the new one; a reference may precede the member it leads to, hence after
        the walk. Every other pointer is the same in the schema and in its copy.
        """
        if not self.renamed:
            return
        for out in self.referring:
            if "$ref" in out:
                out["$ref"] = self._in_copy(out["$ref"])
            if "$dynamicRef" in out:
                targets = out["$dynamicRef"]
                targets["static"] = self._in_copy(targets["static"])
                targets["dynamic"] = {
                    uri: self._in_copy(ref) for uri, ref in targets["dynamic"].items()
                }

    def _in_copy(self, ref: str) -> str:
        """The local reference `ref` (`#` and a quoted pointer) with renamed members renamed."""
        original, copied = "", ""
        for token in unquote(ref[1:]).split("/")[1:]:
            original += "/" + token
            copied += "/" + self.renamed.get(original, token)
        return "#" + quote(copied, safe="/~")

    def visit_referenced_content(self) -> None:
        """Check and copy every `contentSchema` a reference leads into, so that it can apply.

        NOTE: `contentSchema` is an annotation: it never applies where it stands, so what it
        holds is left unchecked (a pattern RE2 cannot run refuses nothing there). A reference
        to it, or into it, applies that subschema like any other, so it is then checked and
        copied under its own key, which the generator reads only through the reference.
        """
        pending = True
        while pending:  # a subschema just visited may refer into another contentSchema
            pending = False
            for at, (out, value) in list(self.content.items()):
                targets = self.references.values()
                if at not in self.subschemas and any(under(t, {at}) for t in targets):
                    out["contentSchema"] = self.visit(value, at)
                    pending = True

    def check_references(self) -> None:
        """Every `$ref` must land on a subschema, and no cycle may skip the instance."""
        self.visit_referenced_content()
        refuse_off_schema_references(self.references, self.subschemas)
        refuse_cycles(self.same_instance)
        refuse_negated_formats(self.format_sites, self.negated, self.ref_edges)

    def _note_negated(self, node: dict[str, Any], where: str) -> None:
        """Record the subschemas whose *failure* can make an instance pass."""
        for keyword in ("not", "if"):
            if keyword in node:
                self.negated.add(f"{where}/{keyword}")
        if isinstance(node.get("oneOf"), list):
            self.negated.update(f"{where}/oneOf/{index}" for index in range(len(node["oneOf"])))
        if "contains" in node and "maxContains" in node:
            self.negated.add(f"{where}/contains")
