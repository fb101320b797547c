"""JSON-RPC 2.0 messages on the MCP stdio wire: read strictly, classified, written as lines.

Every line, from either side, is parsed by toolguard's strict parser within the message
limits; a line that fails is never forwarded or repaired. Ids are strings or integers (never
booleans, floats or null: a boolean `true` must not match the id `1`), kept as `IdKey`s.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

from toolguard.errors import LimitExceeded
from toolguard.limits import DEPTH_CEILING, Limits
from toolguard.parse import parse
from toolguard.text import clean

IdKey = tuple[bool, int | str]  # (is a string, the id)
Kind = Literal["request", "notification", "response", "invalid"]

# JSON-RPC 2.0 error codes toolguard answers with.
PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
_MAX_MESSAGE = 512
MAX_ID_LENGTH = 1024  # characters of a string id
_BLANKS = re.compile(r"[\s\ufeff]*")  # white space and byte order marks


def message_limits(max_line_bytes: int) -> Limits:
    """The limits every line is parsed within: toolguard's own, before any contract's.

    The depth is the parser's ceiling; strings and containers are bounded by the line itself.
    A guarded payload is then held to its contract's limits, on its own bytes.
    """
    return Limits(
        max_bytes=max_line_bytes,
        max_depth=DEPTH_CEILING,
        max_string_length=max_line_bytes,
        max_container_items=max_line_bytes,
    )


def read_line(line: bytes, over_long: bool, limits: Limits) -> Any:
    """A line's value, read strictly within `limits`; `Rejection` if it cannot be.

    `over_long`: the line is the first `max_bytes + 1` bytes of a longer one (`framing.Lines`),
    refused as too large whatever they hold. NOTE: the cap counts the line's bytes, not its
    newline (as `framing.Lines` does).
    """
    if over_long:
        cap = limits.max_bytes
        raise LimitExceeded("too_large", f"line longer than --max-line-bytes={cap}", offset=cap)
    return parse(line.removesuffix(b"\n"), limits)


def id_key(value: Any) -> IdKey | None:
    """The key of a JSON-RPC id, or None if `value` is not a valid MCP request id.

    NOTE: a string id is held while its request is in flight (4,096 a side): at most
    `MAX_ID_LENGTH` characters, so what either side makes toolguard hold stays small.
    """
    if isinstance(value, str):
        return (True, value) if len(value) <= MAX_ID_LENGTH else None
    if isinstance(value, int) and not isinstance(value, bool):
        return (False, value)
    return None


@dataclass(frozen=True, slots=True)
class Message:
    """One parsed line, classified: what it is, its id's key and its method."""

    kind: Kind
    body: Any
    key: IdKey | None = None
    method: str | None = None
    why: str | None = None  # for "invalid": what is wrong with it

    @property
    def params(self) -> dict[str, Any]:
        """The request's params object (empty if it has none)."""
        params = self.body.get("params")
        return params if isinstance(params, dict) else {}


def classify(value: Any) -> Message:
    """A request, a notification, a response, or invalid (with the reason).

    A message is exactly one of the three, by JSON-RPC 2.0's rules: a request or notification
    has a method and no result or error; a response has an id, exactly one of result and
    error, and no method. Anything else is invalid, never read as whichever kind suits.
    """
    if isinstance(value, list):
        return Message("invalid", value, why="a batch (JSON-RPC batches left MCP in 2025-06-18)")
    if not isinstance(value, dict):
        return Message("invalid", value, why="not a JSON object")
    key = id_key(value.get("id"))
    if value.get("jsonrpc") != "2.0":
        return Message("invalid", value, key, why='no "jsonrpc": "2.0"')
    method = value.get("method")
    answers = "result" in value or "error" in value
    if "method" in value:
        if answers:  # NOTE: a client would read it as a response: it is neither
            why = "a request or notification holds no result or error"
            return Message("invalid", value, key, why=why)
        if not isinstance(method, str):
            return Message("invalid", value, key, why="method is not a string")
        if "params" in value and not isinstance(value["params"], dict):
            return Message("invalid", value, key, method, why="params is not an object")
        if "id" not in value:
            return Message("notification", value, None, method)
        if key is None:
            why = f"id is not an integer or a string of at most {MAX_ID_LENGTH} characters"
            return Message("invalid", value, None, method, why=why)
        return Message("request", value, key, method)
    if ("result" in value) == ("error" in value):  # neither (nor a method), or both
        return Message("invalid", value, key, why="a response holds exactly one of result, error")
    if key is None:
        return Message("invalid", value, why="a response without a usable id")
    if "error" in value and not _valid_error(value["error"]):
        return Message("invalid", value, key, why="error is not {code, message}")
    if "result" in value and not isinstance(value["result"], dict):
        return Message("invalid", value, key, why="result is not an object")
    return Message("response", value, key)


def meant_as_message(line: bytes) -> bool:
    """Whether an unreadable line is a message (else a banner: a log line, a greeting).

    It is one when, once blanks (Unicode white space, byte order marks) are set aside, it
    opens an object, or an array whose first item is an object (`[INFO]` is a log line).
    """
    text = line.decode("utf-8", "replace")
    at = _BLANKS.match(text).end()  # type: ignore[union-attr] # always matches
    if text[at : at + 1] == "[":
        at = _BLANKS.match(text, at + 1).end()  # type: ignore[union-attr]
    return text[at : at + 1] == "{"


def _valid_error(error: Any) -> bool:
    return (
        isinstance(error, dict)
        and isinstance(error.get("code"), int)
        and not isinstance(error.get("code"), bool)
        and isinstance(error.get("message"), str)
    )


def result_line(request_id: Any, result: dict[str, Any]) -> bytes:
    """A response line carrying `result` for `request_id`."""
    return _line({"jsonrpc": "2.0", "id": request_id, "result": result})


def error_line(request_id: Any, code: int, message: str) -> bytes:
    """A JSON-RPC error line toolguard answers with (`request_id` None: the id is unknown)."""
    error = {"code": code, "message": clean(message, _MAX_MESSAGE)}
    return _line({"jsonrpc": "2.0", "id": request_id, "error": error})


def notification_line(method: str, params: dict[str, Any]) -> bytes:
    """A notification line toolguard sends (a cancellation, after a call timed out)."""
    return _line({"jsonrpc": "2.0", "method": method, "params": params})


def _line(message: dict[str, Any]) -> bytes:
    # NOTE: ASCII only, so no byte of the line can be read as a line break but the last.
    return (json.dumps(message, ensure_ascii=True, separators=(",", ":")) + "\n").encode("ascii")
