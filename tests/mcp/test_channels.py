"""channels.py: which MCP methods pass besides guarded tool results; all, but those shut."""

from __future__ import annotations

import pytest

from toolguard.mcp.channels import CHANNEL_BY_NAME, Channels, channel_of

OPEN = Channels()  # no --shut-channel: the default
SHUT = Channels.named(["all"])


@pytest.mark.parametrize(
    "method", ["initialize", "server/discover", "ping", "tools/list", "tools/call"]
)
def test_the_handshake_and_the_tool_channel_are_never_shut(method: str) -> None:
    """A client request of the protocol's own, or for tools, always reaches the server."""
    assert SHUT.client_request(method)


@pytest.mark.parametrize(
    ("method", "channel"),
    [
        ("resources/read", "resources"),
        ("resources/templates/list", "resources"),
        ("prompts/get", "prompts"),
        ("completion/complete", "completions"),
        ("logging/setLevel", "logging"),
    ],
)
def test_a_client_request_passes_until_its_channel_is_shut(method: str, channel: str) -> None:
    """Open by default; `--shut-channel NAME` (or `all`) shuts exactly its methods."""
    assert OPEN.client_request(method)
    assert channel_of(method) == channel
    assert not Channels.named([channel]).client_request(method)
    assert not SHUT.client_request(method)
    others = Channels.named(sorted(set(CHANNEL_BY_NAME) - {channel}))
    assert others.client_request(method)


@pytest.mark.parametrize("method", ["vendor/secret", "Tools/Call", "tools/call ", "tools/"])
def test_a_method_mcp_does_not_define_is_shut_by_all_only(method: str) -> None:
    """Passed by default, and with every channel named; `all` refuses it too."""
    every = Channels.named(CHANNEL_BY_NAME)
    for channels in (OPEN, every):
        assert channels.client_request(method)
        assert channels.server_request(method)
        assert channels.notification(f"notifications/{method}")
    assert not SHUT.client_request(method)
    assert not SHUT.server_request(method)
    assert not SHUT.notification(f"notifications/{method}")
    assert channel_of(method) == ""


@pytest.mark.parametrize(
    ("method", "channel"),
    [("sampling/createMessage", "sampling"), ("elicitation/create", "elicitation")],
)
def test_server_requests(method: str, channel: str) -> None:
    """Sampling and elicitation pass until shut; ping and roots are never shut."""
    assert OPEN.server_request(method)
    assert not Channels.named([channel]).server_request(method)
    assert not SHUT.server_request(method)
    assert SHUT.server_request("ping")
    assert SHUT.server_request("roots/list")


@pytest.mark.parametrize(
    ("method", "channel"),
    [
        ("notifications/message", "logging"),
        ("notifications/resources/updated", "resources"),
        ("notifications/prompts/list_changed", "prompts"),
        ("notifications/elicitation/complete", "elicitation"),
    ],
)
def test_a_notification_passes_until_its_channel_is_shut(method: str, channel: str) -> None:
    """Log lines, resource and prompt changes: passed by default, dropped shut."""
    assert OPEN.notification(method)
    assert not Channels.named([channel]).notification(method)
    assert not SHUT.notification(method)


@pytest.mark.parametrize(
    "method",
    ["notifications/cancelled", "notifications/progress", "notifications/tools/list_changed"],
)
def test_the_protocols_own_notifications_are_never_shut(method: str) -> None:
    """Cancellation, progress (its numbers) and a changed tool list pass, even with `all`."""
    assert SHUT.notification(method)


def test_a_progress_notification_keeps_its_numbers_only_while_progress_is_shut() -> None:
    """No message, no _meta; open (or nothing to remove), it passes as it came (None)."""
    params = {"progressToken": 1, "progress": 2, "total": 3, "message": "x", "_meta": {}}
    shut = Channels.named(["progress"])
    assert shut.progress(params) == {"progressToken": 1, "progress": 2, "total": 3}
    assert shut.progress({"progressToken": 1, "_meta": {}}) == {"progressToken": 1}
    assert shut.progress({"progressToken": 1, "progress": 2}) is None
    assert shut.progress({"progressToken": 1, "progress": 2, "total": 3}) is None
    assert SHUT.progress(params) == {"progressToken": 1, "progress": 2, "total": 3}
    assert OPEN.progress(params) is None


def test_the_capabilities_of_shut_channels_are_withheld() -> None:
    """A client then never asks for them; tools and unknown capabilities stay."""
    offered = {"tools": {}, "resources": {}, "prompts": {}, "logging": {}, "completions": {}}
    assert OPEN.capabilities(offered) == offered
    assert SHUT.capabilities({**offered, "experimental": {}}) == {"tools": {}, "experimental": {}}
    logging_shut = {key: value for key, value in offered.items() if key != "logging"}
    assert Channels.named(["logging"]).capabilities(offered) == logging_shut


