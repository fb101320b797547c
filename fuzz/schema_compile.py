"""Fuzz target: the schema compiler on a hostile schema document, then its validator.

Each input is a schema file's bytes, optionally followed by a NUL and an instance's bytes (a
NUL never stands in strict JSON, so the split is unambiguous). The schema is read as
`toolguard validate` reads its SCHEMA argument (`read_schema`: bounded, strict JSON) and
compiled with formats asserted. For each input:

- reading and compiling return a validator or raise `SchemaError`, never another exception;
- a validator checks the instance (parsed strictly; the schema document itself if none is
  given or it does not parse) without another exception: `validate` raises `ValidationError`
  exactly when `errors` lists some and `is_valid` is false, and each error renders.

Time and memory are bounded by libFuzzer's `-timeout` and `-rss_limit_mb`: a schema the engine
cannot compile promptly within its documented limits (docs/schema-engine.md) is a finding.
The compile cache is a private temporary folder (an entry per distinct schema would fill the
user's own); its entries are deleted every few thousand inputs.

    python fuzz/schema_compile.py -max_total_time=60
"""

from __future__ import annotations

import contextlib
from typing import Any

import harness
import seeds

FOLDER = harness.scratch("schema_compile", cache=True)

with harness.instrumented():
    from toolguard.errors import Rejection, SchemaError, ValidationError
    from toolguard.limits import Limits
    from toolguard.parse import parse
    from toolguard.schema import compile_schema
    from toolguard.schema.refs import read_schema

SCHEMA = FOLDER / "schema.json"
LIMITS = Limits()


def test_one_input(data: bytes) -> None:
    """Compile one schema and check one instance with it; an `AssertionError` is a finding."""
    _now_and_then()
    schema_bytes, _, instance_bytes = data.partition(b"\0")
    SCHEMA.write_bytes(schema_bytes)
    try:
        schema = read_schema(SCHEMA)
        validator = compile_schema(schema)
    except SchemaError as exc:
        assert str(exc), "a SchemaError without a message"
        return
    instance: Any = schema
    with contextlib.suppress(Rejection):  # no instance, or not one: the schema itself
        instance = parse(instance_bytes, LIMITS)
    errors = validator.errors(instance)
    assert all(isinstance(error, ValidationError) and str(error) for error in errors), errors
    assert validator.is_valid(instance) is not errors, "is_valid disagrees with errors"
    try:
        validator.validate(instance)
    except ValidationError:
        assert errors, "validate raised, errors lists none"
    else:
        assert not errors, "validate passed, errors lists some"


def _prune() -> None:
    if harness.fuzzing():
        for entry in (FOLDER / "cache").rglob("*.bin"):
            entry.unlink(missing_ok=True)


_now_and_then = harness.every(4096, _prune)


def main() -> None:
    """Fuzz, with the JSON Schema Test Suite's 2020-12 schemas as seeds."""
    harness.run(
        "schema_compile",
        test_one_input,
        seeds=seeds.schemas,
        dictionary=(*seeds.JSON_TOKENS, *seeds.SCHEMA_TOKENS),
        max_len=8192,
    )


if __name__ == "__main__":
    main()
