"""Audit records: built from an outcome, bounded to one private-safe ASCII line, read back."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import json_values

from toolguard import envelope, frozen, pipeline
from toolguard.audit import record
from toolguard.audit.keys import keyed_hash
from toolguard.audit.log import MAX_RECORD_BYTES
from toolguard.audit.raw import Kept
from toolguard.contract import Contract, load_contract
from toolguard.contract.audit_policy import AuditPolicy
from toolguard.errors import ERROR_CODES, UsageError
from toolguard.invisible import hidden as is_hidden
from toolguard.redaction import require_redactable
from toolguard.request import Request, make_request
from toolguard.result import AttemptRecord, Diagnostics, Outcome
from toolguard.rules import equals_context, matches_context_pattern

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "examples" / "review_status"
CONTRACT = load_contract(EXAMPLE / "contract.toml")
RESPONSE = (EXAMPLE / "response.json").read_bytes()
REQUEST_ID = "req.audit.0001"
CONTEXT = {"change_id": "CR-1042"}
KEY = b"k" * 32
STDIN = record.Source("stdin")
PROPERTY = settings(max_examples=120, deadline=None)
# Text that means something other than its characters on a terminal or to a parser.
HOSTILE = (
    "\x1b[31m",
    "\x1b]8;;http://evil.example\x07link\x1b]8;;\x07",
    "[bold red]x[/]",
    "[link=file:///etc/passwd]y[/link]",
    "\u202e",
    "\u2066",
    "\u200b",
    "\U000e0001\U000e0069",
    "\x00",
    "\x7f",
    "\x9b",
    "\r",
    "\n",
    "\u2028",
    "\ud800",
    "\udfff",
    "\\",
    '"',
    "\ufeff",
    "é",
    "\U0001f600",
    "\U0010ffff",
)


def check(raw: bytes = RESPONSE, contract: Contract = CONTRACT, **context: Any) -> Outcome:
    """The outcome of checking `raw` against `contract` for the standard request."""
    return pipeline.check(contract, raw, request_id=REQUEST_ID, context=context or CONTEXT)


def build(
    outcome: Outcome, contract: Contract = CONTRACT, request: Request | None = None, **extra: Any
) -> dict[str, Any]:
    """The record of `outcome` for a `check` from stdin."""
    request = request or make_request(REQUEST_ID, CONTEXT)
    return record.build(outcome, contract, request, command="check", source=STDIN, **extra)


def unbounded(rec: dict[str, Any]) -> bytes:
    """The record as it would be written if nothing were ever shed."""
    return (json.dumps(rec, ensure_ascii=True, separators=(",", ":")) + "\n").encode()


def with_audit(contract: Contract = CONTRACT, **policy: Any) -> Contract:
    """The contract with its `[audit]` table replaced."""
    return frozen.replace(contract, audit=AuditPolicy(**policy))


def assert_safe_line(line: bytes) -> dict[str, Any]:
    """The line is one bounded ASCII record without control bytes; return it decoded."""
    assert len(line) <= MAX_RECORD_BYTES
    assert line.endswith(b"\n")
    assert line.count(b"\n") == 1
    assert line.isascii()
    assert not any(byte < 0x20 or byte == 0x7F for byte in line[:-1]), line
    decoded = record.decode(line)
    assert decoded is not None, line
    return decoded


# --- build -------------------------------------------------------------------------------------


def test_accepted_check_round_trips_through_encode_and_decode() -> None:
    """The record of an accepted response decodes back to exactly what was built."""
    built = build(check())
    assert record.decode(record.encode(built)) == built
    assert built["outcome"] == "success"
    assert "truncated" not in built


def test_record_names_the_contract_by_absolute_path_and_digest() -> None:
    """The record holds the contract's absolute path, tool, version and digest."""
    built = build(check())
    assert built["contract"] == {
        "path": str(EXAMPLE / "contract.toml"),
        "tool": "review_status",
        "version": "1.0.0",
        "sha256": CONTRACT.digest,
    }