def test_the_clients_capabilities_for_shut_channels_are_withheld() -> None:
    """Sampling and elicitation shut: the server is not told the client can; roots stays."""
    stated = {"sampling": {}, "elicitation": {}, "roots": {}, "experimental": {}}
    assert OPEN.client_withheld(stated) == {}
    assert SHUT.client_withheld(stated) == {(): {"sampling", "elicitation"}}
    assert Channels.named(["elicitation"]).client_withheld(stated) == {(): {"elicitation"}}
    assert Channels.named(["resources", "logging"]).client_withheld(stated) == {}
    assert SHUT.client_withheld(["sampling"]) == {}


def test_the_clients_task_support_for_shut_channels_is_withheld() -> None:
    """2025-11-25's `tasks.requests` names the channels too: a server told the client runs
    sampling as a task would ask for it that way; what is not a channel's stays."""
    requests = {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}, "x": {}}
    stated = {"sampling": {}, "tasks": {"list": {}, "requests": requests}}
    assert OPEN.client_withheld(stated) == {}
    sampling = {(): {"sampling"}, ("tasks", "requests"): {"sampling"}}
    assert Channels.named(["sampling"]).client_withheld(stated) == sampling
    elicitation = {("tasks", "requests"): {"elicitation"}}
    assert Channels.named(["elicitation"]).client_withheld(stated) == elicitation
    assert SHUT.client_withheld({"tasks": {"requests": ["sampling"]}}) == {}
    assert SHUT.client_withheld({"tasks": []}) == {}


def test_the_servers_task_support_for_shut_channels_is_withheld() -> None:
    """A server's `tasks.requests` naming a shut channel loses it; tools and the rest stay."""
    tasks = {"list": {}, "requests": {"tools": {"call": {}}, "resources": {"read": {}}}}
    offered = {"tools": {}, "resources": {}, "tasks": tasks}
    kept = {"tools": {}, "tasks": {"list": {}, "requests": {"tools": {"call": {}}}}}
    assert Channels.named(["resources"]).capabilities(offered) == kept
    assert Channels.named(["prompts"]).capabilities(offered) == offered
    assert offered["tasks"] == tasks  # the server's own object is not changed


@pytest.mark.parametrize(
    ("requests", "wrong"),
    [
        (None, False),
        ({"a": {"method": "roots/list"}}, False),
        ({"a": {"method": "sampling/createMessage", "params": {}}}, True),
        ({"a": {"method": "roots/list"}, "b": {"method": "elicitation/create"}}, True),
        ({"a": {"method": "vendor/ask"}}, True),
        ({"a": {}}, True),
        ({"a": "roots/list"}, True),
        (["roots/list"], True),
    ],
)
def test_input_requests_are_judged_as_the_server_requests_they_are(
    requests: object, wrong: bool
) -> None:
    """2026-07-28's inputRequests, with `all`: each must name a server request not shut."""
    assert bool(SHUT.input_requests(requests)) is wrong


@pytest.mark.parametrize(
    "requests", [{"a": {"method": "sampling/createMessage"}}, {"a": {}}, ["roots/list"]]
)
def test_input_requests_pass_unread_while_no_server_request_is_shut(requests: object) -> None:
    """By default, or with only client-side channels shut, the map passes as before."""
    assert OPEN.input_requests(requests) == ""
    assert Channels.named(["resources", "progress"]).input_requests(requests) == ""


def test_an_input_request_s_method_is_quoted_to_64_characters() -> None:
    """The refusal names the method a server sent, cut: it is the server's text."""
    why = SHUT.input_requests({"a": {"method": "x" * 100}})
    assert repr("x" * 64) in why
    assert "x" * 65 not in why


def test_undefined_methods_shut_alone_refuse_an_undefined_input_request_only() -> None:
    """Undefined methods refused, no channel shut: the map is read, as each request would be."""
    undefined = Channels(undefined_shut=True)
    assert undefined.input_requests({"a": {"method": "vendor/ask"}})
    assert undefined.input_requests({"a": {"method": "sampling/createMessage"}}) == ""


def test_sampling_shut_alone_refuses_a_sampling_input_request_only() -> None:
    """`--shut-channel sampling`: an elicitation input request still passes."""
    sampling = Channels.named(["sampling"])
    assert sampling.input_requests({"a": {"method": "sampling/createMessage"}})
    assert sampling.input_requests({"a": {"method": "elicitation/create"}}) == ""


@pytest.mark.parametrize("names", [["resource"], ["all", "bogus"], ["ALL"]])
def test_an_unknown_channel_is_an_error(names: list[str]) -> None:
    """A misspelt --shut-channel never silently shuts nothing."""
    with pytest.raises(ValueError, match="no such channel"):
        Channels.named(names)
    with pytest.raises(ValueError, match="no such channel"):
        Channels(frozenset(names))


def test_every_channel_is_reachable() -> None:
    """Each registry entry shuts something: a method, or (progress) a notification's text."""
    for name, channel in CHANNEL_BY_NAME.items():
        parts = (*channel.client_requests, *channel.server_requests, *channel.notifications)
        assert parts or name == "progress"
        assert Channels.named([name]) != OPEN
