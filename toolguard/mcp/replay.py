"""`explain --recheck` of an `mcp` record: the server's recorded line, answered again.

The record's raw copy is the server's exact line. It is read as the relay read it (strictly,
within the message limits; an over-long line refused as too large) and made the call's outcome
by `calls.answered`, the relay's own way, with today's contract as `mcp` reads it.
"""

from __future__ import annotations

import math
import time
from typing import TYPE_CHECKING

from toolguard.errors import Rejection, UsageError
from toolguard.mcp import calls
from toolguard.mcp.jsonrpc import (
    Message,
    classify,
    id_key,
    meant_as_message,
    message_limits,
    read_line,
)
from toolguard.mcp.members import leading_members

if TYPE_CHECKING:
    from toolguard.contract import Contract
    from toolguard.request import Request
    from toolguard.result import Outcome

_UNCLAIMED = (
    "the server's line named no call (a batch, or a line unreadable before its id): `mcp` "
    "failed every call in flight with it, whatever the contract says; there is no verdict to "
    "re-check"
)
_BLANK = "the copy is blank: `mcp` answers no call with a blank line (it skips or drops one)"
_NOT_AN_ANSWER = "the server's line is a request or a notification, not the call's answer"
_INTERIM = (
    "the server answered input_required: what `mcp` made of it depends on the client's "
    "protocol revision and the channels shut, which the record does not keep"
)


def replay(contract: Contract, request: Request, line: bytes) -> Outcome:
    """The outcome `toolguard mcp` gives `line` as the answer to a call made as `request`.

    `ContractError` if the contract cannot guard an MCP tool today; `UsageError` when the
    line's verdict was never the contract's to give (see the notes above).
    """
    if not line.strip(b" \t\r\n"):  # never a call's: so no record names one
        raise UsageError(_BLANK)
    # NOTE: `framing.Lines` hands on every line with its newline, but an over-long one: its
    # first `--max-line-bytes + 1` bytes. So a copy without a final newline was over a cap one
    # byte shorter; a line read whole was within its cap, and the message limits bind nothing
    # below the line's own length but the depth (the parser's ceiling, whatever the cap).
    over_long = not line.endswith(b"\n")
    limits = message_limits(max(len(line) - 1 if over_long else len(line), 1))
    guard = calls.Guard(calls.reading(contract), None)
    read: Message | Rejection
    try:
        read = classify(read_line(line, over_long, limits))
    except Rejection as failure:
        lead = leading_members(line, limits) if meant_as_message(line) else {}
        if "method" in lead and "result" not in lead and "error" not in lead:
            raise UsageError(_NOT_AN_ANSWER) from None
        if id_key(lead.get("id")) is None:
            raise UsageError(_UNCLAIMED) from None
        read, jsonrpc_id = failure, lead["id"]
    else:
        if read.kind in {"request", "notification"}:
            raise UsageError(_NOT_AN_ANSWER)
        if read.key is None:
            raise UsageError(_UNCLAIMED)
        jsonrpc_id = read.body["id"]
        answer = read.body.get("result")
        if read.kind == "response" and isinstance(answer, dict) and calls.interim(answer):
            raise UsageError(_INTERIM)
    tool = contract.mcp.server_tool(contract.tool)
    started = time.perf_counter()
    call = calls.Call(
        guard, tool, jsonrpc_id, request, modern=False, started=started, deadline=math.inf
    )
    return calls.answered(call, read, line)
