"""`screen.vouched`: a line it vouches for is read exactly as `record.decode` reads it.

Differential throughout: the reference is `record.decode` (the strict parser, then the shipped
record schema). The screen may defer any line; it may never return a record the strict path
refuses, nor one that differs from the strict path's in any value or type.
"""

from __future__ import annotations

import hashlib
import json
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from functools import cache, partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies import (
    HOSTILE_FRAGMENTS,
    json_floats,
    json_integers,
    json_scalars,
    json_values,
    number_texts,
    objects_with_duplicate_member,
    same_json,
)

from toolguard.audit import record
from toolguard.audit.keys import keyed_hash
from toolguard.contract import load_contract
from toolguard.contract.find import contract_paths
from toolguard.explain import screen
from toolguard.explain.summary import summarize
from toolguard.fixtures.discover import discover
from toolguard.fixtures.run import run_case
from toolguard.request import make_request, read_context_file
from toolguard.shipped import shipped_schema

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
KEY = b"k" * 32
NUMBER = "\x00number\x00"  # stands for a raw number token in a dumped record (see `_line`)


def agrees(line: bytes) -> dict[str, Any] | None:
    """Assert the screen defers or returns what the strict path returns; give the latter."""
    strict = record.decode(line)
    vouched = screen.vouched(line)
    assert vouched is None or same_json(vouched, strict), (line, vouched, strict)
    return strict


@contextmanager
def screen_off() -> Iterator[None]:
    """Every line through `record.decode` alone, as before the screen."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(screen, "vouched", lambda _line: None)
        yield


def summaries(lines: list[bytes]) -> tuple[Any, Any]:
    """`summarize` of a log of `lines`, with the screen and without it."""
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        path.write_bytes(b"".join(line + b"\n" for line in lines))
        with_screen = summarize(path)
        with screen_off():
            return with_screen, summarize(path)


# --- the corpus: every example fixture's record, as toolguard writes it --------------------


@cache
def corpus() -> tuple[bytes, ...]:
    """The record line of each fixture of each example, as `check` and `run` would log it."""
    lines = []
    for contract_path in contract_paths([EXAMPLES]):
        suite = discover(contract_path)
        if suite.settings is None:
            continue
        contract = load_contract(contract_path)
        for case in suite.cases:
            outcome = run_case(case, contract, suite.settings).outcome
            if outcome is None:
                continue
            context = read_context_file(case.context_file) if case.context_file else {}
            request = make_request(suite.settings.request_id, context, suite.settings.now)
            for command, source in (
                ("check", record.Source("stdin")),
                ("mcp", record.Source("mcp", tool=contract.tool, jsonrpc_id=7)),
            ):
                built = record.build(
                    outcome,
                    contract,
                    request,
                    command=command,
                    source=source,
                    hash_secret=partial(keyed_hash, KEY),
                    now=datetime(2026, 3, 1, 12, 0, tzinfo=UTC),
                )
                lines.append(record.encode(built).rstrip(b"\n"))
    return tuple(lines)


def test_the_screen_was_written_for_the_shipped_record_schema() -> None:
    """A changed record schema fails here, so that the screen's checks are updated with it."""
    schema = shipped_schema("audit-record.schema.json").read_bytes()
    assert hashlib.sha256(schema).hexdigest() == screen.SCHEMA_SHA256


def test_every_corpus_record_is_vouched_for_exactly_as_the_strict_path_reads_it() -> None:
    """Each record toolguard writes for the example fixtures is vouched for, value for value."""
    assert len(corpus()) > 50
    for line in corpus():
        strict = agrees(line)
        assert strict is not None
        if b"\\ud" not in line.lower():
            assert screen.vouched(line) is not None, line


