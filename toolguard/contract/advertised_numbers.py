"""Numeric keywords as python-jsonschema reads them: on doubles, not on the numbers written.

The MCP Python SDK parses an envelope's numbers into doubles (integers stay exact) and
compares them so; toolguard compares the numbers the JSON text wrote (`schema/assertions.py`).
Rounding to the nearest double keeps order, so a bound that is itself a double (any number of
magnitude at most 2**53) reads the same or looser, except that an exclusive bound can meet a
value that rounds onto it. What could refuse an envelope toolguard accepts is loosened here:

- `multipleOf`: dropped (`0.07 / 0.01` is not an integer in doubles; past 2**53 a double is no
  longer the integer written), unless an integer divisor with bounds within 2**53;
- `exclusiveMinimum` / `exclusiveMaximum`: published as `minimum` / `maximum`;
- a bound past 2**53, and a `const` or `enum` holding a number past it: dropped;
- `uniqueItems`: dropped unless its items are strings, booleans or null (`0.1` and
  `0.10000000000000001` are one double).
"""

from __future__ import annotations

from typing import Any

_EXACT_DOUBLES = 2**53  # every integer up to it is a double; past it doubles skip integers
_SIDES = (("minimum", "exclusiveMinimum", max), ("maximum", "exclusiveMaximum", min))
_NUMERIC = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf")
_NO_NUMBERS = frozenset({"string", "boolean", "null"})


def reads_numbers(node: dict[str, Any]) -> bool:
    """Whether python-jsonschema may decide `node` otherwise than toolguard, on a number."""
    return (
        any(key in node for key in _NUMERIC)
        or "integer" in _types(node)
        or any(key in node and _holds_number(node[key]) for key in ("const", "enum"))
        or node.get("uniqueItems") is True
    )


def loosen_numbers(node: dict[str, Any]) -> bool:
    """Loosen, in place, what python-jsonschema could refuse; whether anything changed."""
    before = dict(node)
    divisor = node.get("multipleOf")
    if "multipleOf" in node and not (_integer(divisor) and _bounded(node)):
        del node["multipleOf"]
    for inclusive, exclusive, tighter in _SIDES:
        if _number(node.get(exclusive)):
            bound = node.pop(exclusive)
            if _number(node.get(inclusive)):
                bound = tighter(bound, node[inclusive])
            node[inclusive] = bound
        if inclusive in node and not _within(node[inclusive]):
            del node[inclusive]
    for key in ("const", "enum"):
        if key in node and not _all_within(node[key]):
            del node[key]
    if node.get("uniqueItems") is True and not _items_hold_no_numbers(node):
        del node["uniqueItems"]
    return node != before


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _integer(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _within(value: Any) -> bool:
    """A number python-jsonschema reads as written (or no number: nothing to read)."""
    return not _number(value) or abs(value) <= _EXACT_DOUBLES


def _bounded(node: dict[str, Any]) -> bool:
    """Whether the node's bounds keep every number it accepts within +-2**53."""
    low = [node[key] for key in ("minimum", "exclusiveMinimum") if _number(node.get(key))]
    high = [node[key] for key in ("maximum", "exclusiveMaximum") if _number(node.get(key))]
    return bool(low and high) and max(low) >= -_EXACT_DOUBLES and min(high) <= _EXACT_DOUBLES


def _holds_number(value: Any) -> bool:
    if isinstance(value, dict):
        return any(_holds_number(item) for item in value.values())
    if isinstance(value, list):
        return any(_holds_number(item) for item in value)
    return _number(value)


def _all_within(value: Any) -> bool:
    if isinstance(value, dict):
        return all(_all_within(item) for item in value.values())
    if isinstance(value, list):
        return all(_all_within(item) for item in value)
    return _within(value)


def _types(node: dict[str, Any]) -> list[Any]:
    types = node.get("type")
    return types if isinstance(types, list) else [types]


def _items_hold_no_numbers(node: dict[str, Any]) -> bool:
    items = node.get("items")
    return (
        "prefixItems" not in node
        and isinstance(items, dict)
        and "type" in items
        and all(kind in _NO_NUMBERS for kind in _types(items))
    )
