"""Envelope values and their serialisation: what the agent (or serve's caller) reads, nothing else.

Exactly the article's shape: success `{tool, request_id, outcome, data}` or failure
`{tool, request_id, outcome, error: {code, retryable}}`. A failure carries nothing from the
response. `bad_request` is not an envelope the agent sees: it is `serve`'s answer to a request
line it cannot read, part of serve's protocol. What each line may hold is described by the
contract's envelope schema (`contract/envelope_schema.py`).
"""

from __future__ import annotations

from toolguard.json_codec import encoder

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from toolguard.errors import ErrorCode


def success(tool: str, request_id: str, data: dict[str, Any]) -> dict[str, Any]:
    """A success envelope around an already-projected object."""
    return {"tool": tool, "request_id": request_id, "outcome": "success", "data": data}


def failure(tool: str, request_id: str, code: ErrorCode, retryable: bool) -> dict[str, Any]:
    """A failure envelope: a finite code and a retry hint, nothing else."""
    return {
        "tool": tool,
        "request_id": request_id,
        "outcome": "failure",
        "error": {"code": code, "retryable": retryable},
    }


def bad_request(request_id: str | None) -> dict[str, Any]:
    """`serve`'s answer to a line it cannot read: a fixed shape that quotes nothing of it."""
    return {"outcome": "error", "request_id": request_id, "error": {"code": "BAD_REQUEST"}}


# NOTE: one encoder for every envelope: `json.dumps` with options builds a new one each call.
_ENCODE = encoder()


def dumps(envelope: dict[str, Any]) -> str:
    """One envelope as the exact line written on stdout (what the audit record's digest covers)."""
    return _ENCODE(envelope) + "\n"
