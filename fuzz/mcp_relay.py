"""Fuzz target: `toolguard mcp`'s relay, fed a session of lines from both sides, in process.

Each input is a script, one step a line: a line starting `c` comes from the client, `s` from
the server (`C` and `S`: the same, flagged over-long, as the framing hands on a line past
`--max-line-bytes`), `t` lets every call's deadline pass (`Relay.expire`); any other line
comes from the server as it is. A first line `!NAMES` shuts channels for the session, as
`--shut-channel` does (comma separated: none, channel names, `all`; see `channel_model.py`).
After the last step the server's output ends (`Relay.server_gone`). The relay guards the
example and test contracts that have an `[mcp]` table, with audit records to `/dev/null`, and
lets the tool `echo` through unguarded. A model written here, from the lines alone, follows
which requests the relay forwarded:

- neither `from_client`, `from_server`, `expire` nor `server_gone` raises, and the relay
  reports no internal error (a notice, or a guarded call's `internal` outcome);
- a name that is no channel is refused (`Channels.named` raises `ValueError`);
- a client request on a shut channel is never forwarded: toolguard answers it `-32601` (or
  `-32600` if its id is taken); a server request on one is answered `-32601` to the server
  and never reaches the client; a notification on one never reaches the client, a progress
  notification only with its token and numbers while `progress` is shut; toolguard's
  `-32601` answers only what is shut (or `tasks/*`, or a call as a task); a server request
  or notification on an open channel reaches the client; every client notification but a
  `tools/call` or `tasks/*` reaches the server as it came; a client request forwarded
  reaches it as it came, but without the client's capabilities for a shut channel (sampling,
  elicitation, and their `tasks.requests` members) in `initialize` or a request's `_meta`,
  and rewritten only then;
- an `initialize` or `server/discover` answer keeps the capabilities of the open channels
  the server gave, and none of the shut ones;
- a ping answer the client gets is `{}`, or `{"resultType": "complete"}` to a 2026-07-28
  ping (one whose `_meta` names the version);
- no `input_required` answer the client gets, to any request, asks for a shut channel (one
  to a guarded call that does fails the call);
- the relay forwards no request whose id is already awaiting an answer;
- every guarded call forwarded gets exactly one answer (none if the client cancelled it):
  the envelope, as the text block and as `structuredContent`, valid against its contract's
  envelope schema, or an interim `input_required` result; never the server's own line,
  never a JSON-RPC error;
- a failure envelope is the fixed failure shape and never holds `seeds.CANARY`, and no
  error toolguard writes during a server step holds it (only an accepted payload may);
- every response the client gets answers a request it has in flight (once), and toolguard's
  refusals of client lines never carry the id of a request in flight;
- when the server's output ends, every request still in flight gets its one answer: a guarded
  call its envelope, any other request `-32603`;
- every line the client gets is one line of JSON;
- the operator's notices and diagnostics hold no raw control or hidden character.

    python fuzz/mcp_relay.py -max_total_time=60
"""

from __future__ import annotations

import io
import json
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import harness
import jsonschema
import seeds
from channel_model import CAPABILITY, CLIENT, NAMES, NOTICE, SERVER, Shut, script

with harness.instrumented():
    import toolguard
    from toolguard import envelope
    from toolguard.audit.trail import TrailOptions
    from toolguard.contract import Contract
    from toolguard.errors import Rejection
    from toolguard.mcp.channels import Channels
    from toolguard.mcp.jsonrpc import (
        INTERNAL_ERROR,
        INVALID_REQUEST,
        METHOD_NOT_FOUND,
        Message,
        classify,
        message_limits,
    )
    from toolguard.mcp.operator import OperatorChannel
    from toolguard.mcp.relay import Options, Relay
    from toolguard.mcp.session import guards
    from toolguard.mcp.wire import Output
    from toolguard.parse import parse
    from toolguard.result import Diagnostics

