"""Contract-level diff: the tool name, projection, display text, rules and limits -> changes."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from toolguard.contract import Contract
from toolguard.diff.change import (
    BOTH,
    DATA,
    LESS,
    MORE,
    NONE,
    Change,
    Upstream,
    change,
    flip,
    merge,
    show,
    widened,
)
from toolguard.diff.graph import always_present
from toolguard.frozen import fields, is_frozen
from toolguard.rules import RULE_BY_KIND

if TYPE_CHECKING:
    from toolguard.rules import Rule

_LISTED = 240  # characters of a rule's changed ways in, in a change's detail


def tool_changes(old: Contract, new: Contract) -> list[Change]:
    """A renamed tool is another tool to the agent: its envelopes carry the new name."""
    if old.tool == new.tool:
        return []
    return [change("tool", "tool renamed", f"{old.tool} -> {new.tool}", NONE, DATA, breaking=True)]


def projection_changes(old: Contract, new: Contract) -> list[Change]:
    """Fields the agent receives: added, removed, renamed or read from another pointer.

    Projecting a member the schema does not require rejects the answers that lack it; no
    longer projecting it lets them through.
    """
    before, after = dict(old.projection.fields), dict(new.projection.fields)

    def optional(contract: Contract, pointer: str) -> bool:
        return not always_present(contract.validator.schema, pointer)

    def field(name: str, what: str, detail: str, upstream: Upstream, breaking: bool) -> Change:
        where = f"projection.{name}"
        return change(where, f"projection field {what}", detail, upstream, DATA, breaking=breaking)

    changes: list[Change] = []
    came = [name for name in after if name not in before]
    for name, pointer in before.items():
        renamed = next((other for other in came if after[other] == pointer), None)
        if name in after and after[name] != pointer:
            upstream = merge(
                [
                    MORE if optional(old, pointer) else NONE,
                    LESS if optional(new, after[name]) else NONE,
                ]
            )
            changes.append(field(name, "repointed", f"{pointer} -> {after[name]}", upstream, True))
        elif name not in after and renamed is not None:
            came.remove(renamed)
            changes.append(field(name, "renamed", f"{name} -> {renamed} ({pointer})", NONE, True))
        elif name not in after:
            loose = optional(old, pointer)
            detail = f"was {pointer}" + ("; it no longer has to be present" if loose else "")
            changes.append(field(name, "removed", detail, MORE if loose else NONE, True))
    for name in came:
        strict = optional(new, after[name])
        detail = after[name] + (
            "; not required by the schema: answers without it now fail" if strict else ""
        )
        changes.append(field(name, "added", detail, LESS if strict else NONE, False))
    kept_before = [name for name in before if name in after]
    kept_after = [name for name in after if name in before]
    if kept_before != kept_after:
        detail = f"{', '.join(kept_before)} -> {', '.join(kept_after)}"
        changes.append(change("projection", "projection order changed", detail, NONE))
    return changes + _display_text_changes(old, new) + _hidden_character_changes(old, new)


def _display_text_changes(old: Contract, new: Contract) -> list[Change]:
    before, after = old.projection.display_text, new.projection.display_text
    if before is None or after is None:
        if after is not None:
            detail = f"{after.pointer}, at most {after.max_length} characters: now required"
            return [change("display_text", "display text added", detail, LESS, DATA)]
        if before is not None:
            detail = f"was {before.pointer}"
            what = "display text removed"
            return [change("display_text", what, detail, MORE, DATA, breaking=True)]
        return []
    changes: list[Change] = []
    if before.pointer != after.pointer:
        detail = f"{before.pointer} -> {after.pointer}"
        changes.append(change("display_text.pointer", "display text repointed", detail, BOTH, DATA))
    if before.max_length != after.max_length:
        how = "raised" if after.max_length > before.max_length else "lowered"
        detail = f"{before.max_length} -> {after.max_length}"
        upstream = widened(before.max_length, after.max_length)
        changes.append(
            change(
                "display_text.max_length", f"display text max_length {how}", detail, upstream, DATA
            )
        )
    return changes


def _hidden_character_changes(old: Contract, new: Contract) -> list[Change]:
    """Fields let through with hidden characters: one more accepts more, one fewer less.

    Either way the strings the agent may receive change. A field that leaves the projection
    takes its opt-out with it: that is the field's own change.
    """
    before, after = old.projection.allow_hidden, new.projection.allow_hidden
    changes = [
        change(
            f"allow_hidden_characters.{name}",
            "hidden characters allowed",
            reason,
            MORE,
            DATA,
        )
        for name, reason in after.items()
        if name not in before
    ]
    changes.extend(
        change(
            f"allow_hidden_characters.{name}",
            "hidden characters refused again",
            f"was allowed: {reason}",
            LESS,
            DATA,
        )
        for name, reason in before.items()
        if name not in after and name in new.projection.fields
    )
    return changes


def rule_changes(old: Contract, new: Contract) -> list[Change]:
    """Rules, matched by name: added accepts less, removed more, changed as its values say."""
    before, after = _by_name(old.rules), _by_name(new.rules)
    changes: list[Change] = []
    for key, rule in before.items():
        where = f"rules.{key}"
        if key not in after:
            changes.append(change(where, "rule removed", repr(rule), MORE))
            continue
        upstream = _rule_impact(rule, after[key])
        if upstream != NONE:
            what = {MORE: "rule loosened", LESS: "rule tightened"}.get(upstream, "rule changed")
            changes.append(change(where, what, _rule_detail(rule, after[key]), upstream))
    changes.extend(
        change(f"rules.{key}", "rule added", repr(rule), LESS)
        for key, rule in after.items()
        if key not in before
    )
    kept_before = [key for key in before if key in after]
    kept_after = [key for key in after if key in before]
    if kept_before != kept_after:
        detail = "only which failure is reported first: every rule must pass"
        changes.append(change("rules", "rules reordered", detail, NONE))
    return changes


def _by_name(rules: tuple[Rule, ...]) -> dict[str, Rule]:
    """Rules keyed by name; a repeated name gets `#2`, `#3`... in order."""
    keyed: dict[str, Rule] = {}
    for rule in rules:
        key, count = rule.name, 1
        while key in keyed:
            count += 1
            key = f"{rule.name}#{count}"
        keyed[key] = rule
    return keyed


def _rule_detail(old: Rule, new: Rule) -> str:
    """The parameters that changed, each `name: before -> after`; else the two rules."""
    if type(old) is not type(new) or not is_frozen(old):
        return f"{old!r} -> {new!r}"
    changed = [
        f"{name}: {show(getattr(old, name))} -> {show(getattr(new, name))}"
        for name in fields(old)
        if getattr(old, name) != getattr(new, name)
    ]
    kind = RULE_BY_KIND[old.kind]
    if any(getattr(old, name) != getattr(new, name) for name in kind.judged_together):
        before, after = kind.accepted(old), kind.accepted(new)
        for routes, how in ((before - after, "no longer"), (after - before, "now")):
            if routes:
                changed.append(f"{how} let through: {_listed(routes)}")
    return "; ".join(changed)


def _listed(values: Iterable[Any]) -> str:
    """Values as their sorted text, bounded like `show_all`."""
    text = ", ".join(sorted(map(str, values)))
    return text if len(text) <= _LISTED else f"{text[: _LISTED - 3]}..."


def _rule_impact(old: Rule, new: Rule) -> Upstream:
    """Each changed parameter in the sense its kind's entry gives it; any other: `both`."""
    if type(old) is not type(new) or not is_frozen(old):
        return NONE if repr(old) == repr(new) and type(old) is type(new) else BOTH
    impacts = []
    kind = RULE_BY_KIND[old.kind]
    if any(getattr(old, name) != getattr(new, name) for name in kind.judged_together):
        impacts.append(_grown(kind.accepted(old), kind.accepted(new)))
    for name in fields(old):
        before, after = getattr(old, name), getattr(new, name)
        if before == after or name in kind.judged_together:
            continue
        if name in kind.wider_when_higher:
            impacts.append(widened(_bound(before), _bound(after)))
        elif name in kind.wider_when_more:
            impacts.append(_grown_or_all(before, after))
        elif name in kind.narrower_when_more:
            impacts.append(flip(_grown(before, after)))
        else:
            impacts.append(BOTH)
    return merge(impacts)


