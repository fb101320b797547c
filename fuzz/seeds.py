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
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from harness import REPO, regressions

CANARY = "FUZZ-CANARY-3b9e"  # the dash keeps it out of request ids: nothing may echo it
EXAMPLES = REPO / "examples"
CONTRACTS = REPO / "tests" / "data" / "contracts"
JSON_SUITE = REPO / "tests" / "conformance" / "jsontestsuite" / "test_parsing"
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


def mirror_files() -> Iterator[Path]:
    """The files a contract seed may name, which `contract_load` copies beside its contract."""
    for root in (EXAMPLES, CONTRACTS):
        for path in sorted(root.rglob("*")):
            if path.is_file() and path.suffix != ".toml" and "fixtures" not in path.parts:
                yield path


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
