"""The relay: each JSON-RPC line from the client or the server, read strictly, then passed on.

Responses are matched to the client's requests by id (`ids.py`); the server's own requests
keep their id space. A guarded call's answer becomes an envelope (`calls.py`); the tool
listing and the server's description are rewritten (`listing.py`); a method of a channel
the operator shut (`channels.py`) is refused or dropped, and the client's capability for it
withheld from the server; every other message passes as the exact line it came as. Nothing
unreadable is forwarded, nothing is repaired.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from toolguard import report
from toolguard.audit import Source
from toolguard.errors import Rejection
from toolguard.mcp import calls, jsonrpc, listing, members
from toolguard.mcp.calls import Call, Guard, Refused
from toolguard.mcp.channels import Channels, Withheld, channel_of
from toolguard.mcp.ids import MAX_IN_FLIGHT, InFlight, Pending
from toolguard.mcp.jsonrpc import (
    Message,
    classify,
    error_line,
    id_key,
    meant_as_message,
    result_line,
)
from toolguard.mcp.members import leading_members
from toolguard.mcp.operator import OperatorChannel, Recent
from toolguard.mcp.wire import Output
from toolguard.result import Outcome, internal, redacted, relayed, trace

Ending = Literal["client", "server", "signal"]
MAX_LINE_BYTES = 16 << 20  # `--max-line-bytes`'s default: one JSON-RPC line, either way
CALL_TIMEOUT = 300.0  # `--call-timeout`'s default: seconds a guarded call may go unanswered
_DESCRIBING = frozenset({"initialize", "server/discover"})
_INTERIM = ("resultType", "inputRequests", "requestState")
_TASKS = "tasks/"
_NOTES_SHOWN = 32  # notes about one tool listing; the rest are counted
_REASON_SHOWN = 512  # characters of a client's reason for a cancellation


@dataclass(frozen=True, slots=True)
class Options:
    """The operator's choices for one session."""

    call_timeout: float = CALL_TIMEOUT
    max_line_bytes: int = MAX_LINE_BYTES
    allow_unguarded: frozenset[str] = frozenset()
    pass_instructions: bool = False
    listed: Mapping[str, listing.Listed] = field(default_factory=dict)
    channels: Channels = field(default_factory=Channels)  # those shut (default: none)