def test_record_digests_the_exact_envelope_line() -> None:
    """envelope_sha256 is the SHA-256 of the line the envelope is written as."""
    outcome = check()
    assert build(outcome)["envelope_sha256"] == record.envelope_digest(outcome.envelope)


def test_rejected_check_records_code_layer_and_reason() -> None:
    """A schema rejection is recorded with its error code, retry hint, layer and reason."""
    built = build(check(b'{"x":1}'))
    assert (built["outcome"], built["error_code"], built["retryable"]) == (
        "failure",
        "INVALID_RESPONSE",
        False,
    )
    assert (built["layer"], built["reason"]) == ("schema", "required")
    assert record.decode(record.encode(built)) == built


def test_timestamp_is_fixed_width_utc() -> None:
    """The timestamp is UTC with microseconds, whatever the zone of `now`."""
    built = build(check(), now=datetime(2024, 5, 6, 7, 8, 9, tzinfo=UTC))
    assert built["timestamp"] == "2024-05-06T07:08:09.000000Z"


def test_kept_copies_are_listed_with_why_not() -> None:
    """Each raw copy is listed by digest, with the reason when it was not kept."""
    kept = [Kept("a" * 64, kept=True), Kept("b" * 64, kept=False, why="too big")]
    built = build(check(), kept=kept)
    assert built["raw"] == [
        {"sha256": "a" * 64, "kept": True},
        {"sha256": "b" * 64, "kept": False, "why": "too big"},
    ]
    assert record.decode(record.encode(built)) == built


# --- projected values ----------------------------------------------------------------------------


def test_projected_values_are_absent_by_default() -> None:
    """Without audit.record_values the record names the projected fields but not their values."""
    line = record.encode(build(check()))
    decoded = record.decode(line)
    assert decoded is not None
    assert decoded["projected_fields"] == ["change_id", "decision", "reviewed_by"]
    assert "projected_values" not in decoded
    assert b"alice@example.com" not in line


def test_projected_values_are_recorded_with_record_values() -> None:
    """With audit.record_values = true the record holds the projected object."""
    contract = with_audit(record_values=True)
    decoded = record.decode(record.encode(build(check(contract=contract), contract)))
    assert decoded is not None
    assert decoded["projected_values"] == json.loads(RESPONSE)


def test_control_characters_in_projected_values_are_escaped() -> None:
    """Projected values are recorded verbatim but their ESC and DEL are JSON escapes, not bytes."""
    contract = with_audit(record_values=True)
    answer = envelope.success(CONTRACT.tool, REQUEST_ID, {"decision": "\x1b[2J\x7f\x9b"})
    outcome = Outcome(answer, check().diagnostics)
    decoded = assert_safe_line(record.encode(build(outcome, contract)))
    assert decoded["projected_values"] == {"decision": "\x1b[2J\x7f\x9b"}


def test_deeply_nested_projected_values_still_give_a_decodable_record(tmp_path: Path) -> None:
    """A projected value nested as deep as the contract allows never makes the record unreadable."""
    (tmp_path / "response.schema.json").write_text(
        json.dumps({"type": "object", "properties": {"tree": {}}})
    )
    (tmp_path / "contract.toml").write_text(
        'tool = "deep"\nversion = "1"\nschema = "response.schema.json"\n'
        '[projection]\ntree = "/tree"\n[audit]\nrecord_values = true\n'
    )
    contract = load_contract(tmp_path / "contract.toml")
    tree: Any = 1
    for _ in range(20):
        tree = [tree]
    outcome = pipeline.check(contract, json.dumps({"tree": tree}).encode(), request_id=REQUEST_ID)
    assert outcome.diagnostics.outcome == "success"
    built = build(outcome, contract, make_request(REQUEST_ID))
    decoded = record.decode(record.encode(built))
    assert decoded is not None
    assert decoded["truncated"] is True
    assert "projected_values" not in decoded


# --- secret context ------------------------------------------------------------------------------

