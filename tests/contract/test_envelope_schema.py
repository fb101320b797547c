"""envelope_schema.py: a projected field's copy in the envelope means what `check` enforced.

The copies keep no `$id`, so a `$dynamicRef` in one keeps its meaning only where it lands
statically (then the bundle writes it as a local pointer); where the dynamic scope decides,
the envelope schema is refused with a message that says so, never published with another
meaning. The official suite's dynamicRef groups hold it to that, read by toolguard's engine,
python-jsonschema and jsonschema-rs.
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

import jsonschema
import jsonschema_rs
import pytest
from schema.suite import Folder, Group, group_params, suite_root

from toolguard.contract.envelope_schema import envelope_schema, self_check_schema
from toolguard.errors import SchemaError
from toolguard.projection import Projection
from toolguard.schema import Validator, compile_schema
from toolguard.schema.refs import is_dynamic

REMOTES = {"http://localhost:1234/": str(suite_root() / "remotes")}
_GROUPS = [group for group in Folder("draft2020-12").groups() if group.file == "dynamicRef"]


def _field_envelope(payload: Validator, location: str = "") -> dict[str, Any]:
    """The envelope schema of a contract projecting one field `f`, declared at `location`."""
    projection = Projection(MappingProxyType({"f": "/f"}))
    return envelope_schema("t", "1.0.0", payload.schema, {"f": location}, projection)


def _envelope(instance: Any) -> dict[str, Any]:
    return {"tool": "t", "request_id": "req00000001", "outcome": "success", "data": {"f": instance}}


def _scope_dependent(node: Any) -> bool:
    """Whether a bundled schema still holds a `$dynamicRef` the dynamic scope decides."""
    if isinstance(node, list):
        return any(map(_scope_dependent, node))
    if not isinstance(node, dict):
        return False
    ref = node.get("$dynamicRef")
    return (isinstance(ref, str) and is_dynamic(ref)) or any(map(_scope_dependent, node.values()))


@pytest.mark.parametrize("group", group_params(_GROUPS))
def test_a_copied_dynamic_ref_means_what_check_enforced_or_is_refused(group: Group) -> None:
    """Each suite schema as a projected field: its envelope accepts exactly what `check` does
    (toolguard, python-jsonschema, jsonschema-rs), or is refused naming the `$dynamicRef`."""
    try:
        payload = compile_schema(group.schema, refs=REMOTES)
    except SchemaError:
        pytest.skip("toolguard refuses the schema itself")
    if _scope_dependent(payload.schema):
        with pytest.raises(SchemaError, match=r"\$dynamicRef .* lands where the dynamic scope"):
            _field_envelope(payload)
        return
    implied = _field_envelope(payload)
    own = compile_schema(self_check_schema(implied))
    python = jsonschema.Draft202012Validator(implied)
    rust = jsonschema_rs.Draft202012Validator(implied)
    for case in group.tests:
        expected = payload.is_valid(case["data"])
        envelope = _envelope(case["data"])
        assert own.is_valid(envelope) is expected, case["description"]
        assert python.is_valid(envelope) is expected, case["description"]
        assert rust.is_valid(envelope) is expected, case["description"]


def test_a_pointer_dynamic_ref_is_not_read_as_the_envelopes_own_definition() -> None:
    """`$dynamicRef: "#/$defs/data"` is the payload's `data`, never the envelope's `data`
    (which every success envelope would then fail)."""
    payload = compile_schema(
        {
            "properties": {"f": {"$dynamicRef": "#/$defs/data"}},
            "$defs": {"data": {"type": "integer"}},
        }
    )
    implied = _field_envelope(payload, "/properties/f")
    own = compile_schema(self_check_schema(implied))
    assert own.is_valid(_envelope(7))
    assert not own.is_valid(_envelope("7"))


def test_a_dynamic_ref_relative_to_its_own_resource_keeps_its_target() -> None:
    """A `$dynamicRef` in a resource with an `$id` lands in that resource in the copy too."""
    payload = compile_schema(
        {
            "properties": {"f": {"$ref": "https://example.com/x"}},
            "$defs": {
                "x": {
                    "$id": "https://example.com/x",
                    "$dynamicRef": "#/$defs/n",
                    "$defs": {"n": {"type": "integer"}},
                },
                "n": {"type": "string"},
            },
        }
    )
    implied = _field_envelope(payload, "/$defs/x")
    own = compile_schema(self_check_schema(implied))
    assert own.is_valid(_envelope(7))
    assert not own.is_valid(_envelope("7"))


def test_a_scope_dependent_dynamic_ref_refuses_the_envelope_schema() -> None:
    """The strict-tree extension: where children land depends on the resource that was
    entered first, which the copies cannot say; refused, naming the `$dynamicRef`."""
    tree = {
        "$id": "https://example.com/tree",
        "$dynamicAnchor": "node",
        "type": "object",
        "properties": {"children": {"type": "array", "items": {"$dynamicRef": "#node"}}},
    }
    strict = {
        "$id": "https://example.com/strict-tree",
        "$dynamicAnchor": "node",
        "$ref": "tree",
        "unevaluatedProperties": False,
    }
    payload = compile_schema(
        {
            "properties": {"f": {"$ref": "https://example.com/strict-tree"}},
            "$defs": {"strict": strict, "tree": tree},
        }
    )
    assert not payload.is_valid({"f": {"children": [{"extra": 1}]}})  # strict all the way down
    with pytest.raises(SchemaError, match=r"\$dynamicRef '#node' lands where the dynamic scope"):
        _field_envelope(payload, "/$defs/tree")


def test_two_copies_with_one_dynamic_anchor_name_are_not_a_duplicate() -> None:
    """Resources that each name a `$dynamicAnchor` "node", reached by static references only,
    are copied side by side: the anchors (which no copied reference uses) are left out."""
    payload = compile_schema(
        {
            "properties": {"f": {"$ref": "https://example.com/a"}},
            "$defs": {
                "a": {
                    "$id": "https://example.com/a",
                    "$dynamicAnchor": "node",
                    "properties": {"b": {"$ref": "b"}},
                },
                "b": {"$id": "https://example.com/b", "$dynamicAnchor": "node", "type": "string"},
            },
        }
    )
    implied = _field_envelope(payload, "/$defs/a")
    own = compile_schema(self_check_schema(implied))
    assert own.is_valid(_envelope({"b": "x"}))
    assert not own.is_valid(_envelope({"b": 1}))
