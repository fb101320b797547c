"""Which Draft 2020-12 keywords toolguard enforces: `prepare` refuses everything else.

fastjsonschema 2.22 runs every 2020-12 schema as draft 7: it silently ignores
`unevaluatedProperties`, `prefixItems`, `dependentRequired`, keywords beside `$ref` and more;
`generator.py` adds most of them. `prepare` checks every subschema against the allow-lists in
`vocabulary.py` (the walk is `walker.py`) and refuses the whole schema with a `SchemaError`
naming the keyword and its JSON Pointer, so nothing is ever silently skipped. It returns a
copy whose patterns are rewritten from ECMA-262 to Python.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolguard.errors import SchemaError
from toolguard.pointer import escape
from toolguard.schema.refs import Index, bundle
from toolguard.schema.vocabulary import DRAFT_2020_12, read_dialect
from toolguard.schema.walker import SchemaWalker


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
    annotation_only, asserts_formats = read_dialect(schema, index)
    formats = formats or asserts_formats
    dialect = schema.get("$schema", DRAFT_2020_12) if isinstance(schema, dict) else DRAFT_2020_12
    walker = SchemaWalker(index, formats, annotation_only, dialect)
    prepared = walker.visit(schema, "")
    visited = 0
    while visited < len(walker.index.remotes):  # a remote document may reference another
        key, document = walker.index.remotes[visited]
        embedded = walker.visit(document, f"/$defs/{escape(key)}")
        prepared.setdefault("$defs", {})[key] = embedded
        visited += 1
    walker.check_references()
    walker.point_into_copy()
    return Prepared(prepared, bundle(walker.index), formats, tuple(walker.index.files))
