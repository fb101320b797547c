"""Requests in flight, by JSON-RPC id: the client's and the server's, in two id spaces.

A response is matched to the request it answers, and taken: whoever takes an entry (a
response, a timeout, the server's exit, a cancellation) is the only one who answers it, so no
call is answered twice. A response nobody waits for (an unknown id, a late answer to a
cancelled or timed-out call) finds nothing and is dropped. Only the relay's thread uses it.

A request given up on (the client cancelled it, its call timed out, or an unreadable line
that may have been its answer failed it) may still be answered by the server. Its id stays
abandoned, not free: a client that used it again (MCP forbids that within a session) would
otherwise receive the first request's late answer as the second's. The abandoned ids are
bounded too: past `MAX_IN_FLIGHT`, the oldest is forgotten.
"""

from __future__ import annotations

from dataclasses import dataclass

from toolguard.mcp.calls import Call
from toolguard.mcp.jsonrpc import IdKey

MAX_IN_FLIGHT = 4096  # requests each side may have in flight: memory stays bounded
_METHOD_HELD = 256  # characters of a request's method held while it is in flight


@dataclass(frozen=True, slots=True)
class Pending:
    """A client request in flight: its method, and the guarded call it is, if it is one.

    `modern`: the request is of the 2026-07-28 revision (its answer may carry `resultType`).

    NOTE: a method longer than `_METHOD_HELD` is held clipped (and marked, so it equals no
    method toolguard acts on): 4,096 requests in flight, or abandoned, hold little whatever
    the client names them.
    """

    method: str
    call: Call | None = None
    modern: bool = False

    def __post_init__(self) -> None:
        if len(self.method) > _METHOD_HELD:
            object.__setattr__(self, "method", f"{self.method[:_METHOD_HELD]}...")


class InFlight:
    """The client's requests to the server, and the server's to the client, kept apart."""

    def __init__(self) -> None:
        self._client: dict[IdKey, Pending] = {}
        self._server: set[IdKey] = set()
        self._abandoned: dict[IdKey, str] = {}  # id -> what was given up on, oldest first

    def claim(self, key: IdKey, method: str) -> bool:
        """Hold `key` for a client request being admitted; False if it is taken, or too many."""
        if self.holds(key) or len(self._client) >= MAX_IN_FLIGHT:
            return False
        self._client[key] = Pending(method)
        return True

    def holds(self, key: IdKey) -> bool:
        """Whether a client request with this id is in flight, or was given up on."""
        return key in self._client or key in self._abandoned

    def abandoned(self, key: IdKey) -> bool:
        """Whether `key` is held only for a late answer: no request with it awaits one.

        NOTE: an id is abandoned once taken (`abandon`'s contract) and claimed only while it
        is not abandoned, so an abandoned id is never in flight as well.
        """
        return key in self._abandoned

    def abandon(self, key: IdKey, what: str) -> None:
        """The request `key` (taken) was given up on; `what` names it when a late answer comes."""
        if len(self._abandoned) >= MAX_IN_FLIGHT:
            del self._abandoned[next(iter(self._abandoned))]
        self._abandoned[key] = what

    def late(self, key: IdKey) -> str | None:
        """What the answer `key` came too late for (the id is free again); None if nothing."""
        return self._abandoned.pop(key, None)

    def settle(self, key: IdKey, pending: Pending | None) -> None:
        """The admitted request (forwarded next), or None: refused, the id is free again."""
        if pending is None:
            self._client.pop(key, None)
            return
        self._client[key] = pending

    def take(self, key: IdKey) -> Pending | None:
        """The request `key` answers, no longer in flight; None if there is none."""
        return self._client.pop(key, None)

    def take_all(self, given_up: str) -> list[tuple[IdKey, Pending]]:
        """Every client request in flight, guarded or not, no longer in flight; `given_up` is why.

        The server may still answer them: each id is abandoned, as a cancelled request's.
        """
        taken = list(self._client.items())
        self._client.clear()
        for key, pending in taken:
            call = pending.call
            what = call.describe() if call is not None else f"a {pending.method} request"
            self.abandon(key, f"{what}, {given_up}")
        return taken

    def take_expired(self, now: float) -> tuple[list[Call], float | None]:
        """The guarded calls past their deadline at `now` (taken, abandoned), and the next one."""
        calls = {key: p.call for key, p in self._client.items() if p.call is not None}
        late = [key for key, call in calls.items() if call.deadline <= now]
        for key in late:
            del self._client[key]
            self.abandon(key, f"{calls[key].describe()}, which timed out")
        upcoming = [call.deadline for call in calls.values() if call.deadline > now]
        return [calls[key] for key in late], min(upcoming, default=None)

    def server_request(self, key: IdKey) -> bool:
        """The server sent a request: await the client's answer (False: too many in flight)."""
        if len(self._server) >= MAX_IN_FLIGHT and key not in self._server:
            return False
        self._server.add(key)
        return True

    def server_answered(self, key: IdKey | None) -> bool:
        """The client answered (or the server cancelled) a server request; False if unknown."""
        known = key in self._server
        self._server.discard(key)
        return known
