"""Payload schema changes, classified for the upstream and for the agent.

The upstream impact goes through each subschema's sign (see `graph.signs`); the agent impact
comes from every subschema that applies to a projected field, wherever it sits (see
`graph.field_reach`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolguard.contract import Contract
from toolguard.diff.change import BOTH, DATA, NONE, Change, Upstream, change, flip, merge
from toolguard.diff.graph import equivalent, field_reach, on_the_way, signs
from toolguard.diff.schema import schema_findings
from toolguard.projection import DISPLAY_TEXT_FIELD


def payload_changes(old: Contract, new: Contract) -> list[Change]:
    """Every change to the payload schema, then any envelope field change none explains."""
    old_schema, new_schema = old.validator.schema, new.validator.schema
    reach = {
        name: field_reach(old_schema, pointer) for name, pointer in old.projection.fields.items()
    }
    for name, pointer in new.projection.fields.items():
        reach[name] = reach.get(name, set()) | field_reach(new_schema, pointer)
    changes, explained = schema_changes(old_schema, new_schema, reach)
    return changes + _envelope_changes(old, new, explained)


def schema_changes(
    old: Any, new: Any, reach: Mapping[str, set[str]] | None = None
) -> tuple[list[Change], set[str]]:
    """The changes between two bundled payload schemas, and the projected fields they touch.

    `reach` maps each projected field to the schema locations that shape it: a change inside
    one of them, or to the keyword that holds one, is agent-facing.
    """
    old_signs, new_signs = signs(old), signs(new)
    changes: list[Change] = []
    explained: set[str] = set()
    for finding in schema_findings(old, new):
        fields = {
            name
            for name, locations in (reach or {}).items()
            if not finding.inert and on_the_way(finding.where, locations)
        }
        explained |= fields
        found = old_signs.get(finding.at, set()) | new_signs.get(finding.at, set())
        detail = finding.detail
        if not found and finding.local != NONE:
            detail = f"{detail}; no $ref reaches it: no effect".lstrip("; ")
        upstream = _through(finding.local, found)
        changes.append(
            change(finding.where, finding.what, detail, upstream, DATA if fields else "none")
        )
    return changes, explained


def _through(local: Upstream, found: set[int]) -> Upstream:
    """The impact on the payload of a change with `local` impact where the signs `found` hold."""
    return merge(
        local if sign == 1 else flip(local) if sign == -1 else BOTH if local != NONE else NONE
        for sign in found
    )


def _envelope_changes(old: Contract, new: Contract, explained: set[str]) -> list[Change]:
    """The safety net: a field whose envelope schema differs with no change found to explain it."""
    old_envelope, new_envelope = old.envelope_schema, new.envelope_schema
    before = old_envelope["$defs"]["data"]["properties"]
    after = new_envelope["$defs"]["data"]["properties"]
    changes: list[Change] = []
    for name in before:
        if name in explained or name == DISPLAY_TEXT_FIELD or name not in after:
            continue
        if old.projection.fields.get(name) != new.projection.fields.get(name):
            continue  # reported as repointed
        if not equivalent(old_envelope, before[name], new_envelope, after[name]):
            detail = "the envelope's copy of its schema differs"
            changes.append(
                change(f"projection.{name}", "projected field schema changed", detail, NONE, DATA)
            )
    return changes