class Relay:
    """One session's messages: what the client sends, what the server sends, what each gets."""

    def __init__(  # noqa: PLR0913 - the session's parts
        self,
        guards: Mapping[str, Guard],
        options: Options,
        *,
        server: Sequence[str],
        operator: OperatorChannel,
        client: Output,
        to_server: Output,
    ) -> None:
        """`server` is the server's command (for the operator); the outputs are the two sides."""
        self._guards = dict(guards)
        self._options = options
        self._server_argv = tuple(server)
        self._operator = operator
        self._client = client
        self._server = to_server
        self._limits = jsonrpc.message_limits(options.max_line_bytes)
        self._flight = InFlight()
        self._reported = Recent()
        self.done = False  # the session is over: the relay's loop ends
        self.ended_by: Ending | None = None

    def end(self, by: Ending) -> None:
        """Record who ended the session (the first to), and end it if the server or a signal.

        A signal handler may call it, between any two steps of the relay's thread.
        """
        if self.ended_by is None:
            self.ended_by = by
        if by != "client":
            self.done = True

    # -- the client's side ------------------------------------------------------------------

    def from_client(self, line: bytes, over_long: bool) -> None:
        """One line from the client."""
        try:
            value = self._parse(line, over_long)
        except Rejection as failure:
            self._unreadable_from_client(line, failure)
            return
        message = classify(value)
        if message.kind == "request":
            self._client_request(message, line)
        elif message.kind == "notification":
            if _guarded_method(message.method or ""):
                # NOTE: no id, so no answer: it would reach the server unchecked, or as a task.
                why = f"dropped a client {message.method} without an id: it is only a request"
                self._notice("refused", why)
                return
            self._server.write(line)
            if message.method == "notifications/cancelled":
                self._client_cancelled(message)
        elif message.kind == "response":
            if self._flight.server_answered(message.key):
                self._server.write(line)
            else:
                self._notice("unknown_id", "dropped a client response that answers no request")
        elif _looks_like_response(value):
            self._notice("invalid_message", f"dropped a client response: {message.why}")
        else:
            why = f"Invalid Request: {message.why}"
            refused = self._refusal_id(message.key, value)
            self._client.write(error_line(refused, jsonrpc.INVALID_REQUEST, why))

    def _client_cancelled(self, message: Message) -> None:
        """The client gave up on a request: a guarded call is recorded, and answered no more."""
        key = _cancelled(message)
        pending = self._flight.take(key) if key is not None else None
        if pending is None:
            return  # answered already, or never asked
        assert key is not None
        if pending.call is None:
            self._flight.abandon(key, f"a {pending.method} request the client cancelled")
            return
        call = pending.call
        self._flight.abandon(key, f"{call.describe()}, which the client cancelled")
        reason = message.params.get("reason")
        said = f": {reason[:_REASON_SHOWN]}" if isinstance(reason, str) and reason else ""
        why = f"the client cancelled the call{said}; nothing was sent to it"
        self._settle(call, calls.lost(call, "cancelled", why), None)

    def _client_request(self, message: Message, line: bytes) -> None:
        key, method, request_id = message.key, message.method or "", message.body["id"]
        assert key is not None
        if not self._flight.claim(key, method):
            if self._flight.abandoned(key):
                # NOTE: the client awaits no other answer with this id: the refusal is this
                # request's. The first one's late answer is still dropped when it comes.
                why = (
                    "Invalid Request: this id was used by a request given up on (cancelled, "
                    "or timed out) that may still be answered: an id is used once in a session"
                )
                self._client.write(error_line(request_id, jsonrpc.INVALID_REQUEST, why))
            elif self._flight.holds(key):  # its id would be ambiguous: the first one's
                why = "Invalid Request: a request with this id is in flight"
                self._client.write(error_line(None, jsonrpc.INVALID_REQUEST, why))
            else:
                why = f"toolguard: too many requests in flight ({MAX_IN_FLIGHT})"
                self._client.write(error_line(request_id, jsonrpc.INTERNAL_ERROR, why))
            return
        try:
            pending = self._admit(message, method, request_id)
        except Refused as refusal:
            self._flight.settle(key, None)
            if refusal.once:
                self._notice("shut_channel", refusal.once, once=True)
            else:
                self._notice("refused", refusal.message)
            self._client.write(error_line(request_id, refusal.code, refusal.message))
            return
        except Exception:  # noqa: BLE001 - a bug answers this request, never strands its id
            self._flight.settle(key, None)
            self._notice("internal_error", f"internal error admitting a request: {trace()}")
            self._client.write(_internal_error(request_id))
            return
        self._flight.settle(key, pending)
        self._server.write(self._to_server(message, line))

    def _to_server(self, message: Message, line: bytes) -> bytes:
        """A client request's line as the server gets it: as it came, but for what is withheld.

        The client's capabilities for a shut channel (sampling, elicitation, and running them as
        tasks) are withheld from `initialize` and from 2026-07-28's per-request `_meta`: only
        those objects are rewritten.
        """
        channels = self._options.channels
        if not channels.shut:
            return line
        for path in _client_capabilities(message.method):
            withheld = channels.client_withheld(_at(message.body, path))
            for inner, names in withheld.items():
                line = members.without(line, (*path, *inner), names)
            if withheld:
                where = "initialize" if path[1] == "capabilities" else "requests' _meta"
                why = f"withheld the client's {_dotted(withheld)} capability from its {where}"
                self._notice("shut_channel", f"{why}: the channel is shut", once=True)
        return line

    def _admit(self, message: Message, method: str, request_id: str | int) -> Pending:
        if method.startswith(_TASKS):
            why = f"toolguard: {method} is not offered: tasks are not relayed"
            raise Refused(jsonrpc.METHOD_NOT_FOUND, why)
        if not self._options.channels.client_request(method):
            why = _shut(method)
            once = f"refused the client's {method[:64]}: {why}"
            raise Refused(jsonrpc.METHOD_NOT_FOUND, f"toolguard: {why}", once=once)
        modern = calls.modern(message.params)
        if method != "tools/call":
            return Pending(method, modern=modern)
        name = message.params.get("name")
        if not isinstance(name, str):
            raise Refused(jsonrpc.INVALID_PARAMS, "Invalid params: the tool name must be a string")
        guard = self._guards.get(name)
        if guard is None:
            if name in self._options.allow_unguarded:
                return Pending(method, modern=modern)
            why = f"Unknown tool: {name[:128]} (toolguard guards no such tool)"
            raise Refused(jsonrpc.INVALID_PARAMS, why)
        timeout = self._options.call_timeout
        return Pending(method, calls.admit(guard, name, request_id, message.params, timeout))

    def _unreadable_from_client(self, line: bytes, failure: Rejection) -> None:
        lead = leading_members(line, self._limits) if line.lstrip().startswith(b"{") else {}
        key = id_key(lead.get("id"))
        if "method" not in lead and ("result" in lead or "error" in lead):
            if self._flight.server_answered(key):  # the server would wait forever: tell it
                why = "toolguard: the client's response was unreadable"
                self._reply_to_server(error_line(lead["id"], jsonrpc.INTERNAL_ERROR, why))
            self._notice("unreadable", f"dropped an unreadable client response ({failure.reason})")
            return
        strict = failure.reason == "duplicate_member" or failure.layer == "limits"
        code = jsonrpc.INVALID_REQUEST if strict else jsonrpc.PARSE_ERROR
        word = "Invalid Request" if strict else "Parse error"
        self._notice("unreadable", f"refused an unreadable client line: {failure.message}")
        refused = self._refusal_id(key, lead)
        self._client.write(error_line(refused, code, f"{word}: {failure.reason}"))

    def _refusal_id(self, key: jsonrpc.IdKey | None, line: Any) -> Any:
        """The id to refuse a client line with: its own, `line["id"]` (the id `key` is of).

        NOTE: not the id of a request in flight (or given up on): the refusal would read as
        that request's answer, and the client would take the real one for a second answer.
        """
        return line["id"] if key is not None and not self._flight.holds(key) else None

    # -- the server's side ------------------------------------------------------------------

    def from_server(self, line: bytes, over_long: bool) -> None:
        """One line from the server; after a toolguard bug, the request it answers is failed."""
        try:
            self._from_server(line, over_long)
        except Exception:  # noqa: BLE001 - the client's request still gets an answer
            self._notice("internal_error", f"internal error on a server line: {trace()}")
            self._fail_answered(line)

    def _fail_answered(self, line: bytes) -> None:
        """After a bug: the client request this line answers (by its id) fails, if in flight.

        NOTE: whoever takes the request answers it: one answered before the bug is not found.
        """
        lead = leading_members(line, self._limits) if line.lstrip().startswith(b"{") else {}
        key = id_key(lead.get("id"))
        if "method" in lead or key is None or (pending := self._flight.take(key)) is None:
            return
        if pending.call is None:
            self._client.write(_internal_error(lead["id"]))
            return
        call = pending.call
        why = f"internal error: {trace()}"
        self._deliver(call, internal(call.guard.contract, call.request, why, raw=line), line)

    def _from_server(self, line: bytes, over_long: bool) -> None:
        try:
            value = self._parse(line, over_long)
        except Rejection as failure:
            self._unreadable_from_server(line, failure)
            return
        message = classify(value)
        if message.kind == "request":
            self._server_request(message, line)
        elif message.kind == "notification":
            self._server_notification(message, line)
        elif message.kind == "response":
            self._server_response(message, line)
        elif isinstance(value, list) and meant_as_message(line):
            self._fail_in_flight("a batch from the server (not read)", line)
        elif (pending := self._flight.take(message.key) if message.key else None) is None:
            why = f"dropped a server line that is not JSON-RPC: {message.why}"
            self._no_request(message.key, "not_jsonrpc", why, f" (not JSON-RPC: {message.why})")
        elif pending.call is not None:
            self._deliver(pending.call, calls.answered(pending.call, message, line), line)
        else:
            why = "toolguard: the server's response was malformed"
            self._client.write(error_line(value["id"], jsonrpc.INTERNAL_ERROR, why))

    def _server_request(self, message: Message, line: bytes) -> None:
        """A request to the client: passed, or refused to the server if its channel is shut."""
        method, request_id = message.method or "", message.body["id"]
        if not self._options.channels.server_request(method):
            why = _shut(method)
            self._notice("shut_channel", f"refused the server's {method[:64]}: {why}", once=True)
            self._reply_to_server(error_line(request_id, jsonrpc.METHOD_NOT_FOUND, why))
        elif self._flight.server_request(message.key):  # type: ignore[arg-type]
            self._client.write(line)
        else:
            why = "toolguard: too many server requests in flight"
            self._reply_to_server(error_line(request_id, jsonrpc.INTERNAL_ERROR, why))

    def _server_notification(self, message: Message, line: bytes) -> None:
        """A notification to the client: passed, or dropped if its channel is shut.

        A progress notification passes without its `message` while `progress` is shut.
        """
        method, channels = message.method or "", self._options.channels
        if not channels.notification(method):
            why = f"dropped the server's {method[:64]}: {_shut(method)}"
            self._notice("shut_channel", why, once=True)
            return
        if method == "notifications/cancelled":
            self._flight.server_answered(_cancelled(message))
        elif method == "notifications/progress":
            kept = channels.progress(message.params)
            if kept is not None:
                why = "withheld what progress notifications carry besides their numbers"
                self._notice("shut_channel", why, once=True)
                line = jsonrpc.notification_line(method, kept)
        self._client.write(line)

    def _server_response(self, message: Message, line: bytes) -> None:
        key: jsonrpc.IdKey = message.key  # type: ignore[assignment]
        pending = self._flight.take(key)
        if pending is None:
            self._no_request(key, "unknown_id", "dropped a server response that answers no request")
            return
        if pending.call is not None:
            self._answer(pending.call, message, line)
            return
        try:
            reply = self._reply(pending, message.body, line)
        except Exception:  # noqa: BLE001 - a bug answers the request, never strands it
            self._notice("internal_error", f"internal error answering {pending.method}: {trace()}")
            reply = _internal_error(message.body["id"])
        self._client.write(reply)

    def _reply(self, pending: Pending, body: dict[str, Any], line: bytes) -> bytes:
        """The line answering the client's `pending` request (no guarded call), the server's."""
        method, request_id, answer = pending.method, body["id"], body.get("result")
        if answer is None:
            return line  # an error response to a request no contract guards
        if why := self._shut_input(answer):
            # NOTE: any request may be answered `input_required` (2026-07-28), not only a call.
            why = f"failed the client's {method[:64]}, answered input_required: {why}"
            self._notice("shut_channel", why)
            refusal = "toolguard: the server asked the client for input on a shut channel"
            return error_line(request_id, jsonrpc.INTERNAL_ERROR, refusal)
        if method == "tools/list":
            guarded, unguarded = self._options.listed, self._options.allow_unguarded
            tools, notes = listing.rewrite_tools(answer, guarded, unguarded)
            for note in notes[:_NOTES_SHOWN]:
                self._notice("tool_listing", note, once=True)
            if len(notes) > _NOTES_SHOWN:
                more = f"{len(notes) - _NOTES_SHOWN} more tools withheld or removed from a listing"
                self._notice("tool_listing", more)
            return result_line(request_id, tools)
        if method == "ping":
            return result_line(request_id, _pong(answer, modern=pending.modern))
        if method in _DESCRIBING:
            passing, channels = self._options.pass_instructions, self._options.channels
            described = listing.server_description(
                answer, pass_instructions=passing, channels=channels
            )
            if described == answer:
                return line
            why = "withheld instructions or task support"
            if channels.shut:
                why = "withheld instructions, task support or the capabilities of shut channels"
            self._notice("server_description", why, once=True)
            return result_line(request_id, described)
        return line

    def _answer(self, call: Call, message: Message, line: bytes) -> None:
        answer = message.body.get("result")
        if call.modern and isinstance(answer, dict) and calls.interim(answer):
            # 2026-07-28: an interim answer; the client retries with a new id, guarded again.
            # (To a call of an earlier revision it is an unknown resultType: `judge` fails it.)
            why = self._shut_input(answer)
            if why:
                self._deliver(call, calls.shut(call, why), line)
                return
            interim = {key: answer[key] for key in _INTERIM if key in answer}
            self._notice("input_required", f"{call.tool}: the server asks the client for input")
            self._client.write(result_line(call.jsonrpc_id, interim))
            return
        self._deliver(call, calls.answered(call, message, line), line)

    def _shut_input(self, answer: dict[str, Any]) -> str:
        """How an `input_required` answer asks the client for a shut channel, or "" if not."""
        if not calls.interim(answer):
            return ""
        return self._options.channels.input_requests(answer.get("inputRequests"))

    def _unreadable_from_server(self, line: bytes, failure: Rejection) -> None:
        if not meant_as_message(line):
            self._notice("not_jsonrpc", f"dropped a line that is not JSON-RPC ({failure.reason})")
            return
        lead = leading_members(line, self._limits)
        key = id_key(lead.get("id"))
        if "method" in lead and "result" not in lead and "error" not in lead:
            if key is not None:
                why = f"toolguard: unreadable request ({failure.reason})"
                self._reply_to_server(error_line(lead["id"], jsonrpc.INVALID_REQUEST, why))
            self._notice("unreadable", f"dropped an unreadable server message: {failure.message}")
        elif key is None:
            self._fail_in_flight(f"an unreadable server line ({failure.reason})", line)
        elif (pending := self._flight.take(key)) is None:
            why = f"dropped an unreadable line for no request ({failure.reason})"
            self._no_request(key, "unknown_id", why, f" (unreadable: {failure.reason})")
        elif pending.call is not None:
            self._deliver(pending.call, calls.answered(pending.call, failure, line), line)
        else:
            self._notice(
                "unreadable", f"the answer to {pending.method} was unreadable: {failure.message}"
            )
            why = "toolguard: the server's response was unreadable"
            self._client.write(error_line(lead["id"], jsonrpc.INTERNAL_ERROR, why))

    def _no_request(
        self, key: jsonrpc.IdKey | None, event: str, dropped: str, shape: str = ""
    ) -> None:
        """A server line whose id no request awaits: a late answer to one given up on, or not.

        Whatever its `shape` (a response; an unreadable or malformed line), it frees that id.
        """
        late = self._flight.late(key) if key is not None else None
        if late is not None:
            self._notice("late_answer", f"dropped the server's late answer to {late}{shape}")
        else:
            self._notice(event, dropped)

    def _fail_in_flight(self, what: str, line: bytes) -> None:
        """A line that may have answered any request in flight: each fails, guarded or not.

        A guarded call gets a failure envelope (retryable), any other request `-32603`: the
        client would otherwise wait for an answer that may never come. The server may still
        answer them (the line may have answered none): their ids stay taken until it does, as a
        cancelled call's.
        """
        why = f"{what} may have been the answer"
        lost = self._flight.take_all(given_up=f"failed as {what} may have been its answer")
        self._notice("unreadable", f"{why}: failing {len(lost)} request(s) in flight")
        self._fail_each(lost, "unreadable_answer", why, line)

    def _fail_each(
        self, lost: list[tuple[jsonrpc.IdKey, Pending]], reason: str, why: str, line: bytes | None
    ) -> None:
        """Answer each of `lost` once, guarded or not: no client waits on it forever.

        A guarded call gets a retryable failure envelope, any other request (a ping, a
        tools/list) `-32603`.
        """
        for key, pending in lost:
            if pending.call is None:
                self._client.write(error_line(key[1], jsonrpc.INTERNAL_ERROR, f"toolguard: {why}"))
            else:
                call = pending.call
                self._deliver(call, calls.lost(call, reason, why), line)

    def server_gone(self) -> None:
        """The server's output ended: no request in flight will be answered, guarded or not."""
        if self.done:
            return
        if self.ended_by is None:
            self.ended_by = "server"  # first: the client may close on reading the answers
        why = "the server's output ended before it answered"
        lost = self._flight.take_all(given_up="failed as the server's output ended")
        self._fail_each(lost, "server_exited", why, None)
        self.end("server")

    # -- guarded calls ----------------------------------------------------------------------

    def expire(self, now: float) -> float | None:
        """Fail each guarded call past its deadline at `now` (monotonic); the next deadline."""
        late, upcoming = self._flight.take_expired(now)
        for call in late:
            why = f"no answer within --call-timeout={self._options.call_timeout} s"
            self._deliver(call, calls.lost(call, "timeout", why), None)
            cancel = {"requestId": call.jsonrpc_id, "reason": "toolguard: the call timed out"}
            self._reply_to_server(jsonrpc.notification_line("notifications/cancelled", cancel))
        return upcoming

    def _deliver(self, call: Call, outcome: Outcome, line: bytes | None) -> None:
        """Record the outcome, then answer the client with its envelope as the tool's result."""
        self._settle(call, outcome, line, answer=True)

    def _settle(
        self, call: Call, outcome: Outcome, line: bytes | None, *, answer: bool = False
    ) -> None:
        """Record the outcome, answer the client if `answer`, and tell the operator."""
        contract, request = call.guard.contract, call.request
        outcome = relayed(outcome, line, self._server_argv, call.started)
        # NOTE: as in `serve` and `check`: secret context values never reach the operator.
        outcome = redacted(outcome, request, contract.audit.secret_context)
        warning = None
        try:
            if call.guard.trail is not None:
                source = Source("mcp", tool=call.tool, jsonrpc_id=call.jsonrpc_id)
                outcome, warning = call.guard.trail.seal(
                    outcome, contract, request, command="mcp", source=source
                )
        except Exception:  # noqa: BLE001 - the client still gets an envelope
            outcome = internal(contract, request, f"internal error: {trace()}")
        if answer:
            self._client.write(calls.answer_line(call, outcome.envelope))
        self._operator.render(outcome.diagnostics)
        if warning is not None:
            stream = self._operator.stream
            report.error(warning, outcome.diagnostics.exit_status, self._operator.mode, stream)

    # -- plumbing ---------------------------------------------------------------------------

    def _parse(self, line: bytes, over_long: bool) -> Any:
        return jsonrpc.read_line(line, over_long, self._limits)

    def _reply_to_server(self, line: bytes) -> None:
        """A line of toolguard's own to the server: dropped if the server is far behind.

        NOTE: the server is read while it does not read (it may be writing an answer), so
        what it provokes (a reply to each request it floods) must not pile up without end.
        """
        if not self._server.offer(line):
            why = "dropped replies to the server: it has not read the last MiB sent to it"
            self._notice("server_not_reading", why, once=True)

    def _notice(self, event: str, message: str, *, once: bool = False) -> None:
        if once and not self._reported.first(message):
            return
        self._operator.notice(event, message)


