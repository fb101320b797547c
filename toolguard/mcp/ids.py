"""Requests in flight, by JSON-RPC id: the client's and the server's, in two id spaces.

A response is matched to the request it answers, and taken: whoever takes an entry (a
response, a timeout, the server's exit, a cancellation) is the only one who answers it, so no
call is answered twice. A response nobody waits for (an unknown id, a late answer to a
cancelled or timed-out call) finds nothing and is dropped.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass

from toolguard.mcp.calls import Call
from toolguard.mcp.jsonrpc import IdKey

# NOTE: the watchdog looks at least this often instead of being woken by each new call: a
# wake-up per call (a thread switch while the call is forwarded) costs more than the look.
WATCH_INTERVAL = 0.25
MAX_IN_FLIGHT = 4096  # requests each side may have in flight: memory stays bounded


@dataclass(frozen=True, slots=True)
class Pending:
    """A client request in flight: its method, and the guarded call it is, if it is one."""

    method: str
    call: Call | None = None


class InFlight:
    """The client's requests to the server, and the server's to the client, kept apart."""

    def __init__(self) -> None:
        self._changed = threading.Condition()
        self._client: dict[IdKey, Pending] = {}
        self._server: set[IdKey] = set()
        self._closed = False

    def claim(self, key: IdKey, method: str) -> bool:
        """Hold `key` for a client request being admitted; False if it (or too many) in flight."""
        with self._changed:
            if key in self._client or len(self._client) >= MAX_IN_FLIGHT:
                return False
            self._client[key] = Pending(method)
            return True

    def settle(self, key: IdKey, pending: Pending | None) -> None:
        """The admitted request (forwarded next), or None: refused, the id is free again."""
        with self._changed:
            if pending is None:
                self._client.pop(key, None)
                return
            self._client[key] = pending

    def take(self, key: IdKey) -> Pending | None:
        """The request `key` answers, no longer in flight; None if there is none."""
        with self._changed:
            return self._client.pop(key, None)

    def take_calls(self) -> list[Call]:
        """Every guarded call in flight, no longer in flight (no answer will come)."""
        with self._changed:
            keys = [key for key, pending in self._client.items() if pending.call is not None]
            return [call for key in keys if (call := self._client.pop(key).call) is not None]

    def take_expired(self) -> list[Call]:
        """Wait until a guarded call passes its deadline (or `close`); take those that have.

        A deadline is seen within `WATCH_INTERVAL` of passing.
        """
        with self._changed:
            while not self._closed:
                now = time.monotonic()
                calls = {key: p.call for key, p in self._client.items() if p.call is not None}
                if expired := [key for key, call in calls.items() if call.deadline <= now]:
                    return [call for key in expired if (call := self._client.pop(key).call)]
                deadlines = [call.deadline - now for call in calls.values()]
                self._changed.wait(min([WATCH_INTERVAL, *deadlines]))
            return []

    def close(self) -> None:
        """Wake `take_expired` for good: the session is over."""
        with self._changed:
            self._closed = True
            self._changed.notify_all()

    def server_request(self, key: IdKey) -> bool:
        """The server sent a request: await the client's answer (False: too many in flight)."""
        with self._changed:
            if len(self._server) >= MAX_IN_FLIGHT and key not in self._server:
                return False
            self._server.add(key)
            return True

    def server_answered(self, key: IdKey | None) -> bool:
        """The client answered (or the server cancelled) a server request; False if unknown."""
        with self._changed:
            known = key in self._server
            self._server.discard(key)
            return known