_KEYS = harness.scratch("mcp_relay")
VERSION_META = "io.modelcontextprotocol/protocolVersion"
UNGUARDED = "echo"
CONTRACTS = [toolguard.load_contract(path) for path in seeds.mcp_contracts()]
GUARDS, LISTED = guards(
    CONTRACTS,
    TrailOptions(log=Path("/dev/null"), key_file=_KEYS / "audit.key"),
    (UNGUARDED,),
)
ENVELOPE = {
    name: jsonschema.Draft202012Validator(guard.contract.envelope_schema)
    for name, guard in GUARDS.items()
}
OPTIONS = Options(
    call_timeout=60.0, allow_unguarded=frozenset({UNGUARDED}), listed=LISTED, max_line_bytes=2048
)
LIMITS = message_limits(OPTIONS.max_line_bytes)
_OPTIONS_BY_SHUT: dict[tuple[str, ...], Options] = {}
_DESCRIBING = frozenset({"initialize", "server/discover"})
_INTERIM = frozenset({"resultType", "inputRequests", "requestState"})
_FAILURE_KEYS = {"tool", "request_id", "outcome", "error"}

Key = tuple[str, Any]


def key_of(value: Any) -> Key | None:
    """A JSON-RPC id as MCP allows it (a string, or an integer but not a boolean), typed."""
    if isinstance(value, str):
        return ("str", value)
    if isinstance(value, int) and not isinstance(value, bool):
        return ("int", value)
    return None


@dataclass
class Model:
    """What the client awaits, as the lines say: guarded calls (by id, their tool), the rest.

    Also the channels the session shut, and every id the relay ever forwarded a request with.
    """

    shut: Shut
    guarded: dict[Key, str] = field(default_factory=dict)
    plain: dict[Key, str] = field(default_factory=dict)  # by id, the request's method
    used: set[Key] = field(default_factory=set)
    modern: set[Key] = field(default_factory=set)  # 2026-07-28 requests (their `_meta` says)

    def open(self, key: Key | None) -> bool:
        """Whether a request with this id awaits its answer."""
        return key in self.guarded or key in self.plain


class Operator(OperatorChannel):
    """The operator's channel, noting each internal error the relay tells it of."""

    def __init__(self) -> None:
        self.shown = io.StringIO()  # written directly: no descriptor, so no writer thread
        super().__init__(self.shown, "rich")
        self.faults: list[str] = []

    def render(self, diagnostics: Diagnostics) -> None:  # noqa: D102 - the base's
        if diagnostics.outcome == "internal":
            self.faults.append(diagnostics.message or "an internal outcome")
        super().render(diagnostics)

    def notice(self, event: str, message: str) -> None:  # noqa: D102 - the base's
        if event == "internal_error":
            self.faults.append(message)
        super().notice(event, message)


class Side:
    """What one side was written, read step by step."""

    def __init__(self) -> None:
        self.stream = io.BytesIO()
        self.output = Output(self.stream)
        self._read = 0

    def new(self) -> bytes:
        """The bytes written since the last call."""
        data = self.stream.getvalue()
        fresh, self._read = data[self._read :], len(data)
        return fresh


def test_one_input(data: bytes) -> None:
    """Run one session script; an `AssertionError` (or any exception) is a finding."""
    words, steps = script(data)
    shut = Shut.of(words or [])
    if shut is None:
        try:
            Channels.named(words or [])
        except ValueError:
            return
        raise AssertionError(f"--shut-channel took {words!r}")
    client, server = Side(), Side()
    operator = Operator()
    relay = Relay(
        GUARDS,
        _options(words or []),
        server=["server"],
        operator=operator,
        client=client.output,
        to_server=server.output,
    )
    model = Model(shut)
    for raw in steps.split(b"\n"):
        if not raw:
            continue
        side, line = raw[:1], raw[1:] + b"\n"
        if side in (b"c", b"C"):
            relay.from_client(line, side == b"C")
            _client_step(model, _read(line, side == b"C"), line, server.new(), client.new())
        elif side == b"t":
            relay.expire(time.monotonic() + 2 * OPTIONS.call_timeout)
            _answers(model, client.new(), None, only_guarded=True)
            server.new()  # the cancellations toolguard sends the server
        else:
            over_long = side == b"S"
            line = line if side in (b"s", b"S") else raw + b"\n"
            relay.from_server(line, over_long)
            _server_step(model, _read(line, over_long), line, client.new(), server.new())
    relay.server_gone()
    _answers(model, client.new(), None, only_guarded=False, gone=True)
    assert not model.guarded, f"guarded calls never answered: {sorted(model.guarded, key=str)}"
    assert not model.plain, f"requests never answered: {sorted(model.plain, key=str)}"
    assert not operator.faults, f"internal errors: {operator.faults}"
    _escaped(operator.shown.getvalue())