def _bound(value: float | None) -> float:
    """An upper bound as a number: None (no bound) is the highest of all."""
    return math.inf if value is None else value


def _grown(before: Iterable[Any], after: Iterable[Any]) -> Upstream:
    """A collection's change as sets (a mapping's as its items): grown, shrunk, or both."""
    old, new = _members(before), _members(after)
    if old == new:
        return NONE
    if old <= new:
        return MORE
    return LESS if new <= old else BOTH


def _grown_or_all(before: Iterable[Any] | None, after: Iterable[Any] | None) -> Upstream:
    """`_grown`, where None (no restriction: everything) holds every collection."""
    if after is None:
        return NONE if before is None else MORE
    return LESS if before is None else _grown(before, after)


def _members(value: Iterable[Any]) -> frozenset[Any]:
    return frozenset(value.items() if isinstance(value, Mapping) else value)


def limit_changes(old: Contract, new: Contract) -> list[Change]:
    """Each budget: raised accepts more, lowered accepts less."""
    changes: list[Change] = []
    for name in fields(old.limits):
        before, after = getattr(old.limits, name), getattr(new.limits, name)
        if before != after:
            how = "raised" if after > before else "lowered"
            changes.append(
                change(
                    f"limits.{name}",
                    f"limits {how}",
                    f"{before} -> {after}",
                    widened(before, after),
                )
            )
    return changes
