"""What passes besides guarded tool results: every channel, but those the operator shut.

A contract guards `tools/call` results, yet the rest of MCP carries the server's text to the
client too: resources, prompts, completions, log messages, the `message` of a progress
notification, sampling requests (straight to a model) and elicitation requests. toolguard
does not check them yet, so they pass as they came unless the operator shuts one
(`--shut-channel NAME`): a shut channel's client requests are refused, its server requests
answered `-32601` (as a client without the capability answers), its notifications dropped,
the server's capability for it withheld from `initialize`, and the client's (sampling,
elicitation) withheld from what the server is told, so it does not ask: wherever a capability
names it, 2025-11-25's `tasks.requests` (what a side runs as a task) too. `--shut-channel all`
shuts every channel and, the same way, every method MCP does not define: what toolguard cannot
name, it cannot promise anything about.
"""

from __future__ import annotations

from collections.abc import Iterable, Set
from dataclasses import dataclass, field
from typing import Any

ALL = "all"  # `--shut-channel all`: every channel, and every method MCP does not define


@dataclass(frozen=True, slots=True)
class Channel:
    """One channel's methods (an exact name, or a prefix ending in `/`) and its capability."""

    client_requests: tuple[str, ...] = ()
    server_requests: tuple[str, ...] = ()
    notifications: tuple[str, ...] = ()  # the server's
    capability: str | None = None  # the server capability in `initialize` that offers it
    client_capability: str | None = None  # the client's, that lets the server ask for it


CHANNEL_BY_NAME: dict[str, Channel] = {
    "resources": Channel(
        client_requests=("resources/",),
        notifications=("notifications/resources/",),
        capability="resources",
    ),
    "prompts": Channel(
        client_requests=("prompts/",),
        notifications=("notifications/prompts/",),
        capability="prompts",
    ),
    "completions": Channel(client_requests=("completion/",), capability="completions"),
    "logging": Channel(
        client_requests=("logging/",),
        notifications=("notifications/message",),
        capability="logging",
    ),
    "progress": Channel(),  # the `message` of `notifications/progress` (the rest always passes)
    "sampling": Channel(server_requests=("sampling/",), client_capability="sampling"),
    "elicitation": Channel(
        server_requests=("elicitation/",),
        notifications=("notifications/elicitation/",),
        client_capability="elicitation",
    ),
}

# Never shut: the handshake, the tool channel (`tools/call` is guarded), liveness, roots (the
# client's own answer, to the server) and the protocol's bookkeeping. With the channels, the
# methods MCP defines.
_CLIENT_REQUESTS = ("initialize", "server/discover", "ping", "tools/list", "tools/call")
_SERVER_REQUESTS = ("ping", "roots/list")
_NOTIFICATIONS = (
    "notifications/cancelled",
    "notifications/progress",
    "notifications/tools/list_changed",
)
_PROGRESS = ("progressToken", "progress", "total")  # what a progress notification keeps shut
# Where a side's capabilities name a channel: among their own members, and (2025-11-25) among
# the kinds of request the side runs as tasks (`tasks.requests.sampling`, `.tools`, ...).
_NAMING = ((), ("tasks", "requests"))

Withheld = dict[tuple[str, ...], frozenset[str]]  # an object's path: the members it loses


def _matches(method: str, patterns: Iterable[str]) -> bool:
    return any(
        method.startswith(pattern) if pattern.endswith("/") else method == pattern
        for pattern in patterns
    )


def _patterns(part: str, names: Iterable[str]) -> tuple[str, ...]:
    return tuple(p for name in sorted(names) for p in getattr(CHANNEL_BY_NAME[name], part))


@dataclass(frozen=True, slots=True)
class _Rule:
    """One kind of message (client requests, server requests or notifications): what passes."""

    shut: tuple[str, ...]  # the patterns of the channels shut
    defined: tuple[str, ...] | None  # all MCP defines, when nothing else may pass (`all`)

    def passes(self, method: str) -> bool:
        return not _matches(method, self.shut) and (
            self.defined is None or _matches(method, self.defined)
        )


