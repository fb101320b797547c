"""A guarded `tools/call`: admitted or refused, then its answer judged by the contract.

Admission refuses what would bypass the check (task augmentation: the result would come back
later through `tasks/*`) and builds the request: a fresh request id, and the context the
contract's `[mcp.context]` points at in the call's `arguments`. Judging turns the server's
answer into an `Outcome` through the pipeline: the payload's exact bytes as they stand in the
line (or the one text block's), upstream errors through the contract's error documents. The
client then receives the envelope, and only the envelope, as the tool's result.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from json.encoder import encode_basestring_ascii
from typing import TYPE_CHECKING, Any

from toolguard import envelope, result
from toolguard.adapters import reading_text_blocks
from toolguard.errors import ContractError, Rejection, UpstreamError, UsageError
from toolguard.frozen import replace
from toolguard.mcp.jsonrpc import INVALID_PARAMS, METHOD_NOT_FOUND, Message
from toolguard.mcp.listing import TASKS_EXTENSION
from toolguard.mcp.members import span
from toolguard.pipeline import check_bytes, check_failure_report, require_context
from toolguard.pointer import MISSING, lookup
from toolguard.request import make_request

if TYPE_CHECKING:
    from toolguard.audit.trail import AuditTrail
    from toolguard.contract import Contract
    from toolguard.request import Request
    from toolguard.result import Outcome

_quoted = encode_basestring_ascii  # a JSON string, ASCII: `json.dumps` of a str
VERSION_KEY = "io.modelcontextprotocol/protocolVersion"  # set on every 2026-07-28 request
CAPABILITIES_KEY = "io.modelcontextprotocol/clientCapabilities"
_SHOWN = 512
_ID_SHOWN = 64  # characters of a JSON-RPC id in a notice


@dataclass(frozen=True, slots=True)
class Guard:
    """One guarded tool: its contract, and where its audit records go (None: nowhere)."""

    contract: Contract
    trail: AuditTrail | None


@dataclass(frozen=True, slots=True)
class Call:
    """A guarded call in flight."""

    guard: Guard
    tool: str  # its name on the server
    jsonrpc_id: str | int
    request: Request
    modern: bool  # a 2026-07-28 request: results carry `resultType`
    started: float  # perf_counter when it was forwarded
    deadline: float  # monotonic

    def describe(self) -> str:
        """The call, for the operator: its tool, JSON-RPC id and the request id it records."""
        shown = repr(self.jsonrpc_id)
        shown = shown if len(shown) <= _ID_SHOWN else f"{shown[:_ID_SHOWN]}..."
        return f"the {self.tool} call {shown} (request {self.request.request_id})"


def reading(contract: Contract) -> Contract:
    """The contract as `mcp` reads its payload: a text payload is a whole block.

    `ContractError` if its reader cannot read what its `[mcp] payload` names.
    """
    if contract.mcp.payload == "structured" and contract.adapter_kind != "json":
        raise ContractError(
            'a [text] contract reads text: set [mcp] payload = "text"',
            source=str(contract.path),
        )
    if contract.mcp.payload != "text":
        return contract
    return replace(contract, adapter=reading_text_blocks(contract.adapter))


class Refused(Exception):
    """A call answered by toolguard with a JSON-RPC error; it never reaches the server.

    `once`: what the operator is told, once per text, in place of `message` each time (a
    method of a shut channel, which a client may send again and again).
    """

    def __init__(self, code: int, message: str, *, once: str = "") -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.once = once


def admit(
    guard: Guard, tool: str, jsonrpc_id: str | int, params: dict[str, Any], timeout: float
) -> Call:
    """The call to forward, or `Refused`."""
    meta = params.get("_meta")
    meta = meta if isinstance(meta, dict) else {}
    capabilities = meta.get(CAPABILITIES_KEY)
    extensions = capabilities.get("extensions") if isinstance(capabilities, dict) else None
    if "task" in params or (isinstance(extensions, dict) and TASKS_EXTENSION in extensions):
        raise Refused(
            METHOD_NOT_FOUND,
            f"toolguard: {tool} cannot be called as a task: its result would come back "
            "through tasks/*, where toolguard cannot check it",
        )
    arguments = params.get("arguments", {})
    if not isinstance(arguments, dict):
        raise Refused(INVALID_PARAMS, "toolguard: arguments must be an object")
    contract = guard.contract
    context = {}
    for key, pointer in contract.mcp.context.items():
        value = lookup(arguments, pointer)
        if value is not MISSING and _context_value(value):
            context[key] = value
    try:
        request = make_request(None, context, None)
        require_context(contract, request)
    except UsageError as exc:
        pointers = ", ".join(f"{k} = {p}" for k, p in contract.mcp.context.items())
        raise Refused(
            INVALID_PARAMS,
            f"toolguard: the arguments lack what {tool}'s contract checks ({exc}; {pointers})",
        ) from None
    return Call(
        guard,
        tool,
        jsonrpc_id,
        request,
        modern=modern(params),
        started=time.perf_counter(),
        deadline=time.monotonic() + timeout,
    )


def modern(params: dict[str, Any]) -> bool:
    """Whether a request is of the 2026-07-28 revision (or later): its `_meta` names one.

    NOTE: that revision has no handshake: each request carries the version, so this is the
    session's negotiated revision, as the request that is answered states it.
    """
    meta = params.get("_meta")
    return isinstance(meta, dict) and isinstance(meta.get(VERSION_KEY), str)


def _context_value(value: Any) -> bool:
    scalars = (str, int, float, bool, type(None))
    return isinstance(value, scalars) or (
        isinstance(value, list) and all(isinstance(item, scalars) for item in value)
    )


def interim(answer: dict[str, Any]) -> bool:
    """A 2026-07-28 `input_required` result: the server asks the client for input first."""
    return answer.get("resultType") == "input_required"


def answered(call: Call, read: Message | Rejection, line: bytes) -> Outcome:
    """The outcome of the server's `line`, the answer to `call`, as it was `read`.

    A response is judged; another message with the call's id is malformed; a line the strict
    parser refused (its id read before the failure) is unreadable. The one way from a line
    matched to a call to its outcome: the relay's, and `explain --recheck`'s (`replay.py`).
    """
    try:
        if isinstance(read, Rejection):
            contract, request = call.guard.contract, call.request
            return result.rejected(contract, request, read, line, time.perf_counter())
        if read.kind == "response":
            return judge(call, read.body, line)
        return _malformed(call, "malformed_response", read.why or "")
    except Exception:  # noqa: BLE001 - the client still gets an envelope
        why = f"internal error: {result.trace()}"
        return result.internal(call.guard.contract, call.request, why, raw=line)


def judge(call: Call, body: dict[str, Any], line: bytes) -> Outcome:
    """The outcome of the server's answer `body`, read from `line` (the server's exact line)."""
    contract, request = call.guard.contract, call.request
    if "error" in body:
        error = body["error"]
        where = span(line, ("error",))
        raw = line[where[0] : where[1]] if where else None
        why = (
            f"the server answered with JSON-RPC error {error['code']}: {error['message'][:_SHOWN]}"
        )
        return check_failure_report(contract, raw, request, _upstream("jsonrpc_error", why))
    answer = body["result"]
    result_type = answer.get("resultType", "complete")
    if result_type != "complete":
        return _malformed(call, "unknown_result_type", f"resultType {str(result_type)[:64]!r}")
    is_error = answer.get("isError", False)
    if not isinstance(is_error, bool):
        return _malformed(call, "malformed_result", "isError is not a boolean")
    payload, missing = _payload(contract.mcp.payload, answer, line)
    if is_error:
        why = f"the tool reported an error: {_texts(answer)[:_SHOWN]}"
        return check_failure_report(contract, payload, request, _upstream("tool_error", why))
    if payload is None:
        return _malformed(call, "no_payload", missing)
    return check_bytes(contract, payload, request)


def _payload(kind: str, answer: dict[str, Any], line: bytes) -> tuple[bytes | None, str]:
    """The payload's bytes, or None and why there is none."""
    if kind == "text":
        blocks = answer.get("content")
        if (
            isinstance(blocks, list)
            and len(blocks) == 1
            and isinstance(blocks[0], dict)
            and blocks[0].get("type") == "text"
            and isinstance(blocks[0].get("text"), str)
        ):
            return blocks[0]["text"].encode("utf-8"), ""
        return None, "the result's content is not exactly one text block"
    where = span(line, ("result", "structuredContent")) if "structuredContent" in answer else None
    if where is None:
        return None, "the result has no structuredContent"
    return line[where[0] : where[1]], ""