def _options(words: list[str]) -> Options:
    """The relay's options with the channels `words` shut (as `--shut-channel` each)."""
    names = tuple(sorted(set(words)))
    if names not in _OPTIONS_BY_SHUT:
        _OPTIONS_BY_SHUT[names] = replace(OPTIONS, channels=Channels.named(names))
    return _OPTIONS_BY_SHUT[names]


def _read(line: bytes, over_long: bool) -> Message | None:
    """The message the relay reads in a line, or None (it reads none).

    Whether a line is a message is the strict parser's call and `classify`'s (JSON-RPC's
    shapes), not this model's: the model judges what the relay does with a message.
    """
    if over_long:
        return None
    try:
        return classify(parse(line, LIMITS))
    except Rejection:
        return None


def _client_step(
    model: Model, read: Message | None, line: bytes, to_server: bytes, to_client: bytes
) -> None:
    """Follow what the relay forwarded; check what it answered the client line with."""
    if to_server == line or (read is not None and read.kind == "request" and to_server):
        _withheld(model.shut, line, to_server)
        message = json.loads(to_server)
        if isinstance(message, dict) and "method" in message:
            _forwarded(model, message)
    answers = _lines(to_client)
    for answer in answers:
        assert "error" in answer, f"a client line answered with {answer!r}"
        key = key_of(answer.get("id"))
        assert key is None or not model.open(key), (
            f"a refusal of a client line carries the id {key} of a request in flight"
        )
        if answer["error"]["code"] == METHOD_NOT_FOUND:
            assert read is not None and read.kind == "request", "-32601 for no request"
            method = read.method or ""
            assert (
                model.shut.refuses(CLIENT, method)
                or method.startswith("tasks/")
                or method == "tools/call"
            ), f"-32601 for the client's {method!r}, on no shut channel"
    if read is None:
        return
    method = read.method or ""
    if read.kind == "notification" and method != "tools/call" and not method.startswith("tasks/"):
        assert to_server == line, f"the client's {method!r} notification was not forwarded"
    if read.kind == "request" and model.shut.refuses(CLIENT, method):
        assert to_server == b"", f"forwarded the client's {method!r}: its channel is shut"
        key = key_of(read.body["id"])
        if not model.open(key):
            assert len(answers) == 1, f"the client's {method!r} answered {len(answers)} times"
            answer, code = answers[0], answers[0]["error"]["code"]
            assert answer["id"] == read.body["id"], f"a refusal with another id: {answer!r}"
            assert code == METHOD_NOT_FOUND or (code == INVALID_REQUEST and key in model.used), (
                f"the client's {method!r} on a shut channel refused with {answer!r}"
            )


def _server_step(
    model: Model, read: Message | None, line: bytes, to_client: bytes, to_server: bytes
) -> None:
    """Check what the client got; a server message reaches it unless its channel is shut."""
    _answers(model, to_client, line, only_guarded=False)
    replies = _lines(to_server)  # toolguard's replies to the server's requests
    refusals = [r for r in replies if _code(r) == METHOD_NOT_FOUND]
    kind = {"request": SERVER, "notification": NOTICE}.get(read.kind) if read else None
    if read is None or kind is None:
        assert not refusals, f"-32601 to the server for no request: {replies!r}"
        return
    method = read.method or ""
    if not model.shut.refuses(kind, method):
        assert not refusals, f"-32601 to the server for its {method!r}, on no shut channel"
        passed = [message for message in _lines(to_client) if "method" in message]
        # NOTE: a server with too many requests in flight gets -32603 instead.
        busy = kind == SERVER and [_code(reply) for reply in replies] == [INTERNAL_ERROR]
        assert len(passed) == 1 or busy, f"the server's {method!r} never reached the client"
        return
    assert not to_client, f"the server's {method!r} reached the client: its channel is shut"
    if kind == SERVER:
        assert len(replies) == 1, f"toolguard's replies to a shut server request: {replies!r}"
        assert refusals == replies, f"a shut server request answered {replies!r}"
        assert replies[0]["id"] == read.body["id"], f"a refusal with another id: {replies!r}"


def _withheld(shut: Shut, line: bytes, to_server: bytes) -> None:
    """A client line forwarded: as it came, but for the client capabilities of shut channels."""
    sent = json.loads(line)
    expected = shut.forwarded(sent) if isinstance(sent, dict) and "id" in sent else sent
    assert json.loads(to_server) == expected, f"forwarded {to_server[:200]!r} for {line[:200]!r}"
    assert (to_server == line) == (expected == sent), f"rewrote {line[:200]!r} for nothing"