SECRET = "tok-7f3a9c1e-very-secret"


def secret_contract(contract: Contract = CONTRACT) -> Contract:
    return with_audit(contract, secret_context=frozenset({"token"}))


def test_secret_context_is_recorded_only_as_a_keyed_hash() -> None:
    """A secret context value appears as {"hmac_sha256": ...} and nowhere in clear."""
    contract = secret_contract()
    request = make_request(REQUEST_ID, {**CONTEXT, "token": SECRET})
    built = build(check(), contract, request, hash_secret=partial(keyed_hash, KEY))
    line = record.encode(built)
    decoded = record.decode(line)
    assert decoded is not None
    assert decoded["context"] == {
        "change_id": "CR-1042",
        "token": {"hmac_sha256": keyed_hash(KEY, SECRET)},
    }
    assert SECRET.encode() not in line


def test_same_secret_and_key_give_the_same_hash() -> None:
    """Two records of the same secret under the same key carry the same hash."""
    contract = secret_contract()
    request = make_request(REQUEST_ID, {"token": SECRET})
    first = build(check(), contract, request, hash_secret=partial(keyed_hash, KEY))
    second = build(check(), contract, request, hash_secret=partial(keyed_hash, KEY))
    assert first["context"]["token"] == second["context"]["token"]


def test_same_secret_under_another_key_gives_another_hash() -> None:
    """The hash depends on the key: the log alone does not confirm a guessed secret."""
    contract = secret_contract()
    request = make_request(REQUEST_ID, {"token": SECRET})
    first = build(check(), contract, request, hash_secret=partial(keyed_hash, KEY))
    second = build(check(), contract, request, hash_secret=partial(keyed_hash, b"K" * 32))
    assert first["context"]["token"] != second["context"]["token"]


def test_secret_list_value_is_hashed_whole() -> None:
    """A secret list is one hash, none of its items in clear."""
    contract = secret_contract()
    request = make_request(REQUEST_ID, {"token": [SECRET, "second-secret-item"]})
    line = record.encode(build(check(), contract, request, hash_secret=partial(keyed_hash, KEY)))
    decoded = record.decode(line)
    assert decoded is not None
    assert set(decoded["context"]["token"]) == {"hmac_sha256"}
    assert SECRET.encode() not in line
    assert b"second-secret-item" not in line


def test_secret_context_without_a_hasher_is_refused() -> None:
    """Building a record with a secret context value but no key raises instead of leaking."""
    request = make_request(REQUEST_ID, {"token": SECRET})
    with pytest.raises(ValueError, match="key"):
        build(check(), secret_contract(), request)


def test_secret_quoted_by_a_rule_message_is_not_recorded_in_clear() -> None:
    """A rule that quotes the secret context value it compared against does not leak it."""
    rule = equals_context("change_matches_token", "/change_id", "token")
    contract = secret_contract(frozen.replace(CONTRACT, rules=(rule,)))
    context = {"token": SECRET}
    outcome = check(contract=contract, **context)
    assert outcome.diagnostics.layer == "rule"
    assert SECRET in (outcome.diagnostics.message or "")
    request = make_request(REQUEST_ID, context)
    line = record.encode(build(outcome, contract, request, hash_secret=partial(keyed_hash, KEY)))
    assert record.decode(line) is not None
    assert SECRET.encode() not in line


def test_secret_quoted_as_a_regular_expression_is_not_recorded_in_clear() -> None:
    """`matches_context_pattern` quotes the value escaped (`sk\\-live\\.x`): withheld too."""
    secret = "sk-live.SECRET-9f8e"
    rule = matches_context_pattern("change_has_token", "/change_id", "CR-{token}")
    contract = secret_contract(frozen.replace(CONTRACT, rules=(rule,)))
    context = {"token": secret}
    outcome = check(contract=contract, **context)
    assert outcome.diagnostics.layer == "rule"
    request = make_request(REQUEST_ID, context)
    line = record.encode(build(outcome, contract, request, hash_secret=partial(keyed_hash, KEY)))
    assert record.decode(line) is not None
    assert b"SECRET" not in line