def _guarded_method(method: str) -> bool:
    """A request toolguard checks (tools/call) or refuses (tasks/*): never a notification."""
    return method == "tools/call" or method.startswith(_TASKS)


def _pong(answer: dict[str, Any], *, modern: bool) -> dict[str, Any]:
    """A ping's result as the client gets it: empty, as MCP defines it.

    Nothing of the server's passes (text in a ping result would reach the client unchecked),
    but 2026-07-28's `resultType`, if the server gave it as `complete` to a ping of that
    revision (`modern`): a client of an earlier one may reject any member in it.
    """
    complete = modern and answer.get("resultType") == "complete"
    return {"resultType": "complete"} if complete else {}


def _client_capabilities(method: str | None) -> tuple[tuple[str, ...], ...]:
    """Where a client request states the client's capabilities: `initialize`'s, and `_meta`'s."""
    meta = ("params", "_meta", calls.CAPABILITIES_KEY)
    return (("params", "capabilities"), meta) if method == "initialize" else (meta,)


def _at(value: Any, path: tuple[str, ...]) -> Any:
    """The value at `path` (member names) in `value`; None if there is none."""
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    return value


def _dotted(withheld: Withheld) -> str:
    """The members withheld, as the operator reads them: `sampling and tasks.requests.sampling`."""
    named = (".".join((*inner, name)) for inner, names in withheld.items() for name in names)
    return " and ".join(sorted(named))


def _shut(method: str) -> str:
    """Why a method is not relayed: its channel is shut, or MCP defines no such method."""
    name = channel_of(method)
    if name:
        return f"{method[:64]} is not relayed: the {name} channel is shut (--shut-channel {name})"
    why = "toolguard relays only the methods MCP defines (--shut-channel all)"
    return f"{method[:64]} is not relayed: {why}"


def _internal_error(request_id: str | int) -> bytes:
    return error_line(request_id, jsonrpc.INTERNAL_ERROR, "toolguard: internal error")


def _cancelled(message: Message) -> jsonrpc.IdKey | None:
    """The id a `notifications/cancelled` names."""
    return id_key(message.params.get("requestId"))


def _looks_like_response(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and "method" not in value
        and ("result" in value or "error" in value)
    )
