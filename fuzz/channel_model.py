"""The relay target's model of `--shut-channel`: written from docs/mcp.md, not `channels.py`.

A session script may open with a line `!NAMES`: the channels shut for the session, comma
separated (none, one or several of the seven, or `all`). The model says, from a method alone,
whether the relay must refuse or drop it, what a progress notification keeps, which server
capabilities an `initialize` answer loses, what a client request forwarded to the server
loses (the client's capabilities for shut channels), and whether an `input_required` answer
asks for a shut channel. `mcp_relay.py` checks what each side got against it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

ALL = "all"
NAMES = ("resources", "prompts", "completions", "logging", "progress", "sampling", "elicitation")
CLIENT, SERVER, NOTICE = "client request", "server request", "server notification"
# What each channel carries, as docs/mcp.md's table says: (channel, kind, an exact method or a
# prefix ending in "/"). `progress` carries no method of its own: what a progress
# notification holds besides PROGRESS_KEPT.
_CARRIED = (
    ("resources", CLIENT, "resources/"),
    ("resources", NOTICE, "notifications/resources/"),
    ("prompts", CLIENT, "prompts/"),
    ("prompts", NOTICE, "notifications/prompts/"),
    ("completions", CLIENT, "completion/"),
    ("logging", CLIENT, "logging/"),
    ("logging", NOTICE, "notifications/message"),
    ("sampling", SERVER, "sampling/"),
    ("elicitation", SERVER, "elicitation/"),
    ("elicitation", NOTICE, "notifications/elicitation/"),
)
# What MCP defines besides the channels, which `all` leaves open.
_MCP_OWN = {
    CLIENT: ("initialize", "server/discover", "ping", "tools/list", "tools/call"),
    SERVER: ("ping", "roots/list"),
    NOTICE: (
        "notifications/cancelled",
        "notifications/progress",
        "notifications/tools/list_changed",
    ),
}
CAPABILITY = {name: name for name in ("resources", "prompts", "completions", "logging")}
CLIENT_CAPABILITY = {name: name for name in ("sampling", "elicitation")}
# Where each 2026-07-28 request states the client's capabilities (besides `initialize`'s).
CAPABILITIES_META = "io.modelcontextprotocol/clientCapabilities"
# Where capabilities name a channel besides their own members: 2025-11-25's task support.
TASK_REQUESTS = ("tasks", "requests")
PROGRESS_KEPT = ("progressToken", "progress", "total")


def _matches(method: str, pattern: str) -> bool:
    return method.startswith(pattern) if pattern.endswith("/") else method == pattern


def script(data: bytes) -> tuple[list[str] | None, bytes]:
    """The names a script's first line `!NAMES` gives (None: it has no such line), and the rest."""
    if not data.startswith(b"!"):
        return None, data
    first, _, rest = data[1:].partition(b"\n")
    return [word for word in first.decode("latin-1").split(",") if word], rest


@dataclass(frozen=True, slots=True)
class Shut:
    """The channels shut in one session; `undefined`: the methods MCP does not define too."""

    names: frozenset[str] = frozenset()
    undefined: bool = False

    @classmethod
    def of(cls, words: list[str]) -> Shut | None:
        """The set `--shut-channel` gives for each word; None if a word names no channel."""
        if not set(words) <= {*NAMES, ALL}:
            return None
        if ALL in words:
            return cls(frozenset(NAMES), undefined=True)
        return cls(frozenset(words))

    def refuses(self, kind: str, method: str) -> bool:
        """Whether a message of `kind` with `method` is refused (a request) or dropped."""
        carriers = [
            name
            for name, carried, pattern in _CARRIED
            if carried == kind and _matches(method, pattern)
        ]
        if carriers:
            return any(name in self.names for name in carriers)
        return self.undefined and not any(_matches(method, own) for own in _MCP_OWN[kind])

    def progress_kept(self, params: Any) -> Any:
        """A progress notification's params as the client may get them."""
        if "progress" not in self.names or not isinstance(params, dict):
            return params
        return {key: params[key] for key in PROGRESS_KEPT if key in params}

    def forwarded(self, request: dict[str, Any]) -> dict[str, Any]:
        """A client request as the server may get it: less the shut channels' capabilities.

        They leave `initialize`'s `capabilities`, and any request's `_meta` capabilities: the
        members themselves, and those of the capabilities' `tasks.requests`.
        """
        withheld = {CLIENT_CAPABILITY[name] for name in self.names if name in CLIENT_CAPABILITY}
        params = request.get("params")
        if not withheld or not isinstance(params, dict):
            return request
        stated = [("_meta", CAPABILITIES_META)]
        if request.get("method") == "initialize":
            stated.append(("capabilities",))
        for where in stated:
            for inner in ((), TASK_REQUESTS):
                params = _without(params, (*where, *inner), withheld)
        return {**request, "params": params}

    def asks(self, input_requests: Any) -> bool:
        """Whether an `inputRequests` map surely asks for a shut channel (a request it names)."""
        return isinstance(input_requests, dict) and any(
            isinstance(request, dict)
            and isinstance(request.get("method"), str)
            and self.refuses(SERVER, request["method"])
            for request in input_requests.values()
        )

    def may_ask(self, input_requests: Any) -> bool:
        """Whether the map may ask for a shut channel: one it cannot read may, while any is."""
        shuts_some = self.undefined or any(
            name in self.names for name, kind, _ in _CARRIED if kind == SERVER
        )
        if input_requests is None or not shuts_some:
            return False
        if not isinstance(input_requests, dict):
            return True
        return self.asks(input_requests) or not all(
            isinstance(request, dict) and isinstance(request.get("method"), str)
            for request in input_requests.values()
        )


def _without(value: Any, path: tuple[str, ...], withheld: set[str]) -> Any:
    """`value` with the object at `path` (if there is one) lacking the names `withheld`."""
    if not isinstance(value, dict):
        return value
    if not path:
        return {key: item for key, item in value.items() if key not in withheld}
    if path[0] not in value:
        return value
    return {**value, path[0]: _without(value[path[0]], path[1:], withheld)}
