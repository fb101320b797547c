"""`[mcp]` -> changes: where `toolguard mcp` reads the payload, which server tool, the context.

The payload's place and the server tool decide which bytes are checked at all, so moving
either is `both` (breaking). A context pointer decides what a rule compares the answer with:
moved is `both`; given where a rule needs it, calls that were refused now get through (more);
no longer given, they are refused (less). The description is what the agent reads in the
listing: shown, never breaking.
"""

from __future__ import annotations

from toolguard.contract import Contract
from toolguard.diff.change import BOTH, LESS, MORE, NONE, Change, change, show


def mcp_changes(old: Contract, new: Contract) -> list[Change]:
    """Each `[mcp]` setting that differs, classified."""
    before, after = old.mcp, new.mcp
    changes: list[Change] = []
    if before.payload != after.payload:
        detail = f"{before.payload} -> {after.payload}: another part of the result is checked"
        changes.append(change("mcp.payload", "payload moved", detail, BOTH))
    was, now = before.server_tool(old.tool), after.server_tool(new.tool)
    if was != now:
        detail = f"{was} -> {now}: the contract guards another server tool"
        changes.append(change("mcp.tool", "server tool changed", detail, BOTH))
    if before.description != after.description:
        detail = f"{show(before.description)} -> {show(after.description)}"
        changes.append(change("mcp.description", "listed description changed", detail, NONE))
    needed = {key for rule in new.rules for key in rule.context_keys}
    for key in sorted(set(before.context) | set(after.context)):
        where = f"mcp.context.{key}"
        old_pointer, new_pointer = before.context.get(key), after.context.get(key)
        if old_pointer == new_pointer:
            continue
        if old_pointer is None:
            upstream = MORE if key in needed else NONE
            detail = f"{new_pointer}" + (
                "; calls no longer refused for it" if key in needed else ""
            )
            changes.append(change(where, "context from arguments added", detail, upstream))
        elif new_pointer is None:
            upstream = LESS if key in needed else NONE
            detail = f"was {old_pointer}" + ("; calls are now refused" if key in needed else "")
            changes.append(change(where, "context from arguments removed", detail, upstream))
        else:
            detail = f"{old_pointer} -> {new_pointer}: rules compare with another argument"
            changes.append(change(where, "context pointer moved", detail, BOTH))
    return changes
