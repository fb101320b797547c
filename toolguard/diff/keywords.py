"""Assertion keywords compared on their own: two subschema objects -> findings at one location.

Each comparison knows which way its keyword moves the set of valid instances: a lower bound
raised accepts less, an enum value added accepts more. `pattern` and `format` cannot be
compared (is one regular expression wider than another?), so a changed one is `both`.
Subschema keywords (applicators) are walked in `schema.py`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from toolguard.diff.change import BOTH, LESS, MORE, NONE, Upstream, show, show_all, widened
from toolguard.diff.graph import json_key
from toolguard.number import exact_number
from toolguard.pointer import escape
from toolguard.schema.vocabulary import ANNOTATIONS

Node = dict[str, Any]
_LOWER = ("minLength", "minItems", "minProperties", "minContains")
_UPPER = ("maxLength", "maxItems", "maxProperties", "maxContains")
# A number's bound on each side: (inclusive keyword, exclusive keyword), read as one.
_NUMERIC = {"lower": ("minimum", "exclusiveMinimum"), "upper": ("maximum", "exclusiveMaximum")}
_DEFAULT_BOUND = {"minContains": 1}
_TYPES_ALL = frozenset({"null", "boolean", "object", "array", "number", "string", "integer"})


@dataclass(frozen=True, slots=True)
class Finding:
    """One keyword-level change at `where`, in the subschema at `at`.

    `local` is its impact on the instances that subschema accepts; `inert` marks a change
    that cannot by itself change any verdict or what the agent receives (a new definition).
    """

    where: str
    at: str
    what: str
    detail: str
    local: Upstream
    inert: bool = False


def annotated(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """Titles, descriptions, examples...: no effect on validity (the agent may read them)."""
    for name in sorted((set(old) | set(new)) & ANNOTATIONS):
        before, after = old.get(name), new.get(name)
        if json_key(before) != json_key(after):
            how = "added" if before is None else "removed" if after is None else "changed"
            yield Finding(f"{at}/{escape(name)}", at, f"{name} {how}", "", NONE)


def types(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """`type` as a set of types, integers included in numbers."""
    before, after = _types(old), _types(new)
    wider, narrower = _covers(after, before), _covers(before, after)
    if wider and narrower:
        return
    detail = f"{_show_types(old)} -> {_show_types(new)}"
    if wider:
        yield Finding(f"{at}/type", at, "type widened", detail, MORE)
    elif narrower:
        yield Finding(f"{at}/type", at, "type narrowed", detail, LESS)
    else:
        yield Finding(f"{at}/type", at, "type changed", detail, BOTH)


def values(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """`enum` and `const` together, as the set of values they allow (JSON equality)."""
    before, after = _allowed(old), _allowed(new)
    name = "enum" if "enum" in old or "enum" in new else "const"
    where = f"{at}/{name}"
    if before is None:
        yield Finding(where, at, f"{name} added", show_all(after or []), LESS)
        return
    if after is None:
        yield Finding(where, at, f"{name} removed", f"was {show_all(before)}", MORE)
        return
    if (
        name == "const"
        and len(before) == len(after) == 1
        and json_key(before[0]) != json_key(after[0])
    ):
        detail = f"{show(before[0])} -> {show(after[0])}"
        yield Finding(where, at, "const changed", detail, BOTH)
        return
    old_keys, new_keys = {json_key(v) for v in before}, {json_key(v) for v in after}
    if gone := [value for value in before if json_key(value) not in new_keys]:
        yield Finding(where, at, f"{name} value removed", show_all(gone), LESS)
    if came := [value for value in after if json_key(value) not in old_keys]:
        yield Finding(where, at, f"{name} value added", show_all(came), MORE)


def required(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """Members that must be present: added accepts less, removed more."""
    yield from _names(old.get("required", []), new.get("required", []), f"{at}/required", at)


def dependent_required(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """`dependentRequired`, member by member, like `required`."""
    before, after = old.get("dependentRequired", {}), new.get("dependentRequired", {})
    for name in sorted(set(before) | set(after)):
        where = f"{at}/dependentRequired/{escape(name)}"
        yield from _names(before.get(name, []), after.get(name, []), where, at, "dependentRequired")


def _names(
    before: list[str], after: list[str], where: str, at: str, keyword: str = "required"
) -> Iterator[Finding]:
    if added := [name for name in after if name not in before]:
        yield Finding(where, at, f"{keyword} added", show_all(added), LESS)
    if dropped := [name for name in before if name not in after]:
        yield Finding(where, at, f"{keyword} removed", show_all(dropped), MORE)


def bounds(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """min*/max*: a lower bound raised or an upper bound lowered accepts less."""
    for name in (*_LOWER, *_UPPER):
        before = old.get(name, _DEFAULT_BOUND.get(name))
        after = new.get(name, _DEFAULT_BOUND.get(name))
        if json_key(before) == json_key(after):  # numbers as written
            continue
        where = f"{at}/{name}"
        if before is None:
            yield Finding(where, at, f"{name} added", show(after), LESS)
        elif after is None:
            yield Finding(where, at, f"{name} removed", f"was {show(before)}", MORE)
        else:
            upper = widened(exact_number(before), exact_number(after))
            local = upper if name in _UPPER else {MORE: LESS, LESS: MORE}[upper]
            how = "raised" if upper == MORE else "lowered"
            yield Finding(where, at, f"{name} {how}", f"{show(before)} -> {show(after)}", local)


def numeric_bounds(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """`minimum` with `exclusiveMinimum`, `maximum` with `exclusiveMaximum`: each pair as one.

    A side's bound is its tighter keyword (at a tie, the exclusive one) and, on a
    `type: integer` node, the last integer it keeps out; the impact compares those, so
    `exclusiveMinimum: 0` becoming `minimum: 0` accepts more (0), and becoming `minimum: 1`
    on an integer changes nothing. One keyword changed is named as before (`minimum
    added`); both at once are the side's bound (`lower bound lowered`).
    """
    for side, names in _NUMERIC.items():
        changed = [name for name in names if json_key(old.get(name)) != json_key(new.get(name))]
        if not changed:
            continue
        before, after = _effective(old, side), _effective(new, side)
        if before is None or after is None:
            local = LESS if before is None else MORE  # one side has a bound, the other none
        else:
            local = _compare(_looseness(side, before), _looseness(side, after))
        if len(changed) == 1:
            (name,) = changed
            (beside,) = (other for other in names if other != name)
            was, now = old.get(name), new.get(name)
            if was is None:
                how, detail = "added", show(now)
            elif now is None:
                how, detail = "removed", f"was {show(was)}"
            else:
                how, detail = _moved(was, now), f"{show(was)} -> {show(now)}"
            if beside in new:
                detail += f" (beside {beside} {show(new[beside])})"
            yield Finding(f"{at}/{name}", at, f"{name} {how}", detail, local)
        else:
            name = names[0] if names[0] in new else names[1]
            higher = local == (MORE if side == "upper" else LESS)
            how = "kept" if local == NONE else "raised" if higher else "lowered"
            detail = f"{_shown_bound(old, names)} -> {_shown_bound(new, names)}"
            yield Finding(f"{at}/{name}", at, f"{side} bound {how}", detail, local)


def _effective(node: Node, side: str) -> tuple[Fraction, bool] | None:
    """The bound a side's keywords set together: (value, exclusive), None if neither is there."""
    inclusive, exclusive = _NUMERIC[side]
    bounds = [
        (Fraction(exact_number(node[name])), name == exclusive)
        for name in (inclusive, exclusive)
        if isinstance(node.get(name), int | float) and not isinstance(node[name], bool)
    ]
    if _types(node) == {"integer"}:
        bounds = [_integral(side, value, open_) for value, open_ in bounds]
    return min(bounds, key=lambda bound: _looseness(side, bound)) if bounds else None