def _containers(value: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """The path of every object and array in `value`, itself included."""
    if isinstance(value, dict | list):
        yield path
        items = value.items() if isinstance(value, dict) else enumerate(value)
        for key, item in items:
            yield from _containers(item, (*path, key))


def _at(value: Any, path: tuple[Any, ...]) -> Any:
    for key in path:
        value = value[key]
    return value


# --- every member, and one edit at a time -----------------------------------------------------

SHA = "0123456789abcdef" * 4
FULL: dict[str, Any] = {
    "format": 1,
    "timestamp": "2026-03-01T12:00:00.000000Z",
    "request_id": "req.full.0001",
    "toolguard": "0.1.0",
    "command": "run",
    "contract": {"path": "/c/contract.toml", "tool": "t", "version": "1.0.0", "sha256": SHA},
    "adapter": {"kind": "jc", "parser": "df", "version": "1.25"},
    "context": {"a": "x", "b": [1, 2.5, True, None, "y"], "secret": {"hmac_sha256": SHA}},
    "upstream": {
        "kind": "command",
        "file": "f",
        "argv": ["df", "-P"],
        "tool": "t",
        "jsonrpc_id": 7,
        "exit_status": 1,
        "signal": -9,
        "duration_ms": 1.5,
        "attempts": [
            {
                "number": 1,
                "outcome": "failure",
                "duration_ms": 0.25,
                "exit_status": 1,
                "signal": 9,
                "timed_out": True,
                "over_limit": True,
                "spawn_error": "e",
                "stdout_size": 0,
                "stdout_sha256": SHA,
                "stderr_size": 3,
                "stderr": "err",
                "error_code": "UPSTREAM_UNAVAILABLE",
                "layer": "upstream",
                "reason": "r",
            }
        ],
    },
    "input": {"size": 12, "sha256": SHA},
    "raw": [{"sha256": SHA, "kept": True}, {"sha256": SHA, "kept": False, "why": "w"}],
    "outcome": "failure",
    "duration_ms": 3,
    "envelope_sha256": SHA,
    "error_code": "INVALID_RESPONSE",
    "retryable": False,
    "layer": "rule",
    "reason": "mismatch",
    "rule": "equals_context",
    "schema_path": "/properties/a",
    "instance_path": "/a",
    "offset": 0,
    "message": "m",
    "projected_fields": ["a"],
    "projected_values": {"a": {"b": [1.0, {"c": "d"}]}, "n": None},
    "truncated": True,
}


def edited(path: str, value: Any = None, *, drop: bool = False) -> bytes:
    """FULL with the member at the `/`-separated path set to `value` (or dropped), as a line."""
    built = json.loads(json.dumps(FULL))
    *parents, last = path.split("/")
    holder = _at(built, tuple(int(key) if key.isdigit() else key for key in parents))
    if drop:
        del holder[last]
    else:
        holder[int(last) if last.isdigit() else last] = value
    return json.dumps(built, separators=(",", ":")).encode()


def test_a_record_with_every_member_is_vouched_for() -> None:
    """Every member the schema allows, set, is read at C speed and exactly as strictly."""
    line = json.dumps(FULL, separators=(",", ":")).encode()
    assert agrees(line) == FULL
    assert screen.vouched(line) == FULL


DEEP = {"a": {"b": [{"c": [{"d": [1]}]}]}}  # 8 levels, the record and projected_values included
TOO_DEEP = {"a": {"b": [{"c": [{"d": [[1]]}]}]}}


EDITS = [
    pytest.param(edited("retryable", drop=True), False, id="error_code without retryable"),
    pytest.param(edited("format", 1.0), True, id="format 1.0"),
    pytest.param(edited("format", 2), False, id="format 2"),
    pytest.param(edited("format", True), False, id="format true"),
    pytest.param(edited("truncated", False), False, id="truncated false"),
    pytest.param(edited("upstream/attempts/0/timed_out", False), False, id="timed_out false"),
    pytest.param(edited("timestamp", "2026-02-30T12:00:00.000000Z"), False, id="february 30"),
    pytest.param(edited("timestamp", "2026-03-01T12:00:00Z"), True, id="no fraction"),
    pytest.param(edited("timestamp", "2026-03-01T12:00:00.000000+00:00"), False, id="offset"),
    pytest.param(edited("request_id", "req.123"), False, id="request id of 7"),
    pytest.param(edited("request_id", "r" * 65), False, id="request id of 65"),
    pytest.param(edited("request_id", "req.full.0001\n"), False, id="request id newline"),
    pytest.param(edited("envelope_sha256", SHA.upper()), False, id="sha256 upper case"),
    pytest.param(edited("envelope_sha256", SHA[:63]), False, id="sha256 of 63"),
    pytest.param(edited("envelope_sha256", SHA + "0"), False, id="sha256 of 65"),
    pytest.param(edited("toolguard", "v" * 64), True, id="toolguard of 64"),
    pytest.param(edited("toolguard", "v" * 65), False, id="toolguard of 65"),
    pytest.param(edited("duration_ms", -1), False, id="negative duration"),
    pytest.param(edited("duration_ms", -0.5), False, id="negative float duration"),
    pytest.param(edited("upstream/duration_ms", True), False, id="boolean duration"),
    pytest.param(edited("offset", -1), False, id="negative offset"),
    pytest.param(edited("upstream/attempts/0/number", 0), False, id="attempt number 0"),
    pytest.param(edited("upstream/attempts", []), False, id="no attempts"),
    pytest.param(edited("upstream/jsonrpc_id", True), False, id="boolean jsonrpc id"),
    pytest.param(edited("upstream/jsonrpc_id", 1.0), True, id="jsonrpc id 1.0"),
    pytest.param(edited("upstream/exit_status", 10**18), True, id="19-digit integer"),
    pytest.param(edited("upstream/exit_status", 2**63), False, id="integer over 64 bits"),
    pytest.param(edited("context/secret/salt", "s"), False, id="hmac with another member"),
    pytest.param(edited("context/secret", {}), False, id="empty context object"),
    pytest.param(edited("context/b", [[1]]), False, id="context array of arrays"),
    pytest.param(edited("context/b", 10**18), True, id="context 19-digit integer"),
    pytest.param(edited("context/b", 2**63), False, id="context integer over 64 bits"),
    pytest.param(edited("context/b", [-(2**63) - 1]), False, id="context item under 64 bits"),
    pytest.param(edited("context/a", 1).replace(b'"a":1', b'"a":NaN'), False, id="context NaN"),
    pytest.param(
        edited("context/a", 1).replace(b'"a":1', b'"a":[-Infinity]'),
        False,
        id="context -Infinity",
    ),
    pytest.param(edited("projected_values", DEEP), True, id="projected values 8 deep"),
    pytest.param(edited("projected_values", TOO_DEEP), False, id="projected values 9 deep"),
    pytest.param(edited("command", "explain"), False, id="unknown command"),
    pytest.param(edited("extra", 1), False, id="unknown member"),
    pytest.param(edited("upstream/extra", 1), False, id="unknown nested member"),
    pytest.param(edited("upstream", {"kind": "stdin"}), True, id="upstream kind alone"),
    pytest.param(edited("upstream", {"kind": "exec"}), False, id="upstream unknown kind alone"),
    pytest.param(edited("upstream", {"tool": "t"}), False, id="upstream tool alone"),
    pytest.param(edited("upstream", {"kind": ["stdin"]}), False, id="upstream kind an array"),
    pytest.param(edited("contract/tool", drop=True), False, id="missing nested member"),
    pytest.param(edited("envelope_sha256", drop=True), False, id="missing member"),
    pytest.param(edited("raw/0/kept", "yes"), False, id="raw kept a string"),
    pytest.param(edited("message", "\ud800"), False, id="lone surrogate"),
    pytest.param(edited("message", "\U0001f600"), True, id="surrogate pair"),
    pytest.param(b'{"format":1,' + edited("format", 1)[1:], False, id="repeated member"),
    pytest.param(
        edited("upstream/kind", "x").replace(b'"kind":"x"', b'"kind":"stdin","kind":"file"'),
        False,
        id="repeated nested member",
    ),
    pytest.param(
        edited("duration_ms", 1).replace(b'"duration_ms":1,', b'"duration_ms":NaN,'),
        False,
        id="NaN",
    ),
    pytest.param(
        edited("duration_ms", 1).replace(b'"duration_ms":1,', b'"duration_ms":1e400,'),
        False,
        id="1e400",
    ),
    pytest.param(
        edited("duration_ms", 1).replace(b'"duration_ms":1,', b'"duration_ms":-0,'),
        True,
        id="minus zero",
    ),
    pytest.param(b" " + edited("format", 1), True, id="leading space"),
    pytest.param(edited("format", 1) + b" x", False, id="trailing data"),
    pytest.param(edited("format", 1).replace(b",", b", "), True, id="spaces"),
]


@pytest.mark.parametrize(("line", "valid"), EDITS)
def test_one_edit_is_read_as_the_strict_path_reads_it(line: bytes, valid: bool) -> None:
    """Each edit on or beside an edge of the schema: the screen defers or agrees."""
    assert (agrees(line) is not None) == valid


def test_the_summary_of_the_corpus_and_the_edits_is_the_same_with_and_without_the_screen() -> None:
    """`summarize` counts the corpus records and the edited ones alike with the screen or not."""
    edits = [edit.values[0] for edit in EDITS]
    with_screen, strict = summaries([*corpus(), *edits])
    assert with_screen == strict
    valid = sum(bool(edit.values[1]) for edit in EDITS)
    assert (strict.records, strict.malformed) == (len(corpus()) + valid, len(edits) - valid)


# --- generated records ----------------------------------------------------------------------


def mostly(valid: st.SearchStrategy[Any], edges: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """`valid` nineteen times in twenty, else a value on or beside the schema's edge."""
    return st.sampled_from([valid] * 19 + [edges]).flatmap(lambda chosen: chosen)


SHA256 = mostly(
    st.text("0123456789abcdef", min_size=64, max_size=64),
    st.sampled_from(["0" * 63, "0" * 65, "A" * 64, "0" * 64 + "\n", "g" * 64, ""]),
)
REQUEST_ID = mostly(
    st.from_regex(r"[A-Za-z0-9][A-Za-z0-9_.]{7,63}", fullmatch=True),
    st.sampled_from(
        ["req.123", "_req.12345", "r" * 64, "r" * 65, "req.1234\n", "req.1234\u00e9", ""]
    ),
)
TIMESTAMP = mostly(
    st.datetimes(
        min_value=datetime(1000, 1, 1), max_value=datetime(9999, 12, 31), timezones=st.just(UTC)
    ).map(record.timestamp),
    st.sampled_from(
        [
            "2026-03-01T12:00:00Z",
            "2026-03-01T12:00:00.5Z",
            "2026-03-01T12:00:00.0000001Z",
            "2026-03-01T23:59:60.000000Z",
            "2026-03-01T24:00:00.000000Z",
            "2026-03-01T12:60:00.000000Z",
            "2026-02-29T12:00:00.000000Z",
            "2024-02-29T12:00:00.000000Z",
            "2026-04-31T12:00:00.000000Z",
            "2026-13-01T12:00:00.000000Z",
            "0000-01-01T00:00:00.000000Z",
            "2026-03-01t12:00:00.000000z",
            "2026-03-01T12:00:00.000000z",
            "2026-03-01 12:00:00.000000Z",
            "2026-03-01T12:00:00.000000+00:00",
            "2026-03-01T12:00:00.000000+00:00Z",
            "2026-03-01T12:00:00.000000Z\n",
            "2026-03-01T12:00:00,000000Z",
            "\u0662026-03-01T12:00:00.000000Z",
        ]
    ),
)
TEXT = mostly(
    st.text(st.characters(max_codepoint=0xCFFF), max_size=12),
    st.sampled_from(["x" * 64, "x" * 65, "\ud800", "\udc00\ud800", "\U0001f600", "\x00"])
    | st.text(max_size=4),
)
OUTCOME = st.sampled_from(["success", "failure", "internal"])
ERROR_CODE = st.sampled_from(["NOT_FOUND", "UPSTREAM_UNAVAILABLE", "INVALID_RESPONSE"])
LAYER = st.sampled_from(
    ["upstream", "input", "limits", "parse", "schema", "rule", "projection", "audit"]
)
NON_NEGATIVE = mostly(
    st.integers(min_value=0, max_value=10**6) | json_floats().map(abs), json_floats()
)
# Values that sit on an edge of some keyword: const 1 as 1.0, booleans as integers, -0, 2**63.
EDGES = st.sampled_from(
    [1, 1.0, True, False, 0, -0.0, -1, 0.5, 10**18 - 1, 10**18, 2**63, -(2**63), 10**19, None]
)


def optional(draw: st.DrawFn, members: dict[str, Any], name: str, value: Any) -> None:
    if draw(st.booleans()):
        members[name] = draw(value)


@st.composite
def attempts(draw: st.DrawFn) -> dict[str, Any]:
    attempt = {
        "number": draw(st.integers(min_value=1, max_value=9)),
        "outcome": draw(OUTCOME),
        "duration_ms": draw(NON_NEGATIVE),
        "stdout_size": draw(st.integers(min_value=0, max_value=10**9)),
        "stderr_size": draw(st.integers(min_value=0, max_value=10**9)),
    }
    for name, value in (
        ("exit_status", json_integers()),
        ("signal", st.integers(min_value=-64, max_value=64)),
        ("timed_out", st.just(True)),
        ("over_limit", st.just(True)),
        ("spawn_error", TEXT),
        ("stdout_sha256", SHA256),
        ("stderr", TEXT),
        ("error_code", ERROR_CODE),
        ("layer", LAYER),
        ("reason", TEXT),
    ):
        optional(draw, attempt, name, value)
    return attempt


CONTEXT_VALUE = (
    json_scalars()
    | st.lists(json_scalars(), max_size=3)
    | SHA256.map(lambda digest: {"hmac_sha256": digest})
)


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    """Records of every shape the schema allows, with values on and beside its edges."""
    upstream: dict[str, Any] = {"kind": draw(st.sampled_from(["stdin", "file", "command", "mcp"]))}
    for name, value in (
        ("file", TEXT),
        ("argv", st.lists(TEXT, max_size=3)),
        ("tool", TEXT),
        ("jsonrpc_id", TEXT | json_integers()),
        ("exit_status", json_integers()),
        ("signal", st.integers(min_value=-64, max_value=64)),
        ("duration_ms", NON_NEGATIVE),
        ("attempts", st.lists(attempts(), min_size=1, max_size=2)),
    ):
        optional(draw, upstream, name, value)
    adapter: dict[str, Any] = {"kind": draw(st.sampled_from(["json", "lines", "jc"]))}
    optional(draw, adapter, "parser", TEXT)
    optional(draw, adapter, "version", TEXT)
    built: dict[str, Any] = {
        "format": 1,
        "timestamp": draw(TIMESTAMP),
        "request_id": draw(REQUEST_ID),
        "toolguard": draw(TEXT),
        "command": draw(st.sampled_from(["check", "run", "serve", "mcp"])),
        "contract": {
            "path": draw(TEXT),
            "tool": draw(TEXT),
            "version": draw(TEXT),
            "sha256": draw(SHA256),
        },
        "adapter": adapter,
        "context": draw(st.dictionaries(TEXT, CONTEXT_VALUE, max_size=3)),
        "upstream": upstream,
        "outcome": draw(OUTCOME),
        "duration_ms": draw(NON_NEGATIVE),
        "envelope_sha256": draw(SHA256),
    }
    if draw(st.booleans()):
        built["error_code"] = draw(ERROR_CODE)
        if draw(st.sampled_from([True, True, True, False])):  # `dependentRequired`
            built["retryable"] = draw(st.booleans())
    for name, value in (
        ("input", st.fixed_dictionaries({"size": st.integers(0, 10**6), "sha256": SHA256})),
        (
            "raw",
            st.lists(
                st.fixed_dictionaries(
                    {"sha256": SHA256, "kept": st.booleans()}, optional={"why": TEXT}
                ),
                max_size=2,
            ),
        ),
        ("layer", LAYER),
        ("reason", TEXT),
        ("rule", TEXT),
        ("schema_path", TEXT),
        ("instance_path", TEXT),
        ("offset", st.integers(min_value=0, max_value=10**6)),
        ("message", TEXT),
        ("projected_fields", st.lists(TEXT, max_size=3)),
        ("projected_values", st.dictionaries(TEXT, json_values(max_depth=7), max_size=3)),
        ("truncated", st.just(True)),
    ):
        optional(draw, built, name, value)
    return built


@st.composite
def perturbed(draw: st.DrawFn, built: dict[str, Any]) -> dict[str, Any]:
    """`built` with a member removed, added or replaced, or an item replaced, anywhere."""
    holder = _at(built, draw(st.sampled_from(list(_containers(built)))))
    replacement = draw(EDGES | json_values(max_depth=2) | st.just(NUMBER))
    if isinstance(holder, list):
        if holder:
            holder[draw(st.integers(0, len(holder) - 1))] = replacement
        else:
            holder.append(replacement)
    elif holder and draw(st.booleans()):
        name = draw(st.sampled_from(sorted(holder)))
        if draw(st.booleans()):
            del holder[name]
        else:
            holder[name] = replacement
    else:
        holder[draw(TEXT | st.sampled_from(sorted(holder) or ["x"]))] = replacement
    return built


def _line(draw: st.DrawFn, built: dict[str, Any]) -> bytes:
    """`built` as a line: compact ASCII mostly, sometimes with spaces or raw UTF-8, and each
    `NUMBER` string a raw number token of any shape."""
    text = json.dumps(
        built,
        ensure_ascii=draw(st.sampled_from([True, True, False])),
        separators=draw(st.sampled_from([(",", ":"), (",", ":"), (", ", ": ")])),
    )
    while json.dumps(NUMBER) in text:
        text = text.replace(json.dumps(NUMBER), draw(number_texts()), 1)
    return text.encode("utf-8", "surrogatepass")


@st.composite
def record_lines(draw: st.DrawFn) -> bytes:
    """A record line: valid, or perturbed in its values, or mangled in its bytes."""
    built = draw(records())
    for _ in range(draw(st.sampled_from([0, 0, 1, 1, 2]))):
        built = draw(perturbed(built))
    line = bytearray(_line(draw, built))
    how = draw(st.sampled_from(["as is", "as is", "bytes", "duplicate", "nested duplicate"]))
    if how == "bytes":
        for _ in range(draw(st.integers(min_value=1, max_value=3))):
            at = draw(st.integers(min_value=0, max_value=len(line)))
            action = draw(st.sampled_from(["insert", "delete", "replace"]))
            if action == "insert":
                line[at:at] = draw(st.sampled_from([*HOSTILE_FRAGMENTS, b" ", b"\n", b"\\n"]))
            elif action == "delete":
                del line[at : at + draw(st.integers(min_value=1, max_value=3))]
            else:
                line[at : at + 1] = bytes([draw(st.integers(min_value=0, max_value=255))])
    elif how == "duplicate":
        name = draw(st.sampled_from(sorted(built)))
        spelled = draw(
            st.sampled_from([json.dumps(name), "".join(f"\\u{ord(c):04x}" for c in name)])
        )
        line[1:1] = f'"{spelled.strip(chr(34))}":{json.dumps(built[name])},'.encode()
    elif how == "nested duplicate":
        inner = draw(objects_with_duplicate_member())
        line[-1:-1] = b',"projected_values":{"v":' + inner + b"}"
    return bytes(line)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records())
def test_a_generated_valid_record_is_read_as_the_strict_path_reads_it(
    built: dict[str, Any],
) -> None:
    """Records of every allowed shape, written compactly, are vouched for or deferred, never
    read differently."""
    agrees(json.dumps(built, separators=(",", ":")).encode())


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(record_lines())
def test_a_hostile_or_malformed_line_is_never_read_differently(line: bytes) -> None:
    """Perturbed values, raw number tokens, stray bytes and repeated members: the screen
    defers or agrees with the strict path, value for value and type for type."""
    agrees(line)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(record_lines(), min_size=1, max_size=6), st.sampled_from([0, 1, 2]))
