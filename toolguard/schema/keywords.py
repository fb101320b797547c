"""Which Draft 2020-12 keywords toolguard enforces, and the walk that refuses everything else.

fastjsonschema 2.22 runs every 2020-12 schema as draft 7: it silently ignores
`unevaluatedProperties`, `prefixItems`, `dependentRequired`, keywords beside `$ref` and more;
`generator.py` adds most of them. `prepare` checks every subschema against the allow-lists
below and refuses the whole schema with a `SchemaError` naming the keyword and its JSON
Pointer, so nothing is ever silently skipped. It returns a copy whose patterns are rewritten
from ECMA-262 to Python.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

from toolguard.errors import SchemaError
from toolguard.pointer import MISSING, escape, lookup
from toolguard.schema.formats import FORMAT_CHECKERS
from toolguard.schema.refs import MANY, MAP, ONE, REMOTE_PREFIX, Index, bundle
from toolguard.schema.regex import translate

DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema"

# Keywords with no effect on validity: kept as they are.
ANNOTATIONS = frozenset(
    {
        "title",
        "description",
        "default",
        "examples",
        "deprecated",
        "readOnly",
        "writeOnly",
        "$comment",
        # Annotations in 2020-12 (draft 7 asserted them): never passed to fastjsonschema.
        "contentEncoding",
        "contentMediaType",
        "contentSchema",
    }
)
# Assertions fastjsonschema evaluates exactly as Draft 2020-12 does.
ASSERTIONS = frozenset(
    {
        "dependentRequired",
        "minContains",
        "maxContains",
        "type",
        "enum",
        "const",
        "multipleOf",
        "maximum",
        "exclusiveMaximum",
        "minimum",
        "exclusiveMinimum",
        "maxLength",
        "minLength",
        "pattern",
        "maxItems",
        "minItems",
        "uniqueItems",
        "maxProperties",
        "minProperties",
        "required",
        "format",
    }
)
# Where subschemas stand (one schema, a list, a map of them): defined once, in `refs.py`.
SUBSCHEMA = ONE - {"contentSchema"}  # contentSchema is an annotation here, never applied
SUBSCHEMA_LIST = MANY
SUBSCHEMA_MAP = MAP
# Why each refused keyword is refused; the message is what the schema author reads.
_NOT_YET = "toolguard cannot enforce it yet, and ignoring it would let through what it forbids"
NOT_ENFORCED = dict.fromkeys(
    (
        "$recursiveRef",
        "$recursiveAnchor",
    ),
    _NOT_YET,
) | {
    "definitions": "not a Draft 2020-12 keyword; use $defs",
    "dependencies": "not a Draft 2020-12 keyword; use dependentRequired/dependentSchemas",
    "additionalItems": "not a Draft 2020-12 keyword; use items with prefixItems",
}
_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})


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
LOCATION_TAG = "toolguard:"
RESOURCE_TAG = "toolguard:resource"  # on a schema resource's root, when dynamic scope matters
REF_RESOURCE_TAG = "toolguard:ref-resource"  # beside a $ref: the resource its target is in


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)


def _finite(value: Any) -> bool:
    """No NaN or infinity anywhere in a const/enum value (generated code cannot spell them)."""
    if isinstance(value, float):
        return math.isfinite(value)
    if isinstance(value, dict):
        return all(_finite(item) for item in value.values())
    if isinstance(value, list):
        return all(_finite(item) for item in value)
    return True


def _count(value: Any) -> bool:
    return _number(value) and value >= 0 and float(value).is_integer()


# The metaschema's constraints on assertion values: a schema breaking them is invalid, and
# fastjsonschema would compile some of them into code that crashes (`multipleOf: 0`).
_VALUE_RULES: dict[str, tuple[Callable[[Any], bool], str]] = {
    "multipleOf": (lambda v: _number(v) and v > 0, "a number above 0"),
    **dict.fromkeys(
        ("maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum"), (_number, "a number")
    ),
    **dict.fromkeys(
        ("maxLength", "minLength", "maxItems", "minItems", "maxProperties", "minProperties"),
        (_count, "a non-negative integer"),
    ),
    **dict.fromkeys(("minContains", "maxContains"), (_count, "a non-negative integer")),
    "dependentRequired": (
        lambda v: (
            isinstance(v, dict)
            and all(
                isinstance(names, list)
                and all(isinstance(name, str) for name in names)
                and len(set(names)) == len(names)
                for names in v.values()
            )
        ),
        "an object of arrays of distinct strings",
    ),
    "required": (
        lambda v: (
            isinstance(v, list)
            and all(isinstance(item, str) for item in v)
            and len(set(v)) == len(v)
        ),
        "an array of distinct strings",
    ),
    "enum": (lambda v: isinstance(v, list) and _finite(v), "an array of finite values"),
    "const": (_finite, "a value without NaN or infinity"),
    "uniqueItems": (lambda v: isinstance(v, bool), "a boolean"),
    "format": (lambda v: isinstance(v, str), "a string"),
}


@dataclass(frozen=True)
class Prepared:
    """A checked schema: the copy fastjsonschema compiles, and what the cache must record."""

    schema: Any
    bundled: Any  # as written, references resolved (see `refs.bundle`)
    formats: bool  # asserted: asked for, or forced by the dialect
    files: tuple[tuple[str, str], ...]  # registry files read: (path, SHA-256)


def prepare(
    schema: Any, *, formats: bool = True, refs: Mapping[str, str | Path] | None = None
) -> Prepared:
    """Check `schema` and return a copy ready for fastjsonschema.

    Every subschema object in the copy carries its JSON Pointer in `$comment` (prefixed with
    `LOCATION_TAG`), so a validation error names the exact subschema that failed. Every `$ref`
    is resolved here (see `refs.py`) and rewritten to a local JSON Pointer; documents from the
    registry are embedded under `$defs`. Also returns the schema bundled the same way but
    otherwise as written (see `refs.bundle`), and whether formats are asserted: always when
    the schema's dialect declares the format-assertion vocabulary, whatever `formats` says.
    """
    if not isinstance(schema, dict | bool):
        raise SchemaError("a schema must be a JSON object or a boolean", field="/")
    index = Index(schema, refs)
    annotation_only, asserts_formats = _dialect(schema, index)
    formats = formats or asserts_formats
    dialect = schema.get("$schema", DRAFT_2020_12) if isinstance(schema, dict) else DRAFT_2020_12
    walker = _Walker(index, formats, annotation_only, dialect)
    prepared = walker.visit(schema, "")
    visited = 0
    while visited < len(walker.index.remotes):  # a remote document may reference another
        key, document = walker.index.remotes[visited]
        embedded = walker.visit(document, f"/$defs/{escape(key)}")
        prepared.setdefault("$defs", {})[key] = embedded
        visited += 1
    walker.check_references()
    return Prepared(prepared, bundle(walker.index), formats, tuple(walker.index.files))


class _Walker:
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

    def visit(self, node: Any, where: str) -> Any:
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
        if self.index.dynamic and where in self.index.resources.values():
            out[RESOURCE_TAG] = self.index.resource_of(where)
        for keyword, value in node.items():
            checked = self._keyword(keyword, value, where, f"{where}/{escape(keyword)}")
            if keyword in self.annotation_only:
                continue
            if keyword not in _DROPPED and keyword not in ("$ref", "$dynamicRef"):
                out[keyword] = checked
        out["$comment"] = LOCATION_TAG + (where or "/")
        return out

    def _keyword(self, keyword: str, value: Any, where: str, at: str) -> Any:
        if keyword in NOT_ENFORCED:
            raise SchemaError(f"keyword {keyword!r} is refused: {NOT_ENFORCED[keyword]}", field=at)
        if keyword == "$schema":
            if where and not where.startswith(f"/$defs/{REMOTE_PREFIX}"):
                raise SchemaError("'$schema' is only supported at a document's root", field=at)
            if where and value not in (DRAFT_2020_12, DRAFT_2020_12 + "#", self.dialect):
                # NOTE: a referenced document is read in its own dialect (Core 2020-12 section
                # 8.1.1); toolguard has only this one, so another draft is refused, not misread.
                raise SchemaError(
                    f"a referenced document in another dialect ({value!r}) is refused", field=at
                )
            return value  # the root's dialect is read once, by prepare()
        if keyword == "$vocabulary":
            _check_vocabularies(value, at)
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
            out[pattern] = self.visit(sub, f"{at}/{escape(key)}")
        return out

    def _assertion(self, keyword: str, value: Any, at: str) -> Any:
        if keyword in _VALUE_RULES:
            valid, expected = _VALUE_RULES[keyword]
            if not valid(value):
                raise SchemaError(f"{keyword!r} must be {expected}, not {value!r}", field=at)
        if keyword == "pattern":
            if not isinstance(value, str):
                raise SchemaError("'pattern' must be a string", field=at)
            return translate(value, at)
        if keyword == "format" and self.formats:
            self.format_sites.append(at)
        if keyword == "format" and self.formats and value not in FORMAT_CHECKERS:
            known = ", ".join(sorted(FORMAT_CHECKERS))
            raise SchemaError(f"format {value!r} cannot be asserted (supported: {known})", field=at)
        if keyword == "type":
            names = value if isinstance(value, list) else [value]
            if not names or any(not isinstance(n, str) or n not in _TYPES for n in names):
                raise SchemaError(f"'type' must name JSON types, not {value!r}", field=at)
        return copy.deepcopy(value)

    def _check_ref(self, node: dict[str, Any], where: str) -> str:
        """Resolve the `$ref` and return it rewritten as a local pointer reference."""
        target = self._target(node, "$ref", where)
        if self.index.dynamic:  # following the ref enters the target's resource
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
        target = self.index.resolve(ref, where)
        self.ref_edges.append((where, target))
        self.references[f"{where}/{keyword}"] = target
        self.same_instance.setdefault(where, []).append(target)
        return target

    def check_references(self) -> None:
        """Every `$ref` must land on a subschema, and no cycle may skip the instance."""
        for at, target in self.references.items():
            if target not in self.subschemas:
                raise SchemaError(f"reference '#{target}' does not point at a schema", field=at)
        _refuse_cycles(self.same_instance)
        self._refuse_negated_formats()

    def _note_negated(self, node: dict[str, Any], where: str) -> None:
        """Record the subschemas whose *failure* can make an instance pass."""
        for keyword in ("not", "if"):
            if keyword in node:
                self.negated.add(f"{where}/{keyword}")
        if isinstance(node.get("oneOf"), list):
            self.negated.update(f"{where}/oneOf/{index}" for index in range(len(node["oneOf"])))
        if "contains" in node and "maxContains" in node:
            self.negated.add(f"{where}/contains")

    def _refuse_negated_formats(self) -> None:
        """Refuse an asserted format where its failure could let an instance through.

        NOTE: toolguard's format checks fail closed: some valid values are rejected (an ECMA
        regex construct the translator refuses, a hostname needing Unicode data we lack). Under
        `not`, `if`, `oneOf` or a bounded `contains`, such a false reject turns into a false
        accept, so the schema is refused instead (or compile it with formats=False).
        """
        if not self.format_sites or not self.negated:
            return
        negated = set(self.negated)
        changed = True
        while changed:  # a subschema reached by reference from a negated one is negated too
            changed = False
            for where, target in self.ref_edges:
                if target not in negated and _under(where, negated):
                    negated.add(target)
                    changed = True
        for site in self.format_sites:
            if _under(site, negated):
                raise SchemaError(
                    "a format asserted under not/if/oneOf/maxContains is refused: a valid value "
                    "the format check rejects there would let an invalid instance through",
                    field=site,
                )


def _under(location: str, roots: set[str]) -> bool:
    """Whether `location` is one of `roots` or inside one of them."""
    return any(location == root or location.startswith(f"{root}/") for root in roots)


def _refuse_cycles(edges: dict[str, list[str]]) -> None:
    """Refuse a loop of references/combinators that never moves into the instance."""
    done: set[str] = set()
    for start in edges:
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node, index = stack.pop()
            if index == 0:
                if node in done:
                    continue
                if node in on_path:
                    raise SchemaError(
                        "reference cycle that never descends into the instance", field=node or "/"
                    )
                path.append(node)
                on_path.add(node)
            successors = edges.get(node, [])
            if index < len(successors):
                stack.append((node, index + 1))
                stack.append((successors[index], 0))
            else:
                on_path.discard(path.pop())
                done.add(node)


VOCABULARY = "https://json-schema.org/draft/2020-12/vocab/"
KNOWN_VOCABULARIES = frozenset(
    VOCABULARY + name
    for name in (
        "core",
        "applicator",
        "unevaluated",
        "validation",
        "meta-data",
        "format-annotation",
        "format-assertion",
        "content",
    )
)
VALIDATION_KEYWORDS = ASSERTIONS - {"format"}  # the validation vocabulary's keywords


def _check_vocabularies(value: Any, at: str) -> None:
    """A vocabulary the dialect requires and toolguard does not implement refuses the schema."""
    if not isinstance(value, dict) or not all(isinstance(v, bool) for v in value.values()):
        raise SchemaError("'$vocabulary' must map URIs to booleans", field=at)
    unknown = sorted(
        uri for uri, required in value.items() if required and uri not in KNOWN_VOCABULARIES
    )
    if unknown:
        raise SchemaError(
            f"requires vocabularies toolguard does not implement: {unknown}", field=at
        )


def _dialect(schema: Any, index: Index) -> tuple[frozenset[str], bool]:
    """Annotation-only keywords in the schema's dialect, and whether it asserts formats.

    The dialect is the schema's `$schema`; formats are asserted when it declares the
    format-assertion vocabulary.

    The standard 2020-12 dialect asserts everything but formats; a custom metaschema from the
    registry that leaves out the validation vocabulary makes `type`, `minimum`... annotations.
    """
    declared = schema.get("$schema", DRAFT_2020_12) if isinstance(schema, dict) else DRAFT_2020_12
    if not isinstance(declared, str):
        raise SchemaError("'$schema' must be a URI", field="/$schema")
    if declared.rstrip("#") == DRAFT_2020_12:
        return frozenset(), False
    try:
        metaschema = index.document(declared.rstrip("#"), "")
    except SchemaError:
        raise SchemaError(
            f"unknown dialect {declared!r}: only Draft 2020-12, or a 2020-12 metaschema "
            "from the registry",
            field="/$schema",
        ) from None
    vocabularies = metaschema.get("$vocabulary") if isinstance(metaschema, dict) else None
    base = metaschema.get("$schema", "") if isinstance(metaschema, dict) else ""
    if not isinstance(vocabularies, dict) or base.rstrip("#") != DRAFT_2020_12:
        raise SchemaError(f"{declared!r} is not a Draft 2020-12 dialect", field="/$schema")
    _check_vocabularies(vocabularies, "/$schema")
    # NOTE: declared as optional (false) or required (true), toolguard implements it: asserted.
    asserts_formats = VOCABULARY + "format-assertion" in vocabularies
    if VOCABULARY + "validation" in vocabularies:
        return frozenset(), asserts_formats
    return VALIDATION_KEYWORDS, asserts_formats


def resolve_pointer(document: Any, pointer: str, where: str = "") -> Any:
    """Follow an RFC 6901 JSON Pointer; a `SchemaError` if it leads nowhere."""
    node = lookup(document, pointer)
    if node is MISSING:
        raise SchemaError(f"reference '#{pointer}' points at nothing", field=where)
    return node
