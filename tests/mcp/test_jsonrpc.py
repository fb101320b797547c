"""jsonrpc.py: lines classified as requests, notifications, responses, or invalid."""

from __future__ import annotations

from typing import Any

import pytest

from toolguard.mcp.jsonrpc import classify, error_line, id_key


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
