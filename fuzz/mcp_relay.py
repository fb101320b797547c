"""Fuzz target: `toolguard mcp`'s relay, fed a session of lines from both sides, in process.

Each input is a script, one step a line: a line starting `c` comes from the client, `s` from
the server (`C` and `S`: the same, flagged over-long, as the framing hands on a line past
`--max-line-bytes`), `t` lets every call's deadline pass (`Relay.expire`); any other line
comes from the server as it is. After the last step the server's output ends
(`Relay.server_gone`). The relay guards the example and test contracts that have an `[mcp]`
table, with audit records to `/dev/null`, and lets the tool `echo` through unguarded. A
model written here, from the lines alone, follows which requests the relay forwarded:

- neither `from_client`, `from_server`, `expire` nor `server_gone` raises;
- the relay forwards no request whose id is already awaiting an answer;
- every guarded call forwarded gets exactly one answer (none if the client cancelled it):
  the envelope, as the text block and as `structuredContent`, valid against its contract's
  envelope schema, or an interim `input_required` result; never the server's own line,
  never a JSON-RPC error;
- a failure envelope is the fixed failure shape and never holds `seeds.CANARY`, and no
  error toolguard writes during a server step holds it (only an accepted payload may);
- every response the client gets answers a request it has in flight (once), and toolguard's
  refusals of client lines never carry the id of a request in flight;
- every line the client gets is one line of JSON;
- the operator's notices and diagnostics hold no raw control or hidden character.

    python fuzz/mcp_relay.py -max_total_time=60
"""

from __future__ import annotations

import io
import json
import re
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import harness
import jsonschema
import seeds

with harness.instrumented():
    import toolguard
    from toolguard import envelope
    from toolguard.audit.trail import TrailOptions
    from toolguard.contract import Contract
    from toolguard.mcp.operator import OperatorChannel
    from toolguard.mcp.relay import Options, Relay
    from toolguard.mcp.session import guards
    from toolguard.mcp.wire import Output

_KEYS = harness.scratch("mcp_relay")
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
_INTERIM = frozenset({"resultType", "inputRequests", "requestState"})
_FAILURE_KEYS = {"tool", "request_id", "outcome", "error"}
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
_ASCII_CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f]")

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
    """What the client awaits, as the lines say: guarded calls (by id, their tool), the rest."""

    guarded: dict[Key, str] = field(default_factory=dict)
    plain: set[Key] = field(default_factory=set)

    def open(self, key: Key) -> bool:
        """Whether a request with this id awaits its answer."""
        return key in self.guarded or key in self.plain


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
    client, server = Side(), Side()
    stderr = io.StringIO()  # written directly: no descriptor, so no writer thread
    relay = Relay(
        GUARDS,
        OPTIONS,
        server=["server"],
        operator=OperatorChannel(stderr, "rich"),
        client=client.output,
        to_server=server.output,
    )
    model = Model()
    for raw in data.split(b"\n"):
        if not raw:
            continue
        side, line = raw[:1], raw[1:] + b"\n"
        if side in (b"c", b"C"):
            relay.from_client(line, side == b"C")
            _client_step(model, line, server.new(), client.new())
        elif side == b"t":
            relay.expire(time.monotonic() + 2 * OPTIONS.call_timeout)
            _answers(model, client.new(), None, only_guarded=True)
            server.new()  # the cancellations toolguard sends the server
        else:
            over_long = side == b"S"
            line = line if side in (b"s", b"S") else raw + b"\n"
            relay.from_server(line, over_long)
            _answers(model, client.new(), line, only_guarded=False)
            server.new()  # toolguard's replies to the server's requests
    relay.server_gone()
    _answers(model, client.new(), None, only_guarded=True)
    assert not model.guarded, f"guarded calls never answered: {sorted(model.guarded, key=str)}"
    _escaped(stderr.getvalue())


def _client_step(model: Model, line: bytes, to_server: bytes, to_client: bytes) -> None:
    """Follow what the relay forwarded; check what it answered the client line with."""
    if to_server == line:
        message = json.loads(line)
        if isinstance(message, dict) and "method" in message:
            _forwarded(model, message)
    for answer in _lines(to_client):
        assert "error" in answer, f"a client line answered with {answer!r}"
        key = key_of(answer.get("id"))
        assert key is None or not model.open(key), (
            f"a refusal of a client line carries the id {key} of a request in flight"
        )


def _forwarded(model: Model, message: dict[str, Any]) -> None:
    params = message.get("params")
    params = params if isinstance(params, dict) else {}
    if "id" not in message:
        if message["method"] == "notifications/cancelled":
            cancelled = key_of(params.get("requestId"))
            model.guarded.pop(cancelled, None)  # type: ignore[arg-type]
            model.plain.discard(cancelled)  # type: ignore[arg-type]
        return
    key = key_of(message["id"])
    assert key is not None, f"forwarded a request with the id {message['id']!r}"
    assert not model.open(key), f"forwarded a second request with the id {key} in flight"
    name = params.get("name")
    if message["method"] == "tools/call" and isinstance(name, str) and name in GUARDS:
        model.guarded[key] = name
    else:
        model.plain.add(key)


def _answers(model: Model, written: bytes, line: bytes | None, *, only_guarded: bool) -> None:
    """Check each line the client got during a server step, a timeout or the server's end."""
    for raw in _split(written):
        message = json.loads(raw)
        passed = raw == line  # the server's own line, as it came
        if passed and isinstance(message, dict) and "method" in message:
            continue  # the server's request or notification to the client
        assert isinstance(message, dict), f"the client got {raw!r}"
        key = key_of(message.get("id"))
        assert key is not None and model.open(key), f"an answer for no request: {raw[:200]!r}"
        tool = model.guarded.pop(key, None)
        if tool is not None:
            assert not passed, "the server's own line answered a guarded call"
            _envelope_answer(message, tool)
            continue
        assert not only_guarded, f"an unguarded request answered by toolguard: {raw[:200]!r}"
        model.plain.discard(key)
        if not passed and "error" in message:
            assert seeds.CANARY not in _text(message), f"the canary reached an error: {raw!r}"


def _envelope_answer(message: dict[str, Any], tool: str) -> None:
    """The answer to a guarded call: the envelope, twice; or an interim `input_required`."""
    assert "result" in message, f"a guarded call answered with {message!r}"
    result = message["result"]
    if result.get("resultType") == "input_required":
        assert set(result) <= _INTERIM, f"an interim answer with more: {sorted(result)}"
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
    assert not _ASCII_CONTROLS.search(shown), f"a raw control character on stderr: {shown!r}"
    if not shown.isascii():
        for char in shown:
            assert char == "\n" or unicodedata.category(char) not in _REFUSED_CATEGORIES, (
                f"U+{ord(char):04X} raw on stderr"
            )


def _split(written: bytes) -> list[bytes]:
    """The lines written, each with its newline (a line passed on may hold a carriage return)."""
    assert not written or written.endswith(b"\n"), "a line written without its newline"
    return [line + b"\n" for line in written.split(b"\n")[:-1]]


def _lines(written: bytes) -> list[Any]:
    return [json.loads(raw) for raw in _split(written)]


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
        ),
        max_len=8192,
    )


if __name__ == "__main__":
    main()
