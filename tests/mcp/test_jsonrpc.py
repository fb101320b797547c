"""jsonrpc.py: lines classified as requests, notifications, responses, or invalid."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from mcp_types.jsonrpc import (
    JSONRPCError,
    JSONRPCNotification,
    JSONRPCRequest,
    JSONRPCResponse,
    jsonrpc_message_adapter,
)

from toolguard.mcp.jsonrpc import classify, error_line, id_key

# What the MCP Python SDK decodes each kind as (the client toolguard forwards lines to).
SDK_KIND = {
    JSONRPCRequest: "request",
    JSONRPCNotification: "notification",
    JSONRPCResponse: "response",
    JSONRPCError: "response",
}
MEMBERS = {
    "jsonrpc": st.sampled_from(["2.0", "1.0"]),
    "id": st.one_of(st.integers(-2, 2), st.sampled_from(["a", None, True, 1.5])),
    "method": st.sampled_from(["ping", "tools/call", 3]),
    "params": st.sampled_from([{}, {"a": 1}, [1], None]),
    "result": st.sampled_from([{}, {"isError": True}, [], None]),
    "error": st.sampled_from([{"code": -32000, "message": "m"}, {"code": "x"}, None]),
}


@pytest.mark.parametrize(
    ("value", "kind"),
    [
        ({"jsonrpc": "2.0", "id": 1, "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "method": "notifications/initialized"}, "notification"),
        ({"jsonrpc": "2.0", "id": "a", "result": {}}, "response"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": -1, "message": "x"}}, "response"),
        ([{"jsonrpc": "2.0", "id": 1, "method": "ping"}], "invalid"),
        ({"id": 1, "method": "ping"}, "invalid"),
        ({"jsonrpc": "2.0", "id": None, "method": "ping"}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1.5, "method": "ping"}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1, "method": "ping", "params": [1]}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": ""}}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1, "error": {"code": True, "message": "x"}}, "invalid"),
        ({"jsonrpc": "2.0", "id": 1, "result": []}, "invalid"),
        ({"level": "info", "msg": "log line"}, "invalid"),
        (
            {"jsonrpc": "2.0", "id": 1, "method": "x", "error": {"code": 1, "message": ""}},
            "invalid",
        ),
        ({"jsonrpc": "2.0", "id": 1, "method": "x", "result": {}}, "invalid"),
        ({"jsonrpc": "2.0", "method": "x", "result": {}}, "invalid"),
        ({"jsonrpc": "2.0", "id": "i" * 1024, "method": "ping"}, "request"),
        ({"jsonrpc": "2.0", "id": "i" * 1025, "method": "ping"}, "invalid"),
        ({"jsonrpc": "2.0", "id": "i" * 1025, "result": {}}, "invalid"),
    ],
)
def test_classify(value: Any, kind: str) -> None:
    """Each message is what JSON-RPC 2.0 (as MCP uses it) says it is."""
    assert classify(value).kind == kind


def test_ids_keep_their_type() -> None:
    """1 and "1" are different ids; booleans and floats are none."""
    assert id_key(1) != id_key("1")
    assert id_key(True) is None
    assert id_key(1.0) is None


def test_error_lines_are_one_ascii_line_with_a_bounded_escaped_message() -> None:
    """toolguard's own errors quote nothing raw: control characters escaped, text bounded."""
    line = error_line(3, -32602, "Unknown tool: \x1b[31mx\u2028y" + "z" * 2000)
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert line.isascii()
    assert b"\\x1b" in line
    assert len(line) < 1000


@given(st.fixed_dictionaries({}, optional=MEMBERS))
def test_the_sdk_reads_every_message_as_the_kind_toolguard_does(value: dict[str, Any]) -> None:
    """A line passed on as a request is no response to the SDK, and so on for each kind."""
    message = classify(value)
    if message.kind == "invalid":
        return
    decoded = jsonrpc_message_adapter.validate_json(json.dumps(value), by_name=False)
    assert SDK_KIND[type(decoded)] == message.kind