def _integral(side: str, value: Fraction, exclusive: bool) -> tuple[Fraction, bool]:
    """The same bound on integers, inclusive: `> 0` is `>= 1`, `<= 2.5` is `<= 2`."""
    if side == "lower":
        least = math.floor(value) + 1 if exclusive else math.ceil(value)
        return Fraction(least), False
    most = math.ceil(value) - 1 if exclusive else math.floor(value)
    return Fraction(most), False


def _looseness(side: str, bound: tuple[Fraction, bool]) -> tuple[Fraction, int]:
    """Orders one side's bounds: the greater, the more instances it lets through."""
    value, exclusive = bound
    return (value if side == "upper" else -value, 0 if exclusive else 1)


def _compare(before: tuple[Fraction, int], after: tuple[Fraction, int]) -> Upstream:
    return NONE if after == before else MORE if after > before else LESS


def _moved(was: Any, now: Any) -> str:
    return "raised" if exact_number(now) > exact_number(was) else "lowered"


def _shown_bound(node: Node, names: tuple[str, str]) -> str:
    shown = [f"{name} {show(node[name])}" for name in names if name in node]
    return ", ".join(shown) or "none"


def multiple_of(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """A multiple of the old divisor accepts less, a divisor of it more, anything else both."""
    before, after = old.get("multipleOf"), new.get("multipleOf")
    where = f"{at}/multipleOf"
    if json_key(before) == json_key(after):  # numbers as written
        return
    if before is None:
        yield Finding(where, at, "multipleOf added", show(after), LESS)
    elif after is None:
        yield Finding(where, at, "multipleOf removed", f"was {show(before)}", MORE)
    else:
        ratio = Fraction(exact_number(after)) / Fraction(exact_number(before))
        local = LESS if ratio.denominator == 1 else MORE if ratio.numerator == 1 else BOTH
        yield Finding(where, at, "multipleOf changed", f"{show(before)} -> {show(after)}", local)


def unique_items(old: Node, new: Node, at: str) -> Iterator[Finding]:
    """`uniqueItems`: turned on accepts less."""
    before, after = old.get("uniqueItems", False), new.get("uniqueItems", False)
    if before != after:
        what, local = ("uniqueItems added", LESS) if after else ("uniqueItems removed", MORE)
        yield Finding(f"{at}/uniqueItems", at, what, "", local)


def opaque(name: str) -> Callable[[Node, Node, str], Iterator[Finding]]:
    """`pattern` or `format`: added accepts less, removed more, changed cannot be told."""

    def compare(old: Node, new: Node, at: str) -> Iterator[Finding]:
        before, after = old.get(name), new.get(name)
        where = f"{at}/{name}"
        if before == after:
            return
        if before is None:
            yield Finding(where, at, f"{name} added", show(after), LESS)
        elif after is None:
            yield Finding(where, at, f"{name} removed", f"was {show(before)}", MORE)
        else:
            yield Finding(where, at, f"{name} changed", f"{show(before)} -> {show(after)}", BOTH)

    return compare


ASSERTION_BY_KEYWORD: dict[str, Callable[[Node, Node, str], Iterator[Finding]]] = {
    **dict.fromkeys(ANNOTATIONS, annotated),
    "type": types,
    "enum": values,
    "const": values,
    "required": required,
    "dependentRequired": dependent_required,
    **dict.fromkeys((*_LOWER, *_UPPER), bounds),
    **dict.fromkeys((*_NUMERIC["lower"], *_NUMERIC["upper"]), numeric_bounds),
    "multipleOf": multiple_of,
    "uniqueItems": unique_items,
    "pattern": opaque("pattern"),
    "format": opaque("format"),
}


def _types(node: Node) -> frozenset[str]:
    declared = node.get("type")
    if declared is None:
        return _TYPES_ALL
    return frozenset([declared] if isinstance(declared, str) else declared)


def _covers(wide: frozenset[str], narrow: frozenset[str]) -> bool:
    """Whether every value of a type in `narrow` has a type in `wide` (integers are numbers)."""
    return all(kind in wide or (kind == "integer" and "number" in wide) for kind in narrow)


def _show_types(node: Node) -> str:
    return show(node["type"]) if "type" in node else "any"


def _allowed(node: Node) -> list[Any] | None:
    """The values `enum` and `const` together allow; None when neither is there."""
    allowed: list[Any] | None = list(node["enum"]) if "enum" in node else None
    if "const" in node:
        const = json_key(node["const"])
        allowed = (
            [node["const"]] if allowed is None else [v for v in allowed if json_key(v) == const]
        )
    return allowed
