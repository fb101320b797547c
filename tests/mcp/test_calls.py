"""calls.py: a guarded call admitted or refused, and its answer judged by the contract."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from toolguard import envelope as envelopes
from toolguard.contract import Contract, load_contract
from toolguard.errors import ContractError
from toolguard.mcp.calls import Call, Guard, Refused, admit, answer_line, judge
from toolguard.mcp.jsonrpc import result_line
from toolguard.mcp.session import guards
from toolguard.parse import parse
from toolguard.pipeline import check_bytes
from toolguard.request import make_request

REPO = Path(__file__).resolve().parents[2]
PROBE = REPO / "tests" / "data" / "mcp" / "probe" / "contract.toml"
DISK_USAGE = REPO / "examples" / "disk_usage"


def _call(contract: Contract, arguments: dict[str, Any] | None = None) -> Call:
    params = {
        "name": contract.tool,
        "arguments": {"zone": "UTC"} if arguments is None else arguments,
    }
    return admit(Guard(contract, None), contract.tool, 1, params, 30.0)


def tool_result(answer: dict[str, Any], modern: bool) -> dict[str, Any]:
    """The reference: what the client receives, the envelope as text and as structure."""
    result: dict[str, Any] = {
        "content": [{"type": "text", "text": envelopes.dumps(answer).removesuffix("\n")}],
        "structuredContent": answer,
        "isError": answer["outcome"] != "success",
    }
    if modern:
        result["resultType"] = "complete"
    return result


def _judge(call: Call, line: bytes) -> Any:
    outcome = judge(call, parse(line), line)
    return outcome.envelope, outcome.diagnostics


@pytest.fixture(scope="module")
def probe() -> Contract:
    return load_contract(PROBE)


def test_the_payloads_limits_apply_to_its_bytes_as_they_stand_in_the_line(probe: Contract) -> None:
    """Compact, the payload fits max_bytes (256); spaced out in the line, it does not."""
    payload = b'{"zone": "UTC", "n": 1}'
    spaced = b'{"zone":' + b" " * 240 + b'"UTC","n":1}'
    line = b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":%s}}'
    assert _judge(_call(probe), line % payload)[0]["outcome"] == "success"
    envelope, diagnostics = _judge(_call(probe), line % spaced)
    assert envelope["error"]["code"] == "INVALID_RESPONSE"
    assert (diagnostics.layer, diagnostics.reason, diagnostics.size) == (
        "limits",
        "too_large",
        len(spaced),
    )


def test_the_context_comes_from_the_arguments(probe: Contract) -> None:
    """[mcp.context] zone = "/zone": the rule compares the answer with the zone asked for."""
    call = _call(probe, {"zone": "Europe/Paris"})
    assert dict(call.request.context) == {"zone": "Europe/Paris"}
    line = b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"zone":"UTC","n":1}}}'
    assert _judge(call, line)[1].reason == "mismatch"


@pytest.mark.parametrize(
    "arguments",
    [{}, {"zone": {"nested": "object"}}, {"zone": ["a", {"b": 1}]}],
    ids=["missing", "an object", "a list of objects"],
)
def test_a_call_whose_arguments_cannot_give_the_context_is_refused(
    probe: Contract, arguments: Any
) -> None:
    """The rule could not be checked: -32602 before anything is forwarded."""
    with pytest.raises(Refused) as refused:
        _call(probe, arguments)
    assert refused.value.code == -32602


def test_a_task_augmented_call_is_refused(probe: Contract) -> None:
    """`task` (2025-11-25) or the tasks extension (2026-07-28): -32601."""
    guard = Guard(probe, None)
    params: dict[str, Any] = {"name": "probe", "arguments": {"zone": "UTC"}, "task": {}}
    with pytest.raises(Refused):
        admit(guard, "probe", 1, params, 1.0)
    capabilities = {"extensions": {"io.modelcontextprotocol/tasks": {}}}
    params = {
        "name": "probe",
        "arguments": {"zone": "UTC"},
        "_meta": {"io.modelcontextprotocol/clientCapabilities": capabilities},
    }
    with pytest.raises(Refused) as refused:
        admit(guard, "probe", 1, params, 1.0)
    assert refused.value.code == -32601


def test_a_json_rpc_error_is_mapped_by_the_contracts_error_documents(probe: Contract) -> None:
    """-32002 matches the contract's error document: NOT_FOUND; others: UPSTREAM_UNAVAILABLE."""
    line = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32002,"message":"no such zone"}}'
    assert _judge(_call(probe), line)[0]["error"] == {"code": "NOT_FOUND", "retryable": False}
    line = b'{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"boom"}}'
    envelope, diagnostics = _judge(_call(probe), line)
    assert envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}
    assert "boom" in (diagnostics.message or "")


