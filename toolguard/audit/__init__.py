"""Audit trail, the writing side: why the agent saw what it saw, kept after the process exits.

`trail.py` is the stage: it ties an outcome to its record and raw copies, and fails closed;
`record.py` builds one bounded JSON record per answer; `log.py` appends it with one O_APPEND
write; `raw.py` keeps private, content-addressed copies of raw responses; `keys.py` holds the
key for secret context. Reading the trail back is `toolguard.explain`'s job.
"""

from __future__ import annotations

from toolguard.frozen import frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Literal, TypeAlias

    Command: TypeAlias = Literal["check", "run", "serve", "mcp"]  # what produced a record


@frozen
class Source:
    """Where the response came from: stdin, a file, a command (`run`) or an MCP server (`mcp`).

    For `mcp`, `tool` is the tool's name on the server and `jsonrpc_id` the call's JSON-RPC id
    (the server's command is the outcome's `upstream`, as for `run`).
    """

    kind: Literal["stdin", "file", "command", "mcp"]
    file: str | None = None
    tool: str | None = None
    jsonrpc_id: str | int | None = None