def test_the_summary_of_generated_lines_is_the_same_with_and_without_the_screen(
    lines: list[bytes], corpus_lines: int
) -> None:
    """A log of generated lines, some valid and some not, is summarized identically either way."""
    with_screen, strict = summaries([*lines, *corpus()[:corpus_lines]])
    assert with_screen == strict


@pytest.mark.parametrize(
    "line",
    [
        pytest.param(b"", id="empty"),
        pytest.param(b"{}", id="empty object"),
        pytest.param(b"[]", id="array"),
        pytest.param(b"1", id="number"),
        pytest.param(b"\xef\xbb\xbf{}", id="bom"),
        pytest.param(b'{"format":1' + b" " * 5000 + b"}", id="over 4096 bytes"),
        pytest.param(b"[" * 10_000, id="deep"),
        pytest.param(b'{"a":' * 10_000, id="deep objects"),
        pytest.param(b'"' + b"\\ud800" * 100 + b'"', id="surrogates"),
        pytest.param(b"NaN", id="nan"),
    ],
)
def test_degenerate_lines_are_never_vouched_for(line: bytes) -> None:
    """What is no record at all is left to the strict path, which refuses it."""
    assert screen.vouched(line) is None
    assert agrees(line) is None


# --- objects remembered once vouched for ------------------------------------------------------

