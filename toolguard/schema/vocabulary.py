"""Which Draft 2020-12 keywords toolguard enforces, keeps as annotations or refuses, and why.

Also the dialect: a schema's `$schema` may name a 2020-12 metaschema from the registry whose
`$vocabulary` leaves out validation (its keywords become annotations) or adds format
assertion; a required vocabulary toolguard does not implement refuses the schema.
"""

from __future__ import annotations

from typing import Any

from toolguard.errors import SchemaError
from toolguard.schema.refs import MANY, MAP, ONE, Index

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


def check_vocabularies(value: Any, at: str) -> None:
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


def read_dialect(schema: Any, index: Index) -> tuple[frozenset[str], bool]:
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
    check_vocabularies(vocabularies, "/$schema")
    # NOTE: declared as optional (false) or required (true), toolguard implements it: asserted.
    asserts_formats = VOCABULARY + "format-assertion" in vocabularies
    if VOCABULARY + "validation" in vocabularies:
        return frozenset(), asserts_formats
    return VALIDATION_KEYWORDS, asserts_formats