def test_an_unknown_result_type_is_a_failure(probe: Contract) -> None:
    """A 2026-07-28 result that is not "complete" (a task handle, anything new) is a failure."""
    result = b'{"resultType":"task","structuredContent":{"zone":"UTC","n":1}}'
    line = b'{"jsonrpc":"2.0","id":1,"result":%s}' % result
    assert _judge(_call(probe), line)[1].reason == "unknown_result_type"


def test_is_error_must_be_a_boolean(probe: Contract) -> None:
    """`"isError": "false"` is not false."""
    result = b'{"isError":"false","structuredContent":{"zone":"UTC","n":1}}'
    line = b'{"jsonrpc":"2.0","id":1,"result":%s}' % result
    assert _judge(_call(probe), line)[1].reason == "malformed_result"


def test_a_tool_error_is_a_failure_even_when_its_payload_passes(probe: Contract) -> None:
    """`isError: true` beside structured content the contract accepts: the tool said it
    failed, so the agent gets UPSTREAM_UNAVAILABLE, never the payload as a success."""
    result = b'{"isError":true,"structuredContent":{"zone":"UTC","n":1}}'
    line = b'{"jsonrpc":"2.0","id":1,"result":%s}' % result
    envelope, diagnostics = _judge(_call(probe), line)
    assert envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}
    assert diagnostics.reason == "tool_error"


def test_structured_content_is_never_taken_from_a_text_block(probe: Contract) -> None:
    """payload = "structured" (the default): a result with only a text block holding an
    acceptable payload has no payload, whatever the text says."""
    result = {"content": [{"type": "text", "text": '{"zone":"UTC","n":1}'}]}
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()
    assert _judge(_call(probe), line)[1].reason == "no_payload"


@pytest.mark.parametrize("arguments", [[], "zone=UTC", 7], ids=["array", "string", "number"])
def test_arguments_that_are_not_an_object_are_refused(probe: Contract, arguments: Any) -> None:
    """`arguments` must be an object: anything else is -32602, never read as no arguments."""
    params = {"name": "probe", "arguments": arguments}
    with pytest.raises(Refused) as refused:
        admit(Guard(probe, None), "probe", 1, params, 1.0)
    assert refused.value.code == -32602
    assert "arguments must be an object" in refused.value.message


@pytest.fixture
def text_contract(tmp_path: Path) -> Contract:
    """disk_usage (a [text] contract) with [mcp] payload = "text"."""
    folder = shutil.copytree(DISK_USAGE, tmp_path / "disk_usage")
    with (folder / "contract.toml").open("a") as contract:
        contract.write('\n[mcp]\npayload = "text"\n')
    return load_contract(folder / "contract.toml")


def test_a_text_payload_is_the_one_text_blocks_bytes(text_contract: Contract) -> None:
    """payload = "text": the text block is read by the contract's [text] reader."""
    text = (DISK_USAGE / "response.txt").read_text()
    result = {"content": [{"type": "text", "text": text}]}
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()
    call = _call(text_contract, {})
    envelope, _ = _judge(call, line)
    assert envelope["outcome"] == "success"
    result["content"].append({"type": "text", "text": "more"})
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()
    assert _judge(call, line)[1].reason == "no_payload"
    result["content"] = [{"type": "resource", "text": text}]  # a text, not a text block
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "result": result}).encode()
    assert _judge(call, line)[1].reason == "no_payload"


@pytest.mark.parametrize("reader", ["contract.toml", "contract.jc.toml"], ids=["lines", "jc"])
def test_a_text_block_is_read_whole_without_a_final_newline(tmp_path: Path, reader: str) -> None:
    """MCP servers end a text block where the string ends (`"text":"* master"`, as
    mcp-server-git and the reference servers write it): no final newline is no cut there.
    Only that newline is optional: a blank line after it is refused by the line reader (jc's
    `df` reads one as nothing, as it does in a command's output)."""
    cases = [(-1, "success"), (0, "success")]
    if reader.endswith("jc.toml"):
        pytest.importorskip("jc")
    else:
        cases.append((1, "failure"))
    folder = shutil.copytree(DISK_USAGE, tmp_path / "disk_usage")
    with (folder / reader).open("a") as contract:
        contract.write('\n[mcp]\npayload = "text"\n')
    contract = load_contract(folder / reader)
    (guard,) = guards([contract], None, ())[0].values()  # as `mcp` reads it
    text = (DISK_USAGE / "response.txt").read_text()
    for newlines, outcome in cases:
        block = text[:-1] if newlines < 0 else text + "\n" * newlines
        result = {"content": [{"type": "text", "text": block}], "isError": False}
        line = json.dumps({"jsonrpc": "2.0", "id": 3, "result": result}).encode()
        call = admit(guard, contract.tool, 1, {"name": contract.tool, "arguments": {}}, 30.0)
        assert _judge(call, line)[0]["outcome"] == outcome, repr(block[-8:])