@dataclass(frozen=True, slots=True)
class Channels:
    """The channels the operator shut; every method is judged against them.

    `undefined_shut` (given by `all`) refuses the methods MCP does not define as well.
    """

    shut: frozenset[str] = frozenset()
    undefined_shut: bool = False
    _client: _Rule = field(init=False, repr=False)
    _server: _Rule = field(init=False, repr=False)
    _notified: _Rule = field(init=False, repr=False)

    def __post_init__(self) -> None:
        if unknown := sorted(self.shut - CHANNEL_BY_NAME.keys()):
            raise ValueError(f"no such channel: {', '.join(unknown)}")
        for slot, part, always in (
            ("_client", "client_requests", _CLIENT_REQUESTS),
            ("_server", "server_requests", _SERVER_REQUESTS),
            ("_notified", "notifications", _NOTIFICATIONS),
        ):
            defined = (*always, *_patterns(part, CHANNEL_BY_NAME))
            rule = _Rule(_patterns(part, self.shut), defined if self.undefined_shut else None)
            object.__setattr__(self, slot, rule)

    @classmethod
    def named(cls, names: Iterable[str]) -> Channels:
        """The channels `--shut-channel` names (`all`: every one, and undefined methods)."""
        given = set(names)
        if unknown := sorted(given - CHANNEL_BY_NAME.keys() - {ALL}):
            raise ValueError(f"no such channel: {', '.join(unknown)}")
        if ALL in given:
            return cls(frozenset(CHANNEL_BY_NAME), undefined_shut=True)
        return cls(frozenset(given))

    def client_request(self, method: str) -> bool:
        """Whether a client request with `method` may reach the server."""
        return self._client.passes(method)

    def server_request(self, method: str) -> bool:
        """Whether a server request with `method` may reach the client."""
        return self._server.passes(method)

    def notification(self, method: str) -> bool:
        """Whether a server notification with `method` may reach the client."""
        return self._notified.passes(method)

    def progress(self, params: dict[str, Any]) -> dict[str, Any] | None:
        """A progress notification's params as the client gets them; None: as they came.

        Shut, the `progress` channel keeps the token and the numbers only: no `message` (text
        a client may show), no `_meta`, nothing else.
        """
        if "progress" not in self.shut or params.keys() <= set(_PROGRESS):
            return None
        return {key: params[key] for key in _PROGRESS if key in params}

    def capabilities(self, capabilities: dict[str, Any]) -> dict[str, Any]:
        """The server's capabilities without those of the channels shut, wherever named."""
        shut = {held for name in self.shut if (held := CHANNEL_BY_NAME[name].capability)}
        kept = dict(capabilities)
        for path, names in _naming(capabilities, shut).items():
            kept = _without(kept, path, names)
        return kept

    def client_withheld(self, capabilities: Any) -> Withheld:
        """What the client's capabilities lose to the channels shut: by path, the members.

        A server told the client can sample (or elicit), or run sampling as a task, asks, and
        is refused: told nothing, it does not ask. Empty when there is nothing to withhold (or
        no object to look in).
        """
        shut = {held for name in self.shut if (held := CHANNEL_BY_NAME[name].client_capability)}
        return _naming(capabilities, shut)

    def input_requests(self, requests: Any) -> str:
        """Why a 2026-07-28 `inputRequests` map asks for a shut channel, or "" if it does not.

        Each value is a server request (`{method, params}`) the client is to fulfil: it is
        judged as the same request sent on its own would be. While no server request can be
        shut (sampling, elicitation and undefined methods all pass), the map passes unread.
        """
        if requests is None or not (self._server.shut or self.undefined_shut):
            return ""
        if not isinstance(requests, dict):
            return "its inputRequests is not an object"
        for request in requests.values():
            method = request.get("method") if isinstance(request, dict) else None
            if not isinstance(method, str):
                return "an input request names no method"
            if not self.server_request(method):
                return f"an input request asks for {method[:64]!r}, a channel toolguard keeps shut"
        return ""


def _naming(capabilities: Any, names: Set[str]) -> Withheld:
    """Where `capabilities` names any of `names` (see `_NAMING`): each object's path, its names."""
    found: Withheld = {}
    for path in _NAMING:
        held = capabilities
        for step in path:
            held = held.get(step) if isinstance(held, dict) else None
        if isinstance(held, dict) and (named := frozenset(held.keys() & names)):
            found[path] = named
    return found


def _without(value: dict[str, Any], path: tuple[str, ...], names: frozenset[str]) -> dict[str, Any]:
    """`value` with the object at `path` lacking the members `names` (copied, never changed)."""
    if not path:
        return {key: item for key, item in value.items() if key not in names}
    return {**value, path[0]: _without(value[path[0]], path[1:], names)}


def channel_of(method: str) -> str:
    """The channel that would carry `method`, for the operator: its name, or "" (none does)."""
    for name, channel in CHANNEL_BY_NAME.items():
        every = (*channel.client_requests, *channel.server_requests, *channel.notifications)
        if _matches(method, every):
            return name
    return ""
