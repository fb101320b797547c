"""What `toolguard init` makes a contract folder from: a `Draft`, from the example or a sample.

Both kinds hold the accepted response (its raw bytes and value), the payload schema, the
limits, the contract's TOML, the request context and clock its fixtures are checked with,
and the edits that play the near misses only its rules can catch.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from toolguard.limits import Limits
from toolguard.scaffold.left_out import LeftOut
from toolguard.scaffold.near_misses import Edit
from toolguard.scaffold.render import Entry, Table

SCHEMA_FILE = "response.schema.json"
FIRST_VERSION = "0.1.0"


@dataclass(frozen=True, slots=True)
class Draft:
    """A contract folder's content before it is written."""

    tool: str
    accepted: str  # the accept fixture's name
    raw: bytes  # its bytes, exactly as they will be written
    sample: dict[str, Any]
    schema: dict[str, Any]
    limits: Limits
    contract: str  # contract.toml
    context: Mapping[str, Any] | None  # context.json, if the rules read one
    now: str  # fixtures.toml's clock
    projected: Sequence[str] = ()  # the top-level members the projection keeps
    edits: Sequence[Edit] = ()
    private: bool = False  # the fixtures hold a user's response: written 0600
    ruled: Sequence[str] = ()  # pointers a suggested, commented-out rule reads
    left_out: Sequence[LeftOut] = ()  # members not projected, as the projection would refuse them


def top_entries(tool: str) -> list[Entry]:
    """`tool`, `version` and `schema`, with what each means."""
    return [
        Entry("tool", tool, "the envelope's `tool`"),
        Entry("version", FIRST_VERSION, "bump it when the agent could notice a change"),
        Entry("schema", SCHEMA_FILE, "Draft 2020-12, relative to this file"),
    ]


def limits_table(limits: Limits, comment: str) -> Table:
    """`[limits]`: the four budgets a drafted contract sets."""
    names: Sequence[str] = ("max_bytes", "max_depth", "max_string_length", "max_container_items")
    return Table("[limits]", [Entry(name, getattr(limits, name)) for name in names], comment)