BASE = edited("input/size", 1).replace(b'"a":"x"', b'"a":1')  # an integer in context and input


@pytest.mark.parametrize(
    ("old", "new", "valid"),
    [
        pytest.param(b'"size":1,', b'"size":1.0,', True, id="input size 1.0"),
        pytest.param(b'"size":1,', b'"size":true,', False, id="input size true"),
        pytest.param(b'"a":1,', b'"a":1.0,', True, id="context 1.0"),
        pytest.param(b'"a":1,', b'"a":true,', True, id="context true"),
        pytest.param(b'"a":1,', b'"a":-0,', True, id="context -0"),
        pytest.param(b'"kind":"jc",', b'"kind":"jc","kind":"jc",', False, id="adapter repeated"),
        pytest.param(b'"tool":"t","version"', b'"tool":1,"version"', False, id="contract number"),
        pytest.param(
            b'"path":"/c/contract.toml","tool":"t",',
            b'"tool":"t","path":"/c/contract.toml",',
            True,
            id="contract reordered",
        ),
        pytest.param(b"T12:00:00.000000Z", b"T24:00:00.000000Z", False, id="same date, hour 24"),
    ],
)
def test_an_object_like_one_remembered_is_read_as_the_strict_path_reads_it(
    old: bytes, new: bytes, valid: bool
) -> None:
    """After a record is vouched for, one whose object equals a remembered one in value but
    differs in type, order or repetition is still read exactly as the strict path reads it."""
    assert BASE.count(old) == 1
    assert agrees(BASE) is not None
    assert screen.vouched(BASE) is not None  # its objects are remembered
    assert (agrees(BASE.replace(old, new)) is not None) == valid


