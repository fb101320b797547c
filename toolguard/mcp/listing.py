"""What the client learns about the server: the tool listing and the server's own description.

`tools/list` (every page) lists a guarded tool as a new object: its name, `inputSchema` and
annotations as the server gave them, its title and description only if they hide nothing
(else the tool is withheld), the contract's description if it has one, and the contract's
envelope schema as `outputSchema`. A tool without a contract is removed, unless the operator
allowed it by name; of the page itself, only pagination and cache hints pass. `initialize`
and `server/discover` lose the server's `instructions` (clients put them in the system
prompt), its task capability (a task's result would come back through `tasks/*`, around the
check) and the capabilities of the channels the operator shut (`channels.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from toolguard.invisible import invisible_at
from toolguard.mcp.channels import Channels

TASKS_EXTENSION = "io.modelcontextprotocol/tasks"
# What a listing page keeps besides its tools: pagination, and 2026-07-28's result type and
# cache hints. Nothing else of the server's (`_meta`, members no revision defines) passes.
_PAGE = ("nextCursor", "resultType", "ttlMs", "cacheScope")
# The annotations MCP defines, and their types (null is "not given").
_ANNOTATIONS: dict[str, type] = {
    "title": str,
    "readOnlyHint": bool,
    "destructiveHint": bool,
    "idempotentHint": bool,
    "openWorldHint": bool,
}


def hidden(text: str) -> bool:
    """Whether `text` holds a character a person reading it cannot see.

    The same test as every string the agent receives (`invisible.py`), read as display text:
    tab and newline stay allowed, since descriptions are multi-line text.
    """
    return invisible_at(text, display=True) is not None


@dataclass(frozen=True, slots=True)
class Listed:
    """What a guarded tool is listed with, besides what the server gives."""

    output_schema: dict[str, Any]
    description: str | None  # the contract's `[mcp] description`, if any


def rewrite_tools(
    result: dict[str, Any], guarded: Mapping[str, Listed], unguarded: frozenset[str]
) -> tuple[dict[str, Any], list[str]]:
    """One `tools/list` page for the client, and what was withheld or removed (for stderr)."""
    page = {key: result[key] for key in _PAGE if key in result}
    tools = result.get("tools")
    if not isinstance(tools, list):
        return {**page, "tools": []}, ["the server's tool listing has no tools array"]
    names = Counter(name for tool in tools if isinstance(name := _name(tool), str))
    listed: list[dict[str, Any]] = []
    notes: list[str] = []
    for tool in tools:
        name = _name(tool)
        if name is None:
            notes.append("removed a tool with no name")
        elif names[name] > 1:
            notes.append(f"withheld tool {name!r}: the server lists it {names[name]} times")
        elif name in guarded:
            entry, why = _guarded(tool, guarded[name])
            if entry is None:
                notes.append(f"withheld guarded tool {name!r}: {why}")
            else:
                listed.append(entry)
        elif name in unguarded:
            listed.append(tool)  # --allow-unguarded: untouched, as the operator asked
        else:
            notes.append(f"removed tool {name!r}: no contract guards it")
    return {**page, "tools": listed}, notes


def _name(tool: Any) -> str | None:
    """A listed tool's name; None if it is not an object with a string name."""
    name = tool.get("name") if isinstance(tool, dict) else None
    return name if isinstance(name, str) else None


def _guarded(tool: dict[str, Any], listing: Listed) -> tuple[dict[str, Any] | None, str]:
    """A guarded tool's new entry, or None and why it is withheld."""
    input_schema = tool.get("inputSchema")
    if not isinstance(input_schema, dict):
        return None, "it has no inputSchema object"
    entry: dict[str, Any] = {"name": tool["name"]}
    for key in ("title", "description"):
        text = tool.get(key)
        if key == "description" and listing.description is not None:
            text = listing.description
        if text is None:
            continue
        if not isinstance(text, str):
            return None, f"its {key} is not a string"
        entry[key] = text
    entry["inputSchema"] = input_schema
    if "annotations" in tool:
        why = _annotations_wrong(tool["annotations"])
        if why:
            return None, why
        entry["annotations"] = tool["annotations"]
    for where, text in _strings(entry, ""):
        if hidden(text):
            return None, f"{where} holds characters a person cannot see"
    entry["outputSchema"] = listing.output_schema
    return entry, ""


def _annotations_wrong(annotations: Any) -> str:
    """Why a client would refuse the annotations (and the whole listing with them), or ""."""
    if not isinstance(annotations, dict):
        return "its annotations are not an object"
    for key, kind in _ANNOTATIONS.items():
        value = annotations.get(key)
        if value is not None and type(value) is not kind:
            return f"its annotations.{key} is not a {kind.__name__}"
    return ""


def _strings(value: Any, where: str) -> Iterator[tuple[str, str]]:
    """Every string (member names too) in `value`, with where it is."""
    if isinstance(value, str):
        yield where, value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield where, key
            yield from _strings(item, f"{where}/{key}")
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _strings(item, f"{where}/{index}")


def server_description(
    result: dict[str, Any], *, pass_instructions: bool, channels: Channels | None = None
) -> dict[str, Any]:
    """An `initialize` or `server/discover` result without instructions and task support.

    The capabilities of the channels the operator shut (`channels.py`) are withheld too: a
    client then does not use them.
    """
    changed = dict(result)
    if not pass_instructions:
        changed.pop("instructions", None)
    capabilities = result.get("capabilities")
    if isinstance(capabilities, dict) and channels is not None:
        capabilities = changed["capabilities"] = channels.capabilities(capabilities)
    if isinstance(capabilities, dict) and _offers_tasks(capabilities):
        capabilities = {key: value for key, value in capabilities.items() if key != "tasks"}
        extensions = capabilities.get("extensions")
        if isinstance(extensions, dict) and TASKS_EXTENSION in extensions:
            capabilities["extensions"] = {
                key: value for key, value in extensions.items() if key != TASKS_EXTENSION
            }
        changed["capabilities"] = capabilities
    return changed


def _offers_tasks(capabilities: dict[str, Any]) -> bool:
    extensions = capabilities.get("extensions")
    return "tasks" in capabilities or (
        isinstance(extensions, dict) and TASKS_EXTENSION in extensions
    )