def test_only_mcp_reads_a_text_block_whole(tmp_path: Path) -> None:
    """`check` cannot tell a text block from a command's output cut short (`ssh host df |
    toolguard check`): the same contract needs the final newline there, fixtures included."""
    folder = shutil.copytree(DISK_USAGE, tmp_path / "disk_usage")
    with (folder / "contract.toml").open("a") as contract:
        contract.write('\n[mcp]\npayload = "text"\n')
    contract = load_contract(folder / "contract.toml")
    cut = (DISK_USAGE / "response.txt").read_bytes()[:-1]
    outcome = check_bytes(contract, cut, make_request())
    assert outcome.diagnostics is not None
    assert outcome.diagnostics.reason == "unterminated_line"


def test_a_text_reader_cannot_read_structured_content(tmp_path: Path) -> None:
    """A [text] contract guarding structuredContent is refused at start (exit 3)."""
    folder = shutil.copytree(DISK_USAGE, tmp_path / "disk_usage")
    with pytest.raises(ContractError, match="reads text"):
        guards([load_contract(folder / "contract.toml")], None, ())
    with (folder / "contract.toml").open("a") as contract:
        contract.write('\n[mcp]\npayload = "structured"\n')
    with pytest.raises(ContractError, match="reads text"):
        load_contract(folder / "contract.toml")


@pytest.mark.parametrize("modern", [False, True])
def test_the_answer_is_the_envelope_twice(probe: Contract, modern: bool) -> None:
    """Text and structure carry the same envelope; isError says it is a failure."""
    answer = {
        "tool": "t",
        "request_id": "req.00000000",
        "outcome": "failure",
        "error": {"code": "NOT_FOUND", "retryable": False},
    }
    call = _call(probe)
    call = Call(call.guard, "probe", 1, call.request, modern, call.started, call.deadline)
    result = json.loads(answer_line(call, answer))["result"]
    assert json.loads(result["content"][0]["text"]) == result["structuredContent"] == answer
    assert result["isError"] is True
    assert ("resultType" in result) is modern


@pytest.mark.parametrize("modern", [False, True])
def test_the_answer_line_is_the_tool_result_as_json(probe: Contract, modern: bool) -> None:
    """The line built without re-encoding is exactly the JSON-RPC response holding tool_result."""
    call = _call(probe)
    call = Call(
        call.guard, "probe", 'x"\u00e9\u2028', call.request, modern, call.started, call.deadline
    )
    line = b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"zone":"UTC","n":1}}}'
    envelope, _ = _judge(call, line)
    written = answer_line(call, envelope)
    assert written.endswith(b"\n")
    assert written.count(b"\n") == 1
    assert json.loads(written) == {
        "jsonrpc": "2.0",
        "id": call.jsonrpc_id,
        "result": tool_result(envelope, modern),
    }


@pytest.mark.parametrize("jsonrpc_id", [7, -(2**70), 'x"\u00e9\u2028\\', "req-1"])
@pytest.mark.parametrize("modern", [False, True])
def test_the_answer_line_is_byte_for_byte_the_generic_encoding(
    probe: Contract, modern: bool, jsonrpc_id: str | int
) -> None:
    """The line built by hand is the bytes `result_line` writes for the same tool result."""
    call = _call(probe)
    call = Call(call.guard, "probe", jsonrpc_id, call.request, modern, call.started, call.deadline)
    for line in (
        b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"zone":"UTC","n":1}}}',
        b'{"jsonrpc":"2.0","id":1,"result":{"structuredContent":{"zone":"\\u00e9\\u2028"}}}',
    ):
        envelope, _ = _judge(call, line)
        assert answer_line(call, envelope) == result_line(jsonrpc_id, tool_result(envelope, modern))