def _forwarded(model: Model, message: dict[str, Any]) -> None:
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    if "id" not in message:
        if message["method"] == "notifications/cancelled":
            cancelled = key_of(params.get("requestId"))
            model.guarded.pop(cancelled, None)  # type: ignore[arg-type]
            model.plain.pop(cancelled, None)  # type: ignore[arg-type]
        return
    key = key_of(message["id"])
    assert key is not None, f"forwarded a request with the id {message['id']!r}"
    assert not model.open(key), f"forwarded a second request with the id {key} in flight"
    model.used.add(key)
    name = params.get("name")
    if message["method"] == "tools/call" and isinstance(name, str) and name in GUARDS:
        model.guarded[key] = name
    else:
        model.plain[key] = message["method"]
    meta = params.get("_meta")
    model.modern.discard(key)
    if isinstance(meta, dict) and isinstance(meta.get(VERSION_META), str):
        model.modern.add(key)


def _answers(
    model: Model, written: bytes, line: bytes | None, *, only_guarded: bool, gone: bool = False
) -> None:
    """Check each line the client got during a server step, a timeout or the server's end."""
    sent = _loads(line)
    for raw in _split(written):
        message = json.loads(raw)
        passed = raw == line  # the server's own line, as it came
        assert isinstance(message, dict), f"the client got {raw!r}"
        if "method" in message:  # the server's request or notification to the client
            _passed_on(model.shut, message, sent if passed else None)
            continue
        key = key_of(message.get("id"))
        assert key is not None and model.open(key), f"an answer for no request: {raw[:200]!r}"
        answered = isinstance(sent, dict) and key_of(sent.get("id")) == key
        if _member(message, "result", "resultType") == "input_required":
            requests = message["result"].get("inputRequests")
            assert not model.shut.may_ask(requests), f"an interim answer asks for {requests!r}"
        tool = model.guarded.pop(key, None)
        if tool is not None:
            # NOTE: an interim answer is rebuilt: as the server wrote it, if it held no more.
            interim = _member(message, "result", "resultType") == "input_required"
            assert not passed or interim, "the server's own line answered a guarded call"
            asked = answered and model.shut.asks(_member(sent, "result", "inputRequests"))
            _envelope_answer(message, tool, asked_shut=asked)
            continue
        assert not only_guarded, f"an unguarded request answered by toolguard: {raw[:200]!r}"
        method = model.plain.pop(key)
        if gone:
            assert _code(message) == -32603, f"at the end: {raw[:200]!r}"
        if method == "ping" and "result" in message:
            pong = [{}, {"resultType": "complete"}] if key in model.modern else [{}]
            assert message["result"] in pong, f"a ping answered {raw[:200]!r}"
        if method in _DESCRIBING and isinstance(message.get("result"), dict):
            assert answered, f"a {method} result from no server line: {raw[:200]!r}"
            _described(model.shut, message["result"], sent["result"])
        if not passed and "error" in message:
            assert seeds.CANARY not in _text(message), f"the canary reached an error: {raw!r}"


def _passed_on(shut: Shut, message: dict[str, Any], sent: Any) -> None:
    """A server request or notification the client got: `sent` if passed as it came.

    Only a progress notification may be rewritten: shut, it keeps its token and numbers.
    """
    method, params = message["method"], message.get("params")
    if sent is None:
        assert method == "notifications/progress" and "progress" in shut.names, (
            f"toolguard wrote the client {message!r}"
        )
        return
    kind = SERVER if "id" in message else NOTICE
    assert not shut.refuses(kind, method), f"the server's {method!r} passed: its channel is shut"
    if method == "notifications/progress":
        assert shut.progress_kept(params) == params, f"a progress notification passed: {params!r}"


def _described(shut: Shut, got: dict[str, Any], sent: dict[str, Any]) -> None:
    """An `initialize` answer: the open channels' capabilities as given; no shut channel's."""
    offered, kept = sent.get("capabilities"), got.get("capabilities")
    if not isinstance(offered, dict):
        return
    assert isinstance(kept, dict), f"capabilities {offered!r} became {kept!r}"
    for name, capability in CAPABILITY.items():
        if name in shut.names:
            assert capability not in kept, f"the shut {name} channel's capability was passed"
        elif capability in offered:
            assert kept.get(capability) == offered[capability], f"{capability} withheld"