def _texts(answer: dict[str, Any]) -> str:
    """The text blocks of a result, for the operator."""
    blocks = answer.get("content")
    blocks = blocks if isinstance(blocks, list) else []
    texts = [
        block["text"]
        for block in blocks
        if isinstance(block, dict) and isinstance(block.get("text"), str)
    ]
    return " | ".join(texts) or "(no text)"


def _upstream(reason: str, why: str) -> UpstreamError:
    return UpstreamError(reason, why, code="UPSTREAM_UNAVAILABLE", retryable=False)


def _malformed(call: Call, reason: str, why: str) -> Outcome:
    failure = UpstreamError(reason, why, code="INVALID_RESPONSE", retryable=False)
    return result.rejected(call.guard.contract, call.request, failure, None, time.perf_counter())


def shut(call: Call, why: str) -> Outcome:
    """An answer that asks the client for a channel the operator shut (`channels.py`)."""
    return _malformed(call, "shut_channel", why)


def lost(call: Call, reason: str, why: str) -> Outcome:
    """No answer will come: a timeout, the server gone, an unreadable line of unknown id.

    Also a call the client cancelled: recorded, never sent.
    """
    failure = UpstreamError(reason, why, code="UPSTREAM_UNAVAILABLE", retryable=True)
    return result.rejected(call.guard.contract, call.request, failure, None, None)


def answer_line(call: Call, answer: dict[str, Any]) -> bytes:
    """The JSON-RPC line answering `call`: `answer` as a text block and as structured content.

    NOTE: the envelope is encoded once (`envelope.dumps`, ASCII) and written twice: as the
    text block's string and, as it is, as `structuredContent`: the same bytes either way (the
    tests hold the line to the generic JSON encoding, byte for byte).
    """
    text = envelope.dumps(answer)[:-1]
    tail = ',"resultType":"complete"' if call.modern else ""
    failure = "false" if answer["outcome"] == "success" else "true"
    rid = call.jsonrpc_id
    # NOTE: what `json.dumps` does with a string (ASCII) or an int, without its dispatch.
    quoted = _quoted(rid) if isinstance(rid, str) else int.__repr__(rid)
    line = (
        f'{{"jsonrpc":"2.0","id":{quoted},"result":'
        f'{{"content":[{{"type":"text","text":{_quoted(text)}}}],'
        f'"structuredContent":{text},"isError":{failure}{tail}}}}}\n'
    )
    return line.encode("ascii")
