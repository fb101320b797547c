"""What a schema's code costs: at most `MAX_SOURCE_BYTES`, and no more per item as it grows."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.schema.code_names import code_names
from toolguard.errors import SchemaError, ValidationError
from toolguard.schema import compile_schema, generator_base

# Runs `toolguard validate SCHEMA INSTANCE` and prints its exit status and peak RSS in KiB.
_MEASURE = """
import resource, subprocess, sys
done = subprocess.run([sys.executable, "-m", "toolguard", "validate", *sys.argv[1:]],
                      capture_output=True, check=False)
print(done.returncode, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def _wide(count: int, tag: str) -> dict[str, object]:
    properties = {f"{tag}{index}": {"type": "string", "maxLength": 10} for index in range(count)}
    return {"type": "object", "properties": properties, "additionalProperties": False}


def test_a_schema_past_the_budget_is_refused_and_one_within_compiles(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The budget counts generated code: 200 members pass 64 KiB of it, 20 do not."""
    monkeypatch.setattr(generator_base, "MAX_SOURCE_BYTES", 64 << 10)
    with pytest.raises(SchemaError, match="schema too large to compile"):
        compile_schema(_wide(200, "budget_over_"))
    assert compile_schema(_wide(20, "budget_within_")).is_valid({"budget_within_0": "x"})


def _validate(schema: dict[str, object], folder: Path) -> tuple[int, int]:
    schema_file, instance = folder / "schema.json", folder / "instance.json"
    schema_file.write_text(json.dumps(schema))
    instance.write_text("{}")
    out = subprocess.run(
        [sys.executable, "-c", _MEASURE, str(schema_file), str(instance)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return int(out[0]), int(out[1])


def test_refusing_a_huge_schema_costs_memory_near_a_small_ones(tmp_path: Path) -> None:
    """20,000 members (1 MB of schema) once took 1.5 GB to compile; now a refusal, near 1x."""
    (tmp_path / "small").mkdir()
    (tmp_path / "huge").mkdir()
    status, small = _validate(_wide(10, "p"), tmp_path / "small")
    assert status == 0
    status, huge = _validate(_wide(20_000, "p"), tmp_path / "huge")
    assert status == 3
    assert huge < 8 * small


# Each array item is named with its index: through a `$ref`, a failed `anyOf` branch, a
# `$dynamicRef`, with annotations tracked, and nested arrays.
_INDEXED = {
    "type": "object",
    "properties": {
        **{f"sibling{index}": {"type": "integer"} for index in range(200)},
        "rows": {"type": "array", "items": {"type": "array", "items": {"$ref": "#/$defs/cell"}}},
        "either": {
            "type": "array",
            "items": {"anyOf": [{"type": "integer"}, {"$ref": "#/$defs/cell"}]},
        },
        "closed": {
            "type": "array",
            "items": {"allOf": [{"$ref": "#/$defs/cell"}], "unevaluatedProperties": False},
        },
        "dynamic": {"type": "array", "items": {"$dynamicRef": "#cell"}},
    },
    "$defs": {"cell": {"$dynamicAnchor": "cell", "type": "object", "properties": {"v": {}}}},
}


def test_an_item_costs_the_same_however_large_the_schema() -> None:
    """No generated line copies the function's variables (`locals()`) to name an item.

    It did for every item a `$ref` checked, and for every failed `anyOf` branch: 66 µs an
    item beside 1,000 properties, 1 µs alone. The names are unchanged.
    """
    validator = compile_schema(_INDEXED)
    assert "locals" not in code_names(validator.entry.code)
    for instance, path in [
        ({"rows": [[{}], [{}, 5]]}, "/rows/1/1"),
        ({"either": [1, "x"]}, "/either/1"),
        ({"closed": [{}, {"w": 1}]}, "/closed/1"),
        ({"dynamic": [{}, 5]}, "/dynamic/1"),
    ]:
        with pytest.raises(ValidationError) as raised:
            validator.validate(instance)
        assert raised.value.instance_path == path


# A schema's own strings may hold quotes and the text `.format(**locals())`: in a `repr` (a
# `const` beside a string holding "'"), or as a member name. Only the code's own call is renamed.
_QUOTED = {
    "type": "object",
    "properties": {
        "format(**locals())": {"type": "string"},
        "pair": {"const": ["a'", ".format(**locals())'"]},
        "items": {"type": "array", "items": {"const": ["a'", "{data}", ".format(**locals())'"]}},
    },
}


@pytest.mark.parametrize(
    ("instance", "path"),
    [
        ({"format(**locals())": 1}, "/format(**locals())"),
        ({"pair": ["a'", ".format()'"]}, "/pair"),
        ({"items": [["a'", "{data}", ".format(data=data)'"]]}, "/items/0"),
    ],
)
def test_a_schemas_own_text_is_never_renamed(instance: object, path: str) -> None:
    """A `const` or a member name holding `".format(**locals())` keeps its text in the code.

    The names' rewrite took the text after a quote in a `repr` for a call, and changed it:
    such a `const` refused its own value and accepted the rewritten one.
    """
    validator = compile_schema(_QUOTED)
    assert validator.is_valid({"pair": ["a'", ".format(**locals())'"]})
    assert validator.is_valid({"items": [["a'", "{data}", ".format(**locals())'"]]})
    with pytest.raises(ValidationError) as raised:
        validator.validate(instance)
    assert raised.value.instance_path == path