def _envelope_answer(message: dict[str, Any], tool: str, *, asked_shut: bool) -> None:
    """The answer to a guarded call: the envelope, twice; or an interim `input_required`.

    `asked_shut`: the server's answer asked the client for a shut channel (never interim).
    """
    assert "result" in message, f"a guarded call answered with {message!r}"
    result = message["result"]
    if result.get("resultType") == "input_required":
        assert set(result) <= _INTERIM, f"an interim answer with more: {sorted(result)}"
        assert not asked_shut, "an interim answer that asks for a shut channel"
        return
    content, answer = result["content"], result["structuredContent"]
    assert len(content) == 1, "not one text block"
    assert content[0]["type"] == "text", "not a text block"
    assert json.loads(content[0]["text"]) == answer, "the text block is not the envelope"
    ENVELOPE[tool].validate(answer)
    contract: Contract = GUARDS[tool].contract
    assert result["isError"] is (answer["outcome"] != "success"), "isError disagrees"
    if answer["outcome"] == "failure":
        assert set(answer) == _FAILURE_KEYS, f"a failure envelope with more in it: {answer!r}"
        error = answer["error"]
        expected = envelope.failure(
            contract.tool, answer["request_id"], error["code"], error["retryable"]
        )
        assert answer == expected, f"not the fixed failure shape: {answer!r}"
        assert seeds.CANARY not in _text(result), "the canary reached a failure envelope"


def _escaped(shown: str) -> None:
    """The operator's notices and diagnostics hold no raw control or hidden character."""
    harness.assert_escaped(shown, "stderr")


def _split(written: bytes) -> list[bytes]:
    """The lines written, each with its newline (a line passed on may hold a carriage return)."""
    assert not written or written.endswith(b"\n"), "a line written without its newline"
    return [line + b"\n" for line in written.split(b"\n")[:-1]]


def _lines(written: bytes) -> list[Any]:
    return [json.loads(raw) for raw in _split(written)]


def _loads(line: bytes | None) -> Any:
    """The server's line as JSON (None: none, or not JSON)."""
    try:
        return json.loads(line) if line is not None else None
    except ValueError:  # not JSON: UnicodeDecodeError and JSONDecodeError are ValueErrors
        return None


def _member(value: Any, *path: str) -> Any:
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    return value


def _code(reply: Any) -> Any:
    """The error code of a line toolguard wrote (None: not an error)."""
    return _member(reply, "error", "code")


def _text(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def main() -> None:
    """Fuzz, with session scripts built from the guarded contracts' fixtures as seeds."""
    harness.run(
        "mcp_relay",
        test_one_input,
        seeds=seeds.relay_sessions,
        dictionary=(
            *seeds.JSON_TOKENS,
            b'\nc{"jsonrpc":"2.0",',
            b'\ns{"jsonrpc":"2.0",',
            b"\nt\n",
            b'"id":',
            b'"method":',
            b'"result":',
            b'"error":',
            b'"params":',
            b'"tools/call"',
            b'"tools/list"',
            b'"initialize"',
            b'"notifications/cancelled"',
            b'"requestId"',
            b'"structuredContent"',
            b'"content"',
            b'"isError"',
            b'"resultType"',
            b'"input_required"',
            b'"arguments"',
            b'"_meta"',
            b'"task"',
            b'"probe"',
            b'"echo"',
            b"!all\n",
            b"!resources,sampling\n",
            *(f"{name},".encode() for name in NAMES),
            b'"capabilities"',
            b'"server/discover"',
            b'"resources/read"',
            b'"prompts/get"',
            b'"completion/complete"',
            b'"logging/setLevel"',
            b'"sampling/createMessage"',
            b'"elicitation/create"',
            b'"roots/list"',
            b'"ping"',
            b'"notifications/progress"',
            b'"notifications/message"',
            b'"notifications/resources/updated"',
            b'"notifications/elicitation/complete"',
            b'"progressToken"',
            b'"message"',
            b'"inputRequests"',
            b'"io.modelcontextprotocol/protocolVersion"',
            b'"io.modelcontextprotocol/clientCapabilities"',
            b'"sampling":{}',
            b'"elicitation":{}',
        ),
        max_len=8192,
    )


if __name__ == "__main__":
    main()