def test_a_secret_in_the_contract_path_and_the_source_is_not_recorded_in_clear() -> None:
    """The contract's folder, an MCP tool name and a JSON-RPC id holding the secret: redacted."""
    contract = frozen.replace(secret_contract(), source=f"/srv/{SECRET}/contracts/review.toml")
    request = make_request(REQUEST_ID, {"token": SECRET})
    source = record.Source("mcp", tool=f"probe-{SECRET}", jsonrpc_id=f"call-{SECRET}")
    built = record.build(
        check(), contract, request, command="mcp", source=source,
        hash_secret=partial(keyed_hash, KEY),
    )  # fmt: skip
    line = record.encode(built)
    decoded = assert_safe_line(line)
    assert SECRET.encode() not in line
    assert decoded["contract"]["path"] == "/srv/[secret:token]/contracts/review.toml"
    assert decoded["upstream"]["tool"] == "probe-[secret:token]"
    assert decoded["upstream"]["jsonrpc_id"] == "call-[secret:token]"


# --- bounding ------------------------------------------------------------------------------------


def test_one_megabyte_of_escape_sequences_is_bounded() -> None:
    """A 1 MB message of ANSI escapes is recorded cut and escaped, within the limit."""
    hostile = "\x1b[31m" * ((1 << 20) // 5)
    diagnostics = frozen.replace(check().diagnostics, message=hostile)
    built = build(Outcome(check().envelope, diagnostics))
    decoded = assert_safe_line(record.encode(built))
    assert "\\x1b[31m" in decoded["message"]
    assert "more characters]" in decoded["message"]


def test_record_over_the_limit_is_marked_truncated() -> None:
    """When detail must be dropped to fit, the record says `truncated: true`."""
    context = {f"k{index}": "v" * 256 for index in range(40)}
    built = build(check(), request=make_request(REQUEST_ID, context))
    assert len(unbounded(built)) > MAX_RECORD_BYTES
    decoded = assert_safe_line(record.encode(built))
    assert decoded["truncated"] is True
    assert decoded["request_id"] == REQUEST_ID


def test_record_that_fits_is_not_marked_truncated() -> None:
    """A record within the limit is written whole, without `truncated`."""
    decoded = assert_safe_line(record.encode(build(check())))
    assert "truncated" not in decoded


@pytest.mark.parametrize(
    "value",
    [math.nan, math.inf, -math.inf, 2**63, -(2**63) - 1, 10**5000],
    ids=["nan", "inf", "-inf", "2**63", "-2**63-1", "10**5000"],
)
def test_context_numbers_json_cannot_carry_still_give_a_valid_record(value: float) -> None:
    """A non-finite or over-wide context number (library callers can pass one) stays decodable."""
    request = make_request(REQUEST_ID, {"n": value, "ns": [value]})
    decoded = record.decode(record.encode(build(check(), request=request)))
    assert decoded is not None
    assert decoded["context"]["n"] == decoded["context"]["ns"][0]


def hostile_texts(repeats: tuple[int, ...] = (1, 1, 2, 40, 700, 1 << 14)) -> st.SearchStrategy[str]:
    """A few hostile fragments and odd characters, repeated up to `max(repeats)` times."""
    return st.builds(
        lambda parts, times: "".join(parts) * times,
        st.lists(st.sampled_from(HOSTILE) | st.text(max_size=3), max_size=6),
        st.sampled_from(repeats),
    )


hostile_text = hostile_texts()
small_hostile_text = hostile_texts((1, 2, 40))
context_scalars = st.one_of(
    small_hostile_text,
    st.integers(min_value=-(10**25), max_value=10**25),
    st.floats(),
    st.booleans(),
    st.none(),
)
context_values = context_scalars | st.builds(
    lambda items, times: items * times,
    st.lists(context_scalars, max_size=4),
    st.sampled_from([1, 30]),
)
big_context_values = hostile_text | context_values
context_keys = st.from_regex(r"[A-Za-z_][A-Za-z0-9_]{0,63}", fullmatch=True)


@st.composite
def contexts(draw: st.DrawFn) -> dict[str, Any]:
    """A few arbitrary context members, or many (hundreds) of them."""
    context = draw(st.dictionaries(context_keys, big_context_values, max_size=5))
    many = draw(st.sampled_from([0, 0, 30, 400]))
    value = draw(context_values)
    context.update((f"k{index}_{'x' * 50}", value) for index in range(many))
    return context


def attempts() -> st.SearchStrategy[AttemptRecord]:
    return st.builds(
        AttemptRecord,
        number=st.integers(min_value=1, max_value=10),
        duration_ms=st.floats(min_value=0, max_value=1e6),
        outcome=st.sampled_from(["success", "failure", "internal"]),
        exit_status=st.none() | st.integers(min_value=-255, max_value=255),
        signal=st.none() | st.integers(min_value=1, max_value=64),
        timed_out=st.booleans(),
        over_limit=st.booleans(),
        spawn_error=st.none() | hostile_text,
        stdout_size=st.integers(min_value=0, max_value=1 << 40),
        stdout_sha256=st.none() | st.just("c" * 64),
        stderr=hostile_text,
        stderr_size=st.integers(min_value=0, max_value=1 << 40),
        layer=st.none() | st.just("upstream"),
        reason=st.none() | st.just("exit_status"),
        error_code=st.none() | st.just("UPSTREAM_UNAVAILABLE"),
    )


projected = st.dictionaries(
    st.sampled_from(["change_id", "decision", "reviewed_by", "untrusted_display_text"]),
    json_values(max_depth=3)
    | st.builds(lambda text, times: text * times, st.text(max_size=8), st.integers(1, 1 << 18)),
)


def redactable(secret: set[str], context: dict[str, Any]) -> bool:
    try:
        require_redactable(secret, context)
    except UsageError:
        return False
    return True


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    """A record of an outcome built directly, with hostile text in every place it can reach."""
    accepted = draw(st.booleans())
    tool = CONTRACT.tool
    if accepted:
        answer = envelope.success(tool, REQUEST_ID, draw(projected))
    else:
        answer = envelope.failure(
            tool,
            REQUEST_ID,
            draw(st.sampled_from(ERROR_CODES)),
            draw(st.booleans()),
        )
    diagnostics = Diagnostics(
        tool=tool,
        request_id=REQUEST_ID,
        contract=draw(hostile_text),
        outcome="success" if accepted else draw(st.sampled_from(["failure", "internal"])),
        size=draw(st.none() | st.integers(min_value=0, max_value=1 << 40)),
        sha256="d" * 64,
        duration_ms=draw(st.floats(min_value=0, max_value=1e9)),
        layer=None if accepted else draw(st.sampled_from(["upstream", "parse", "schema", "rule"])),
        reason=None if accepted else "some_reason",
        message=draw(st.none() | hostile_text),
        offset=draw(st.none() | st.integers(min_value=0, max_value=1 << 40)),
        schema_path=draw(st.none() | hostile_text),
        instance_path=draw(st.none() | hostile_text),
        rule=draw(st.none() | hostile_text),
        error_code=None if accepted else answer["error"]["code"],
        upstream=draw(
            st.none()
            | st.builds(
                lambda args, times: tuple(args) * times,
                st.lists(hostile_text, max_size=4),
                st.sampled_from([1, 50]),
            )
        ),
        attempts=tuple(draw(st.lists(attempts(), max_size=12))),
    )
    context = draw(contexts())
    secret = draw(st.sets(st.sampled_from(sorted(context)))) if context else set()
    if not redactable(secret, context):  # as every check insists (`require_context`)
        secret = set()
    contract = frozen.replace(
        CONTRACT,
        source=str(Path(draw(hostile_text).replace("\x00", "")) / "contract.toml"),
        audit=AuditPolicy(secret_context=frozenset(secret), record_values=draw(st.booleans())),
    )
    source = draw(
        st.sampled_from([STDIN, record.Source("command")])
        | st.builds(partial(record.Source, "file"), hostile_text)
    )
    return record.build(
        Outcome(answer, diagnostics),
        contract,
        make_request(REQUEST_ID, context),
        command=draw(st.sampled_from(["check", "run", "serve"])),
        source=source,
        kept=draw(
            st.lists(
                st.builds(Kept, st.just("e" * 64), st.booleans(), st.none() | st.just("too big"))
            )
        ),
        hash_secret=partial(keyed_hash, KEY),
    )


@PROPERTY
@given(records())
def test_encoded_record_is_one_bounded_safe_valid_line(built: dict[str, Any]) -> None:
    """Whatever the input, the encoded record is one ASCII line of at most 4096 bytes.

    It holds no ESC or other control byte, decodes as a schema-valid record whose strings
    hold no hidden character (projected values, kept verbatim by choice, aside), and says
    `truncated` exactly when it lost detail (otherwise it reads back unchanged).
    """
    decoded = assert_safe_line(record.encode(built))
    if "truncated" in decoded:
        assert decoded["truncated"] is True
        assert {key: value for key, value in decoded.items() if key != "truncated"} != built
    else:
        assert json.dumps(decoded, sort_keys=True) == json.dumps(built, sort_keys=True)
    decoded.pop("projected_values", None)
    hidden = [text for text in strings(decoded) if any(map(is_hidden, text))]
    assert not hidden


def strings(value: Any) -> Iterator[str]:
    """Every string in a JSON value, member names included."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)
    elif isinstance(value, str):
        yield value


@pytest.mark.parametrize(
    ("contract_file", "context", "expected"),
    [
        ("review_status/contract.toml", CONTEXT, {"kind": "json"}),
        ("disk_usage/contract.toml", {}, {"kind": "lines"}),
    ],
)
def test_the_record_names_the_adapter_that_made_the_payload(
    contract_file: str, context: dict[str, str], expected: dict[str, str]
) -> None:
    """JSON contracts say `json`; a `[text]` contract says which adapter read the lines."""
    contract = load_contract(REPO / "examples" / contract_file)
    request = make_request(REQUEST_ID, context)
    outcome = pipeline.check(
        contract, b"not what the contract expects", request_id=REQUEST_ID, context=context
    )
    rec = record.build(outcome, contract, request, command="check", source=STDIN)
    assert rec["adapter"] == expected
    assert record.decode(record.encode(rec)) is not None


def test_a_jc_contract_records_jc_and_its_parser_versions() -> None:
    """The article's provenance: which parser, at which version, produced the object."""
    jc = pytest.importorskip("jc")
    contract = load_contract(REPO / "examples" / "disk_usage" / "contract.jc.toml")
    outcome = pipeline.check(contract, b"", request_id=REQUEST_ID)
    rec = record.build(outcome, contract, make_request(REQUEST_ID), command="check", source=STDIN)
    assert rec["adapter"]["kind"] == "jc"
    assert rec["adapter"]["version"] == jc.__version__
    assert rec["adapter"]["parser"] == f"df {jc.parser_info('df')['version']}"
    assert record.decode(record.encode(rec)) is not None


@pytest.mark.parametrize("jsonrpc_id", [7, "call-7", "\x1b[31m" + "x" * 1000])
def test_an_mcp_record_names_the_tool_and_the_json_rpc_id(jsonrpc_id: int | str) -> None:
    """`command: mcp`: the server's tool and the id (escaped, bounded) are recorded, read back."""
    outcome = check(change_id="CR-1042")
    source = record.Source("mcp", tool="get_review", jsonrpc_id=jsonrpc_id)
    built = record.build(
        outcome, CONTRACT, make_request(REQUEST_ID, CONTEXT), command="mcp", source=source
    )
    decoded = record.decode(record.encode(built))
    assert decoded is not None
    assert decoded["command"] == "mcp"
    upstream = decoded["upstream"]
    assert (upstream["kind"], upstream["tool"]) == ("mcp", "get_review")
    if isinstance(jsonrpc_id, int):
        assert upstream["jsonrpc_id"] == jsonrpc_id
    else:
        assert "\x1b" not in upstream["jsonrpc_id"]
        assert len(upstream["jsonrpc_id"]) < 400


# --- what the record takes from the request and the outcome ---------------------------------------


def test_a_secret_inside_another_context_value_is_not_recorded_in_clear() -> None:
    """A context value that is not secret but quotes one (a URL with the token): redacted."""
    request = make_request(REQUEST_ID, {"token": SECRET, "link": f"https://h.example/?t={SECRET}"})
    built = build(check(), secret_contract(), request, hash_secret=partial(keyed_hash, KEY))
    line = record.encode(built)
    decoded = assert_safe_line(line)
    assert SECRET.encode() not in line
    assert decoded["context"]["link"] == "https://h.example/?t=[secret:token]"


def test_a_secret_in_a_projected_value_is_not_recorded_in_clear() -> None:
    """With record_values, a projected value quoting a secret context value is redacted."""
    contract = with_audit(secret_context=frozenset({"token"}), record_values=True)
    outcome = check()
    data = {**outcome.envelope["data"], "reviewed_by": f"by {SECRET}"}
    outcome = Outcome({**outcome.envelope, "data": data}, outcome.diagnostics)
    request = make_request(REQUEST_ID, {"token": SECRET})
    built = build(outcome, contract, request, hash_secret=partial(keyed_hash, KEY))
    line = record.encode(built)
    decoded = assert_safe_line(line)
    assert SECRET.encode() not in line
    assert decoded["projected_values"]["reviewed_by"] == "by [secret:token]"


def test_a_long_context_list_and_a_long_argv_are_cut_to_64_items() -> None:
    """A context array and the command's argv keep their first 64 items, not all of them."""
    request = make_request(REQUEST_ID, {"ids": [f"id{index}" for index in range(100)]})
    argv = tuple(f"arg{index}" for index in range(100))
    outcome = check()
    outcome = Outcome(outcome.envelope, frozen.replace(outcome.diagnostics, upstream=argv))
    decoded = assert_safe_line(record.encode(build(outcome, request=request)))
    assert decoded["context"]["ids"] == [f"id{index}" for index in range(64)]
    assert decoded["upstream"]["argv"] == list(argv[:64])


def test_a_message_too_long_to_record_whole_keeps_its_reason() -> None:
    """A message naming a 5,000-character path is cut in its middle: its reason is recorded."""
    reason = "No space left on device (the response itself was accepted)"
    message = f"cannot keep raw response in /{'a' * 5000}: {reason}"
    diagnostics = frozen.replace(check().diagnostics, message=message)
    decoded = assert_safe_line(record.encode(build(Outcome(check().envelope, diagnostics))))
    assert "more characters] ..." in decoded["message"]
    assert decoded["message"].endswith(reason)


def test_a_record_shed_to_fit_keeps_its_messages_reason() -> None:
    """Over 4,096 bytes, the message is shortened too: in its middle, never its reason off."""
    reason = "No space left on device"
    message = f"cannot keep raw response in /{'a' * 5000}: {reason}"
    context = {f"k{index}": "v" * 256 for index in range(40)}
    outcome = check()
    diagnostics = frozen.replace(outcome.diagnostics, message=message)
    built = build(Outcome(outcome.envelope, diagnostics), request=make_request(REQUEST_ID, context))
    decoded = assert_safe_line(record.encode(built))
    assert decoded["truncated"] is True
    assert len(decoded["message"]) < 200
    assert decoded["message"].startswith("cannot keep raw response in /aaa")
    assert decoded["message"].endswith(reason)
