"""The contract's `[mcp]` table: how `toolguard mcp` finds this tool's payload in a `tools/call`.

`payload` says where the payload is (the result's `structuredContent`, or its one text block);
`tool` names the tool on the server when that name is not a valid contract `tool`;
`description` replaces the server's description in the listing the agent reads; `context` maps
request context keys to JSON Pointers into the call's `arguments`, so a rule such as
`equals_context` compares the answer with what the agent asked for.
"""

from __future__ import annotations

from types import MappingProxyType

from toolguard.frozen import field, frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any, Literal, TypeAlias

    Payload: TypeAlias = Literal["structured", "text"]


@frozen
class McpPolicy:
    """The `[mcp]` table as data; a contract without one gets these defaults."""

    payload: Payload = "structured"
    tool: str | None = None  # None: the contract's `tool`
    description: str | None = None  # None: the server's own (if it shows nothing hidden)
    context: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @classmethod
    def from_table(cls, table: dict[str, Any]) -> McpPolicy:
        """Build from a contract's (already schema-checked) table."""
        return cls(
            payload=table.get("payload", "structured"),
            tool=table.get("tool"),
            description=table.get("description"),
            context=MappingProxyType(dict(table.get("context", {}))),
        )

    def server_tool(self, contract_tool: str) -> str:
        """The tool's name on the MCP server."""
        return self.tool if self.tool is not None else contract_tool