def test_records_read_from_the_same_line_share_no_object() -> None:
    """Two records vouched for from one line are separate values: changing one leaves the other."""
    first, second = screen.vouched(BASE), screen.vouched(BASE)
    assert first is not None
    assert second is not None
    first["contract"]["tool"] = "changed"
    first["input"]["size"] = 2
    first["context"]["a"] = 2
    assert second == screen.vouched(BASE) == json.loads(BASE)


# An integer and the float and booleans it equals in Python, as JSON tokens.
TWINS = {"0": ["0.0", "-0", "false"], "1": ["1.0", "true", "1e0"], "7": ["7.0", "7E0"]}


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(records(), st.sampled_from(sorted(TWINS)), st.data())
def test_a_generated_record_then_its_twin_of_another_type_is_read_as_the_strict_path_reads_it(
    built: dict[str, Any], integer: str, data: st.DataObject
) -> None:
    """A record is vouched for (its objects remembered), then the same record with one integer
    of its context or input written as an equal float or boolean: both agree."""
    built["context"]["n"] = int(integer)
    built["input"] = {"size": int(integer), "sha256": SHA}
    line = json.dumps(built, separators=(",", ":")).encode()
    agrees(line)
    twin = data.draw(st.sampled_from(TWINS[integer]))
    where = data.draw(st.sampled_from([b'"n":', b'"input":{"size":']))
    at = line.index(where, line.index(b'"context":{')) + len(where)
    assume(line[at : at + len(integer) + 1] in {integer.encode() + b",", integer.encode() + b"}"})
    agrees(line[:at] + twin.encode() + line[at + len(integer) :])
