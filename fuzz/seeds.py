"""Seed corpora and dictionaries, made from the test fixtures each time a target starts.

Nothing here is committed as a blob: the seeds are the examples' fixtures, the JSON test suite,
the test contracts and request lines built from them, plus variants that carry `CANARY` (a
string that must never reach stdout from a rejected response). `examples()` is what the
pipeline and serve targets check against: every bundled example contract, its context and
its fixtures' clock, and the test suite's canary contract.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import REPO, regressions

CANARY = "FUZZ-CANARY-3b9e"  # the dash keeps it out of request ids: nothing may echo it
EXAMPLES = REPO / "examples"
CONTRACTS = REPO / "tests" / "data" / "contracts"
DIFFS = REPO / "tests" / "data" / "diff"
JSON_SUITE = REPO / "tests" / "conformance" / "jsontestsuite" / "test_parsing"
SCHEMA_SUITE = REPO / "tests" / "conformance" / "json-schema-test-suite" / "tests" / "draft2020-12"
SEED_MAX_BYTES = 65_536
REQUEST_ID = "req.fuzz.0001"
FIXTURE_NOW = "2026-03-14T09:30:00Z"
_QUOTED = re.compile(r"""(["'])([^"'\n]+)\1""")

JSON_TOKENS = (
    b"{",
    b"}",
    b"[",
    b"]",
    b":",
    b",",
    b'""',
    b"true",
    b"false",
    b"null",
    b"NaN",
    b"Infinity",
    b"-Infinity",
    b"-0",
    b"-0.0",
    b"1e999",
    b"1e-999",
    b"1E+2",
    b"0.1",
    b"9007199254740993",
    b"9223372036854775807",
    b"9223372036854775808",
    b"-9223372036854775808",
    b"12345678901234567890",
    b"1.00000000000000000001",
    b"\\u0000",
    b"\\ud800",
    b"\\udc00",
    b"\\ud83d\\ude00",
    b"\\u2028",
    b"\\ufeff",
    b"\\u200b",
    b"\\ufe0f",
    b"\\udb40\\udc41",
    b"\\\\",
    b'\\"',
    b"\\/",
    b"\xef\xbb\xbf",
    b"\xc0\x80",
    b"\xed\xa0\x80",
    b"\xf4\x90\x80\x80",
    b"\xe2\x80\xae",
    b"\xef\xb8\x8f",
    b"\xf3\xa0\x80\x81",
    b"\x0c",
    b"\x0b",
    b"\x1b[31m",
    CANARY.encode(),
)
TEXT_TOKENS = (
    b"Filesystem     1024-blocks     Used Available Capacity Mounted on\n",
    b"/dev/vda 264212084 23681792 82709120 23% /\n",
    b"\n",
    b"\r\n",
    b"\t",
    b" ",
    b"%",
    b"/",
    b"0",
    b"007",
    b"9999999999999999999",
    b"\xc2\xa0",
    b"\xe2\x80\xa8",
    b"\xef\xb8\x8f",
    b"\xe3\x85\xa4",
    b"\x1b[31m",
    CANARY.encode(),
)

# Draft 2020-12's keywords as member names, and the values that steer them.
SCHEMA_TOKENS = (
    *(
        f'"{keyword}":'.encode()
        for keyword in (
            "$schema", "$id", "$ref", "$anchor", "$dynamicRef", "$dynamicAnchor", "$defs",
            "$vocabulary", "$comment", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
            "dependentSchemas", "prefixItems", "items", "contains", "properties",
            "patternProperties", "additionalProperties", "propertyNames",
            "unevaluatedItems", "unevaluatedProperties", "type", "enum", "const",
            "multipleOf", "maximum", "exclusiveMaximum", "minimum", "exclusiveMinimum",
            "maxLength", "minLength", "pattern", "maxItems", "minItems", "uniqueItems",
            "maxContains", "minContains", "maxProperties", "minProperties", "required",
            "dependentRequired", "format", "contentEncoding", "contentMediaType",
            "contentSchema", "title", "description", "default", "deprecated", "readOnly",
            "writeOnly", "examples",
        )
    ),
    b'"#"',
    b'"#/$defs/a"',
    b'"https://json-schema.org/draft/2020-12/schema"',
    b'"integer"',
    b'"string"',
    b'"object"',
    b'"array"',
    b'"number"',
    b'"^(a|b)*$"',
    b'"\\p{L}"',
    b'"date-time"',
    b'"idn-hostname"',
)  # fmt: skip

# Pieces of the formats' grammars, and characters their RFCs single out.
FORMAT_TOKENS = (
    b"2026-03-14", b"T", b"09:30:60", b".5", b"Z", b"+23:59", b"-00:00",
    b"::", b"::ffff:", b"192.168.0.1", b"%eth0", b"fe80", b"0x", b"01",
    b"xn--", b"xn--nxasmq6b", b"-", b".", b"\xe3\x80\x82", b"\xef\xbc\x8e", b"\xe2\x80\x8d",
    b"\xe2\x80\x8c", b"\xc2\xb7", b"\xcd\xb5", b"\xd7\xb3", b"\xe3\x83\xbb", b"\xd9\xa0",
    b"@", b'"', b"\\", b"[IPv6:", b"]", b"mailto:", b"http://", b"//", b"?", b"#", b"%2F",
    b"%zz", b"{", b"}", b"{+", b"{#", b":3", b"*", b"~0", b"~1", b"~2", b"0#", b"/",
    b"P", b"1Y", b"2W", b"T1H", b"(?<n>", b"\\p{L}", b"[^", b"a{1,2}", b"(?=",
    b"00000000-0000-0000-0000-000000000000",
)  # fmt: skip


@dataclass(frozen=True, slots=True)
class Example:
    """A bundled contract and what its fixtures are checked with."""

    contract: Path
    context: dict[str, Any]
    now: str
    request_id: str
    fixtures: Path | None  # None: no fixture folder (the canary contract)


def examples() -> list[Example]:
    """Every bundled example contract (the jc one too), then the test suite's canary contract."""
    found = []
    for contract in sorted(EXAMPLES.glob("*/contract*.toml")):
        folder = contract.parent
        context = json.loads((folder / "context.json").read_text("utf-8"))
        settings = tomllib.loads((folder / "fixtures" / "fixtures.toml").read_text("utf-8"))
        found.append(
            Example(
                contract,
                context,
                settings.get("now", FIXTURE_NOW),
                settings.get("request_id", REQUEST_ID),
                folder / "fixtures",
            )
        )
    canary = CONTRACTS / "good" / "canary" / "contract.toml"
    found.append(Example(canary, {"owner": "alice"}, FIXTURE_NOW, REQUEST_ID, None))
    return found


def fixture_files(example: Example) -> Iterator[Path]:
    """The example's response fixtures (accept, reject, history), without goldens or contexts."""
    if example.fixtures is None:
        return
    for path in sorted(example.fixtures.rglob("*")):
        if path.suffix in (".json", ".txt") and not path.name.endswith(
            (".expected.json", ".context.json")
        ):
            yield path


def json_documents() -> dict[str, bytes]:
    """Seeds of the strict parser: every JSON fixture, the JSON test suite, canary variants."""
    seeds = {}
    for path in sorted(EXAMPLES.rglob("*.json")) + sorted(JSON_SUITE.glob("*.json")):
        raw = path.read_bytes()
        if len(raw) <= SEED_MAX_BYTES:
            seeds[_name(path)] = raw
    seeds.update(_canary_documents())
    seeds.update(regressions("strict_parse"))
    return seeds


def text_outputs() -> dict[str, bytes]:
    """Seeds of the text adapter: the disk_usage example's output and fixtures, with a canary."""
    folder = EXAMPLES / "disk_usage"
    seeds = {_name(path): path.read_bytes() for path in sorted(folder.rglob("*.txt"))}
    seeds["canary.txt"] = _canary_text()
    seeds.update(regressions("text_adapter"))
    return seeds


def responses() -> dict[str, bytes]:
    """Seeds of the pipeline: every example's fixtures and every canary variant."""
    seeds = {}
    for example in examples():
        for path in fixture_files(example):
            seeds[_name(path)] = path.read_bytes()
    seeds.update(_canary_documents())
    seeds["canary.txt"] = _canary_text()
    owner = {"owner": "alice", "count": 3}
    seeds["canary-owner.json"] = json.dumps({**owner, "note": CANARY}).encode()
    seeds["canary-probe.json"] = json.dumps(owner).encode()
    seeds.update(regressions("pipeline_check"))
    return seeds


def contracts() -> dict[str, bytes]:
    """Seeds of the loader: every example and test contract, file names rewritten for `mirror`."""
    seeds = {}
    for path in sorted(EXAMPLES.glob("*/contract*.toml")) + sorted(
        CONTRACTS.glob("*/*/contract.toml")
    ):
        seeds[_name(path)] = _relocated(path)
    seeds.update(regressions("contract_load"))
    return seeds


def contract_pairs() -> dict[str, bytes]:
    """Seeds of the diff: OLD NUL NEW, from the diff tests' pairs (both ways) and the examples.

    A seed without a NUL is a contract diffed against itself: each example and good test one.
    """
    pairs = {}
    for case in sorted(path for path in DIFFS.iterdir() if path.is_dir()):
        old, new = (_relocated(case / side / "contract.toml") for side in ("old", "new"))
        pairs[f"{case.name}"] = old + b"\0" + new
        pairs[f"{case.name}-reversed"] = new + b"\0" + old
    for path in sorted(EXAMPLES.glob("*/contract*.toml")) + sorted(
        CONTRACTS.glob("good/*/contract.toml")
    ):
        pairs[f"self-{_name(path)}"] = _relocated(path)
    pairs["examples-jc"] = b"\0".join(
        _relocated(EXAMPLES / "disk_usage" / name) for name in ("contract.toml", "contract.jc.toml")
    )
    pairs["examples-signed"] = b"\0".join(
        _relocated(EXAMPLES / name / "contract.toml")
        for name in ("review_status", "review_status_signed")
    )
    pairs.update(regressions("contract_diff"))
    return pairs


def schemas() -> dict[str, bytes]:
    """Seeds of the schema compiler: each test group of the 2020-12 suite, optional ones too.

    A seed is the group's schema, a NUL, then its first test's instance (see
    `fuzz/schema_compile.py`); each is compiled once per start, so the groups are all there
    is (a few hundred), not each test.
    """
    seeds = {}
    for path in sorted(SCHEMA_SUITE.rglob("*.json")):
        for index, group in enumerate(json.loads(path.read_text("utf-8"))):
            instance = group["tests"][0]["data"] if group["tests"] else None
            seeds[f"{_name(path)}-{index}"] = (
                json.dumps(group["schema"]).encode() + b"\0" + json.dumps(instance).encode()
            )
    seeds.update(regressions("schema_compile"))
    return seeds


def format_strings() -> dict[str, bytes]:
    """Seeds of the format checkers: every string the suite's `format` tests check, UTF-8."""
    seeds = {}
    for path in sorted((SCHEMA_SUITE / "optional" / "format").glob("*.json")):
        tests = [test for group in json.loads(path.read_text("utf-8")) for test in group["tests"]]
        for index, test in enumerate(tests):
            if isinstance(test["data"], str):
                seeds[f"{path.stem}-{index}"] = test["data"].encode()
    seeds.update(regressions("format_check"))
    return seeds


def mirror_files() -> Iterator[Path]:
    """The files a contract seed may name, which `mirror` copies beside its contract."""
    for root in (EXAMPLES, CONTRACTS, DIFFS):
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix != ".toml" and "fixtures" not in path.parts:
                yield path


def mirror(folder: Path) -> None:
    """Copy `mirror_files` into `folder`, at their paths in the repository (as seeds name them)."""
    for path in mirror_files():
        target = folder / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)


def request_lines() -> dict[str, bytes]:
    """Seeds of serve: a request line per example fixture, canary variants and bad lines."""
    seeds = {}
    for example in examples():
        if example.contract.name != "contract.toml":
            continue  # serve answers to tool names, and the jc contract shares its tool's
        tool = tomllib.loads(example.contract.read_text("utf-8"))["tool"]
        for path in fixture_files(example):
            context_file = path.with_name(f"{path.name.split('.')[0]}.context.json")
            context = (
                json.loads(context_file.read_text("utf-8"))
                if context_file.exists()
                else example.context
            )
            seeds[_name(path)] = request_line(tool, path.read_bytes(), context, example.now)
    for name, raw in _canary_documents().items():
        seeds[f"line-{name}"] = request_line(
            "review_status", raw, {"change_id": "CR-1042"}, FIXTURE_NOW
        )
    seeds["line-canary.txt"] = request_line("disk_usage", _canary_text(), {}, FIXTURE_NOW)
    bad = [
        b"{}\n",
        b"[]\n",
        b"null\n",
        b'{"raw": 1}\n',
        b'{"raw": "{}", "encoding": "hex"}\n',
        b'{"raw": "{}", "contract": "nope"}\n',
        b'{"raw": "{}", "request_id": "bad id"}\n',
        b'{"raw": "{}", "raw": "{}"}\n',
        b'{"raw": "{}", "extra": true}\n',
        b'{"raw": null}\n',
        b'{"raw": "e30=", "encoding": "base64", "contract": "review_status"}\n',
        b'{"raw": "{}", "contract": "review_status", "now": "yesterday"}\n',
        b'{"raw": "{}", "contract": "review_status", "context": []}\n',
        f'{{"raw": "{CANARY}", "contract": "review_status"}}\n'.encode(),
    ]
    for index, line in enumerate(bad):
        seeds[f"bad-{index}"] = line
    seeds.update(regressions("serve_lines"))
    return seeds


def request_line(tool: str, raw: bytes, context: dict[str, Any], now: str) -> bytes:
    """A serve request for `raw`: as text when it is UTF-8, else base64."""
    request: dict[str, Any] = {"contract": tool, "request_id": REQUEST_ID}
    if context:
        request["context"] = context
    request["now"] = now
    try:
        request["raw"] = raw.decode("utf-8")
    except UnicodeDecodeError:
        request["raw"] = base64.b64encode(raw).decode("ascii")
        request["encoding"] = "base64"
    return json.dumps(request).encode("ascii") + b"\n"


def toml_tokens() -> list[bytes]:
    """The contract schema's member names and string constants, and TOML's punctuation."""
    schema = json.loads((REPO / "schemas" / "contract.schema.json").read_text("utf-8"))
    words: set[str] = set()
    stack: list[Any] = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if isinstance(node.get("properties"), dict):
                words.update(node["properties"])
            words.update(item for item in node.get("enum", ()) if isinstance(item, str))
            if isinstance(node.get("const"), str):
                words.add(node["const"])
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    punctuation = ["[[rules]]", "[text]", "[limits]", "[run]", " = ", '"', "'''", "\n", "[", "]"]
    return sorted(word.encode("utf-8") for word in words | set(punctuation))


def _canary_documents() -> dict[str, bytes]:
    """Each accepted JSON fixture with the canary in one of its strings, names or members."""
    seeds = {}
    for example in examples():
        if example.fixtures is None:
            continue
        for path in sorted((example.fixtures / "accept").glob("*.json")):
            if path.name.endswith((".expected.json", ".context.json")):
                continue
            document = json.loads(path.read_bytes())
            for index, variant in enumerate(_with_canary(document)):
                raw = json.dumps(variant, ensure_ascii=index % 2 == 0).encode("utf-8")
                seeds[f"canary-{path.parent.parent.parent.name}-{path.stem}-{index}"] = raw
    return seeds


def _with_canary(document: Any) -> Iterator[Any]:
    """Copies of `document`: the canary appended to each top-level string, as a name, a value."""
    if not isinstance(document, dict):
        return
    for key, value in document.items():
        if isinstance(value, str):
            yield {**document, key: value + CANARY}
            yield {**document, key: CANARY}
    yield {**document, CANARY: 1}
    yield {**document, "note": CANARY}


def _canary_text() -> bytes:
    """The disk_usage example's output with the canary in a mount point."""
    text = (EXAMPLES / "disk_usage" / "fixtures" / "accept" / "df_p.txt").read_text("utf-8")
    return text.replace("/mnt/build cache", f"/mnt/{CANARY}").encode("utf-8")


def _relocated(contract: Path) -> bytes:
    """The contract's bytes with each file it names made relative to the repository."""

    def relocate(match: re.Match[str]) -> str:
        quote, value = match.groups()
        target = (contract.parent / value).resolve()
        if target.is_file() and target.is_relative_to(REPO) and target.suffix != ".toml":
            return f"{quote}{target.relative_to(REPO).as_posix()}{quote}"
        return match.group(0)

    # NOTE: surrogateescape: a test contract that is not UTF-8 stays byte for byte what it is.
    text = contract.read_bytes().decode("utf-8", "surrogateescape")
    return _QUOTED.sub(relocate, text).encode("utf-8", "surrogateescape")


def _name(path: Path) -> str:
    """A seed's file name: readable, and unique however deep the fixture lies."""
    relative = path.relative_to(REPO).as_posix()
    digest = hashlib.sha256(relative.encode()).hexdigest()[:8]
    return f"{path.parent.name}-{path.stem}-{digest}"


MCP_CONTRACTS = (
    EXAMPLES / "get_current_time" / "contract.toml",
    REPO / "tests" / "data" / "mcp" / "probe" / "contract.toml",
    CONTRACTS / "good" / "mcp" / "contract.toml",
)


def mcp_contracts() -> tuple[Path, ...]:
    """The contracts the relay target guards: each with an `[mcp]` table (one renames a tool)."""
    return MCP_CONTRACTS


def relay_sessions() -> dict[str, bytes]:
    """Seeds of the relay: sessions of client (`c`) and server (`s`) lines, timeouts (`t`)."""
    calls = [  # (tool on the server, arguments, accepted payload)
        ("probe", {"zone": "UTC"}, {"zone": "UTC", "n": 2}),
        ("reviews.get-status", {"change": {"id": "CR-1042"}}, {"change_id": "CR-1042"}),
    ]
    paris = (EXAMPLES / "get_current_time" / "fixtures" / "accept" / "paris.json").read_bytes()
    calls.append(("get_current_time", {"timezone": "Europe/Paris"}, json.loads(paris)))
    hello = [
        _rpc("c", 0, method="initialize", params={"protocolVersion": "2025-06-18"}),
        _rpc("s", 0, result={"protocolVersion": "2025-06-18", "instructions": CANARY}),
        _rpc("c", None, method="notifications/initialized"),
        _rpc("c", "list", method="tools/list"),
        _rpc(
            "s", "list", result={"tools": [{"name": name, "inputSchema": {}} for name, *_ in calls]}
        ),
    ]
    found: dict[str, bytes] = {"hello": b"".join(hello)}
    for index, (tool, arguments, payload) in enumerate(calls):
        call = _rpc(
            "c", index + 1, method="tools/call", params={"name": tool, "arguments": arguments}
        )
        answers = {
            "accepted": {"content": [], "structuredContent": payload},
            "canary": {"content": [], "structuredContent": {**payload, "note": CANARY}},
            "tool-error": {"isError": True, "content": [{"type": "text", "text": CANARY}]},
            "interim": {"resultType": "input_required", "inputRequests": {}},
        }
        for name, result in answers.items():
            script = [*hello, call, _rpc("s", index + 1, result=result)]
            found[f"{tool}-{name}"] = b"".join(script)
        error = {"code": -32000, "message": CANARY}
        found[f"{tool}-rpc-error"] = b"".join([call, _rpc("s", index + 1, error=error)])
        cancel = _rpc("c", None, method="notifications/cancelled", params={"requestId": index + 1})
        late = _rpc("s", index + 1, result=answers["accepted"])
        found[f"{tool}-cancelled"] = b"".join([call, cancel, late, call])
        found[f"{tool}-timeout"] = b"".join([call, b"t\n", late, call])
        found[f"{tool}-unreadable"] = call + b's{"jsonrpc":"2.0","id":%d,"result":{,}}\n' % (
            index + 1
        )
        found[f"{tool}-banner"] = call + f"s[INFO] {CANARY}\n".encode()
        found[f"{tool}-gone"] = call
    echo = _rpc("c", "e", method="tools/call", params={"name": "echo", "arguments": {}})
    found["unguarded"] = echo + _rpc("s", "e", result={"content": [{"type": "text", "text": "hi"}]})
    ask = _rpc("s", 7, method="sampling/createMessage", params={})
    found["server-request"] = ask + _rpc("c", 7, result={}) + _rpc("c", 7, result={})
    found["duplicate-id"] = _rpc("c", 1, method="ping") + _rpc("c", 1, method="ping")
    found["batch"] = echo + b's[{"jsonrpc":"2.0","id":"e","result":{}}]\n'
    traffic = _channel_traffic(calls[0][0], calls[0][1])
    for names in (*SHUT_CHANNELS, "resources,sampling", "all", "", "bogus"):
        found[f"shut-{names.replace(',', '-') or 'none'}"] = f"!{names}\n".encode() + traffic
    found.update(regressions("mcp_relay"))
    return found


# `--shut-channel` names, for the relay's seeds: a script's first line `!NAMES` shuts them.
SHUT_CHANNELS = ("resources", "prompts", "completions", "logging", "progress", "sampling")
SHUT_CHANNELS += ("elicitation",)
MODERN = {"io.modelcontextprotocol/protocolVersion": "2026-07-28"}


def _channel_traffic(tool: str, arguments: dict[str, Any]) -> bytes:
    """A session using every channel both ways, and MCP's own methods, around guarded calls.

    The same script follows each `!NAMES` line: what the relay refuses, drops, withholds or
    fails differs with the channels shut, and the target's model says which.
    """
    capabilities = {name: {} for name in ("tools", "resources", "prompts", "logging")}
    # The client's, with 2025-11-25's task support for the two channels it serves.
    tasks = {"requests": {"sampling": {"createMessage": {}}, "elicitation": {"create": {}}}}
    able = {"sampling": {}, "elicitation": {"form": {}}, "roots": {}, "tasks": tasks}
    hello = {"protocolVersion": "2025-11-25", "capabilities": able}
    script = [
        _rpc("c", 0, method="initialize", params=hello),
        _rpc("s", 0, result={"capabilities": {**capabilities, "completions": {}}}),
        _rpc("c", "d", method="server/discover"),
        _rpc("s", "d", result={"capabilities": {"prompts": {"listChanged": True}}}),
    ]
    client_methods = [
        "resources/read",
        "prompts/get",
        "completion/complete",
        "logging/setLevel",
        "vendor/x",
        "ping",
        "tools/list",
    ]
    for index, method in enumerate(client_methods):
        script += [_rpc("c", f"q{index}", method=method), _rpc("s", f"q{index}", result={})]
    modern = {**MODERN, "io.modelcontextprotocol/clientCapabilities": able}
    complete = {"resultType": "complete", "note": CANARY}
    for index, ping in enumerate(({}, {"_meta": modern})):  # a ping of each era
        script += [
            _rpc("c", f"p{index}", method="ping", params=ping),
            _rpc("s", f"p{index}", result=complete),
        ]
    call = {"name": tool, "arguments": arguments, "_meta": modern}
    script.append(
        _rpc("c", 1, method="tools/call", params={**call, "_meta": {"progressToken": 1, **modern}})
    )
    server_methods = [
        "sampling/createMessage",
        "elicitation/create",
        "roots/list",
        "ping",
        "vendor/ask",
    ]
    for index, method in enumerate(server_methods):
        script += [
            _rpc("s", f"r{index}", method=method, params={}),
            _rpc("c", f"r{index}", result={}),
        ]
    progress = {"progressToken": 1, "progress": 1, "total": 2, "message": CANARY}
    notices = {
        "notifications/progress": progress,
        "notifications/resources/updated": {"uri": "file:///x"},
        "notifications/prompts/list_changed": {},
        "notifications/message": {"level": "info", "data": CANARY},
        "notifications/elicitation/complete": {"elicitationId": "e"},
        "notifications/tools/list_changed": {},
        "notifications/vendor": {},
    }
    script += [_rpc("s", None, method=method, params=params) for method, params in notices.items()]
    asks = {
        "a": {"method": "sampling/createMessage", "params": {"messages": []}},
        "b": {"method": "elicitation/create", "params": {}},
    }
    for index, ask in enumerate(
        ({"a": asks["a"]}, {"b": asks["b"]}, {"r": {"method": "roots/list"}})
    ):
        interim = {"resultType": "input_required", "inputRequests": ask, "requestState": "s"}
        script += [
            _rpc("s", index + 1, result=interim),
            _rpc("c", index + 2, method="tools/call", params=call),
        ]
    script.append(_rpc("s", 4, result={"resultType": "input_required", "inputRequests": 7}))
    script.append(_rpc("c", None, method="notifications/roots/list_changed"))
    return b"".join(script)


def _rpc(side: str, request_id: Any, **members: Any) -> bytes:
    """One script line: `side`, then a JSON-RPC message (no id when `request_id` is None)."""
    message: dict[str, Any] = {"jsonrpc": "2.0"}
    if request_id is not None:
        message["id"] = request_id
    message.update(members)
    return side.encode() + json.dumps(message, separators=(",", ":")).encode() + b"\n"


SIGNED_INTEROP = REPO / "tests" / "data" / "signed" / "interop"
SIGNED_MAX_LEN = 8192


def signed_cases() -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """Every interop case (its file's document, the case) whose key set a contract accepts."""
    found = []
    for path in sorted(SIGNED_INTEROP.glob("*.json")):
        document = json.loads(path.read_text("utf-8"))
        for name in sorted(document["cases"]):
            case = document["cases"][name]
            if not isinstance(case["expect"], dict):  # {"contract_refused": ...}
                found.append((document, case))
    return found


def signed_policy(document: dict[str, Any], case: dict[str, Any]) -> Any:
    """The `signed` rule an interop case states, at `/attestation` (`ValueError`: refused).

    Its key set, algorithms, issuer, audience and options are the case's. NOTE:
    `tests/signed/test_interop.py` builds each case's policy here too: tests import fuzz's
    modules (as `tests/fuzz/` does), fuzz never imports tests' code (it needs PyJWT).
    """
    # NOTE: toolguard only now: a target imports it instrumented, after this module.
    from toolguard.rules import ContractFile, signed  # noqa: PLC0415

    keys = ContractFile("keys.jwks.json", json.dumps(document["key_sets"][case["keys"]]).encode())
    issuer, audience = document["issuer"], case.get("audience")
    options = case.get("options", {})
    return signed(
        "attested", "/attestation", keys, case["algorithms"], issuer, audience=audience, **options
    )


def signed_tokens() -> dict[str, bytes]:
    """Seeds of the signed target: each case's token, led by the byte picking its policy."""
    cases = signed_cases()
    assert len(cases) <= 256, "a policy per case: one leading byte picks it"
    seeds = {}
    for index, (document, case) in enumerate(cases):
        token = case["token"]
        text = token if isinstance(token, str) else json.dumps(token)
        maker = document["made_by"].split()[0].lower()
        seeds[f"{maker}-{index}"] = bytes([index]) + text.encode("utf-8")
    seeds.update(regressions("signed_token"))
    return seeds


AUDIT_NOW = "2026-03-14T09:30:00.000000Z"


def audit_logs() -> dict[str, bytes]:
    """Seeds of the audit readers: logs of the records toolguard writes for the examples.

    One log per example (records of its first fixtures, as `check` and as `mcp` would write
    them: a few, as each costs a rendering), one of every example's first record, and
    hand-edited variants: escapes of a request id's
    characters, control characters and the canary in strings, a stray line.
    """
    # NOTE: toolguard only now: a target imports it instrumented, after this module.
    from datetime import datetime  # noqa: PLC0415

    from toolguard import load_contract  # noqa: PLC0415
    from toolguard.audit import record  # noqa: PLC0415
    from toolguard.pipeline import check_bytes  # noqa: PLC0415
    from toolguard.request import make_request  # noqa: PLC0415

    now = datetime.fromisoformat(AUDIT_NOW)
    logs: dict[str, bytes] = {}
    for example in examples():
        contract = load_contract(example.contract)
        lines = []
        for index, path in enumerate(fixture_files(example)):
            request = make_request(REQUEST_ID, example.context, now)
            outcome = check_bytes(contract, path.read_bytes(), request)
            source = (
                record.Source("mcp", tool=contract.tool, jsonrpc_id=index)
                if index % 3 == 2
                else record.Source("stdin")
            )
            command = "mcp" if index % 3 == 2 else "check"
            built = record.build(
                outcome, contract, request, command=command, source=source, now=now
            )
            lines.append(record.encode(built))
        if lines:
            logs[f"log-{example.contract.parent.name}-{example.contract.stem}"] = b"".join(
                lines[:3]
            )
    every = b"".join(log.splitlines(keepends=True)[0] for log in logs.values())
    logs["every-example"] = every
    first = every.splitlines(keepends=True)[0]
    logs["escaped-id"] = first.replace(b'"req.', b'"\\u0072eq.', 1)
    logs["control-tool"] = first.replace(b'"tool":"', b'"tool":"\\u001b[31m\\u0085', 1)
    logs["canary-tool"] = first.replace(b'"tool":"', f'"tool":"{CANARY}\\u202e'.encode(), 1)
    logs["stray"] = first + b"not a record \x1b[2J\n" + first[:-1]
    logs["rare-fields"] = _rare_record(first)
    logs.update(regressions("audit_log"))
    return logs


def _rare_record(line: bytes) -> bytes:
    """`line`'s record as `run` would write it, with every member that is written only at times.

    Attempts (a signal, a timeout, stderr with escapes, a spawn error), raw copies kept and
    not, projected values and `truncated`: no example's fixture makes them, and byte
    mutations alone rarely build a valid record that holds one.
    """
    from toolguard.audit import record  # noqa: PLC0415 - see `audit_logs`

    digest = "0" * 64
    attempt = {"number": 1, "outcome": "failure", "duration_ms": 1.5, "stdout_size": 0}
    entry = {
        **json.loads(line),
        "command": "run",
        "upstream": {
            "kind": "command",
            "argv": ["tool", "--flag=\x1b[2J", CANARY],
            "exit_status": 3,
            "signal": 9,
            "duration_ms": 2.5,
            "attempts": [
                {**attempt, "signal": 9, "timed_out": True, "stderr_size": 4, "stderr": "\x1b[2J"},
                {**attempt, "number": 2, "exit_status": 3, "stderr_size": 0, "over_limit": True},
                {**attempt, "number": 3, "spawn_error": "ENOENT \u202e", "stderr_size": 0},
                {
                    **attempt,
                    "number": 4,
                    "outcome": "success",
                    "stdout_size": 2,
                    "stdout_sha256": digest,
                    "stderr_size": 0,
                    "error_code": "INVALID_RESPONSE",
                    "layer": "parse",
                    "reason": "trailing\u0085",
                },
            ],
        },
        "raw": [{"sha256": digest, "kept": True}, {"sha256": digest, "kept": False, "why": "full"}],
        "context": {"user": "u", "ids": [1, None], "token": {"hmac_sha256": digest}},
        "projected_fields": ["a"],
        "projected_values": {"a": ["\u2028", {"b": CANARY}]},
        "truncated": True,
    }
    encoded = json.dumps(entry, ensure_ascii=True, separators=(",", ":")).encode() + b"\n"
    assert record.decode(encoded) is not None, "the rare-fields seed is no valid record"
    return encoded
