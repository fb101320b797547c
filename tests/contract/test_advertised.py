"""advertised.py: the envelope schema as published loads in python-jsonschema (the MCP Python
SDK's validator) and never refuses an envelope toolguard accepts.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguard.contract import load_contract
from toolguard.contract.advertised import advertised_schema
from toolguard.contract.find import contract_paths, variant
from toolguard.errors import ValidationError
from toolguard.schema import compile_schema

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(contract_paths([REPO / "examples"]))
DIALECT = "https://json-schema.org/draft/2020-12/schema"
# Characters where ECMA-262 and Python's re disagree: Unicode digits and letters, line
# terminators, the BOM (ECMA whitespace, not Python's), word boundaries.
ALPHABET = "a1_ é٣\n\r\u2028\ufeff\t-"
PATTERNS = [
    "^[a-z]+$",
    "^\\d+$",
    "^\\w+$",
    "^a.b$",
    "\\s",
    "^\\S+$",
    "[^\\d]",
    "\\ba",
    "^\\D*$",
    "^[\\w-]*$",
    "\\u00e9",
    "^(?:a|1)+$",
]
WRAPPERS = [
    lambda node: node,
    lambda node: {"not": node},
    lambda node: {"oneOf": [node, {"minLength": 2}]},
    lambda node: {"if": node, "then": {"maxLength": 1}, "else": {"minLength": 0}},
    lambda node: {"type": "object"} | {"propertyNames": node},
]


def _envelope_like(node: dict[str, Any]) -> dict[str, Any]:
    """A schema shaped like an envelope schema: a root, `data`, a payload definition."""
    return {
        "$schema": DIALECT,
        "type": "object",
        "properties": {"data": {"$ref": "#/$defs/data"}},
        "$defs": {
            "data": {"type": "object", "properties": {"v": {"$ref": "#/$defs/payload0"}}},
            "payload0": node,
        },
    }


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_example_publishes_a_schema_python_jsonschema_loads(path: Path) -> None:
    """check_schema (with formats, as the SDK runs it) accepts each example's schema."""
    schema = advertised_schema(load_contract(path).envelope_schema)
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_every_example_golden_envelope_is_valid_in_python_jsonschema(path: Path) -> None:
    """The SDK would accept the envelopes toolguard writes for the examples."""
    schema = advertised_schema(load_contract(path).envelope_schema)
    validator = jsonschema.Draft202012Validator(schema)
    name = variant(path)
    fixtures = path.parent / ("fixtures" if name is None else f"fixtures.{name}")
    goldens = sorted(fixtures.rglob("*.expected.json"))
    assert goldens
    for golden in goldens:
        assert validator.is_valid(json.loads(golden.read_bytes())), golden


def test_a_schema_read_alike_is_published_as_it_is() -> None:
    """Nothing to loosen: the very same schema."""
    schema = _envelope_like({"type": "string", "pattern": "^[a-z]{1,8}$"})
    assert advertised_schema(schema) is schema


def test_a_pattern_read_otherwise_is_published_as_any_value() -> None:
    """`\\p{L}` is refused by Python's re: its definition is published as `{}` (with a note)."""
    schema = _envelope_like({"type": "string", "pattern": "^\\p{L}+$"})
    published = advertised_schema(schema)
    assert set(published["$defs"]["payload0"]) == {"$comment"}
    assert published["$defs"]["data"] == schema["$defs"]["data"]
    jsonschema.Draft202012Validator.check_schema(published)
    assert schema["$defs"]["payload0"]["pattern"] == "^\\p{L}+$"  # the original is untouched


def test_a_reference_to_a_loosened_definition_where_exactness_matters_loosens_the_referrer() -> (
    None
):
    """`not: {$ref: looser}` would refuse more: the definition holding it goes too."""
    schema = _envelope_like({"not": {"$ref": "#/$defs/payload1"}})
    schema["$defs"]["payload1"] = {"pattern": "^\\d$"}
    published = advertised_schema(schema)
    assert set(published["$defs"]["payload0"]) == {"$comment"}
    assert published["$defs"]["payload1"] == {"pattern": "^\\d$"}  # looser, where it is safe


@given(
    pattern=st.sampled_from(PATTERNS),
    wrap=st.sampled_from(WRAPPERS),
    text=st.text(alphabet=ALPHABET, max_size=5),
)
def test_python_jsonschema_accepts_whatever_toolguard_accepts(
    pattern: str, wrap: Any, text: str
) -> None:
    """For any pattern, wherever it stands, an instance toolguard accepts is valid as published."""
    schema = _envelope_like(wrap({"type": "string", "pattern": pattern}))
    instance = {"data": {"v": text}}
    try:
        compile_schema(copy.deepcopy(schema), formats=False).validate(instance)
    except ValidationError:
        return  # toolguard refuses it: the published schema may do as it likes
    published = advertised_schema(schema)
    assert jsonschema.Draft202012Validator(published).is_valid(instance)
