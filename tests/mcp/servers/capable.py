"""An MCP server built on the `mcp` Python SDK that asks the client only what it says it can.

Its tool `capabilities` answers with the client capabilities the server was told of (in
`initialize`, or in the call's `_meta` at 2026-07-28) and, in a session with the handshake,
asks the client for a sampling if it was told the client can sample: what a server that
believes the client's word does.
"""

from __future__ import annotations

import warnings
from typing import Any

from mcp import types
from mcp.server.mcpserver import Context, MCPServer

server = MCPServer("capable")


@server.tool()
async def capabilities(ctx: Context) -> dict[str, Any]:
    """The client's capabilities as this server sees them, and what a sampling request got."""
    stated = ctx.client_capabilities
    seen = stated.model_dump(by_alias=True, exclude_none=True) if stated is not None else {}
    sampled = None
    if "sampling" in seen and ctx.protocol_version != "2026-07-28":
        text = types.TextContent(type="text", text="say hello")
        message = types.SamplingMessage(role="user", content=text)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # sampling is deprecated as of 2026-07-28
            reply = await ctx.session.create_message([message], max_tokens=8)
        sampled = reply.content.text if isinstance(reply.content, types.TextContent) else "?"
    return {"seen": sorted(seen), "sampled": sampled}


if __name__ == "__main__":
    server.run("stdio")
