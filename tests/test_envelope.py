"""Envelopes: the two shapes, the one-line ASCII writer, and the schema each contract implies."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from toolguard import Contract, compile_schema, load_contract
from toolguard.contract.envelope_schema import serve_schema
from toolguard.envelope import dumps, failure, success
from toolguard.errors import ERROR_CODES
from toolguard.pipeline import check
from toolguard.request import read_context_file

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = sorted(path.parent for path in (ROOT / "examples").glob("*/contract.toml"))
DISPLAY_CONTRACT = Path(__file__).resolve().parent / "data/contracts/good/display_text"
NOW = "2026-03-14T09:30:00Z"
REQUEST_ID = "req.envelope.01"


def test_examples_exist() -> None:
    """The example folder is not empty, so the parametrised tests below run."""
    assert len(EXAMPLES) >= 3


def test_success_shape_and_key_order() -> None:
    """A success envelope is exactly tool, request_id, outcome, data, in that order."""
    envelope = success("deploy_status", REQUEST_ID, {"state": "healthy"})
    assert list(envelope) == ["tool", "request_id", "outcome", "data"]
    assert envelope == {
        "tool": "deploy_status",
        "request_id": REQUEST_ID,
        "outcome": "success",
        "data": {"state": "healthy"},
    }


@pytest.mark.parametrize("code", ERROR_CODES)
@pytest.mark.parametrize("retryable", [True, False])
def test_failure_shape_and_key_order(code: Any, retryable: bool) -> None:
    """A failure envelope is tool, request_id, outcome, error{code, retryable} and nothing more."""
    envelope = failure("deploy_status", REQUEST_ID, code, retryable)
    assert list(envelope) == ["tool", "request_id", "outcome", "error"]
    assert list(envelope["error"]) == ["code", "retryable"]
    assert envelope["outcome"] == "failure"
    assert envelope["error"] == {"code": code, "retryable": retryable}


def test_dumps_gives_one_compact_ascii_line() -> None:
    """dumps() gives one newline-terminated line of compact ASCII JSON that round-trips."""
    envelope = success(
        "ticket_status",
        REQUEST_ID,
        {"untrusted_display_text": "caf\u00e9 \u202e\nnext\u2028line \x1b[31m", "n": [1, 2]},
    )
    text = dumps(envelope)
    assert text.endswith("\n")
    assert text.count("\n") == 1
    assert "\r" not in text
    assert "\u2028" not in text
    assert text.isascii()
    assert all(char.isprintable() for char in text[:-1])
    assert ", " not in text
    assert ": " not in text
    assert json.loads(text) == envelope


def test_dumps_keeps_key_order() -> None:
    """The line lists keys in envelope order."""
    assert dumps(failure("t", REQUEST_ID, "NOT_FOUND", False)) == (
        '{"tool":"t","request_id":"req.envelope.01","outcome":"failure",'
        '"error":{"code":"NOT_FOUND","retryable":false}}\n'
    )


def _check_example(example: Path) -> tuple[Contract, dict[str, Any]]:
    contract = load_contract(example / "contract.toml")
    context = read_context_file(example / "context.json")
    # A contract with a [text] adapter answers in text (response.txt), the others in JSON.
    answer = example / "response.json"
    raw = (answer if answer.exists() else example / "response.txt").read_bytes()
    envelope, diagnostics = check(contract, raw, request_id=REQUEST_ID, context=context, now=NOW)
    assert diagnostics.outcome == "success", diagnostics
    return contract, envelope


@pytest.fixture(params=EXAMPLES, ids=lambda path: path.name)
def example(request: pytest.FixtureRequest) -> tuple[Contract, Any, dict[str, Any]]:
    """(contract, compiled envelope schema, success envelope) for one example."""
    contract, envelope = _check_example(request.param)
    return (
        contract,
        compile_schema(copy.deepcopy(dict(contract.envelope_schema)), formats=False),
        envelope,
    )


def test_envelope_schema_accepts_the_success_envelope(example: Any) -> None:
    """The example's envelope schema compiles and accepts its real success envelope."""
    _, validator, envelope = example
    validator.validate(envelope)


@pytest.mark.parametrize("code", ERROR_CODES)
@pytest.mark.parametrize("retryable", [True, False])
def test_envelope_schema_accepts_failures(example: Any, code: Any, retryable: bool) -> None:
    """The envelope schema accepts a failure envelope for every code and retry hint."""
    contract, validator, _ = example
    validator.validate(failure(contract.tool, REQUEST_ID, code, retryable))


def _mutations(tool: str, envelope: dict[str, Any]) -> dict[str, dict[str, Any]]:
    data = envelope["data"]
    first = next(iter(data))
    return {
        "data-and-error": {**envelope, "error": {"code": "NOT_FOUND", "retryable": False}},
        "failure-with-data": {**failure(tool, REQUEST_ID, "NOT_FOUND", False), "data": data},
        "wrong-tool": {**envelope, "tool": tool + "_x"},
        "short-request-id": {**envelope, "request_id": "req.123"},
        "long-request-id": {**envelope, "request_id": "r" * 65},
        "request-id-newline": {**envelope, "request_id": REQUEST_ID + "\n"},
        "request-id-unicode": {**envelope, "request_id": "req.\u00e9nvelope"},
        "extra-data-key": {**envelope, "data": {**data, "exception_message": "x"}},
        "missing-data-key": {**envelope, "data": {k: v for k, v in data.items() if k != first}},
        "data-value-wrong-type": {**envelope, "data": {**data, first: {"value": "x"}}},
        "extra-top-key": {**envelope, "maintenance": True},
        "outcome-mismatch": {**envelope, "outcome": "failure"},
        "unknown-code": {**failure(tool, REQUEST_ID, "NOT_FOUND", False), "error": {"code": "X"}},
        "error-extra-key": {
            **failure(tool, REQUEST_ID, "NOT_FOUND", False),
            "error": {"code": "NOT_FOUND", "retryable": False, "message": "x"},
        },
        "retryable-not-bool": {
            **failure(tool, REQUEST_ID, "NOT_FOUND", False),
            "error": {"code": "NOT_FOUND", "retryable": 0},
        },
    }


MUTATIONS = list(_mutations("t", {"data": {"a": 1}, "tool": "t"}))


@pytest.mark.parametrize("mutation", MUTATIONS)
def test_envelope_schema_rejects_malformed_envelopes(example: Any, mutation: str) -> None:
    """The envelope schema rejects both data and error, a wrong tool, bad ids and extra data."""
    contract, validator, envelope = example
    bad = _mutations(contract.tool, envelope)[mutation]
    assert not validator.is_valid(bad)


def test_envelope_schema_constrains_projected_values() -> None:
    """A projected value keeps its payload constraint: an unknown deploy state is rejected."""
    contract, envelope = _check_example(ROOT / "examples" / "deploy_status")
    validator = compile_schema(copy.deepcopy(dict(contract.envelope_schema)), formats=False)
    assert not validator.is_valid({**envelope, "data": {**envelope["data"], "state": "exploded"}})


def test_envelope_schema_bounds_display_text() -> None:
    """With display text, the schema requires it and bounds it by max_length."""
    contract = load_contract(DISPLAY_CONTRACT / "contract.toml")
    validator = compile_schema(copy.deepcopy(dict(contract.envelope_schema)), formats=False)
    data = {"ticket": 1, "labels": [], "note": "n", "untrusted_display_text": "x" * 40}
    validator.validate(success(contract.tool, REQUEST_ID, data))
    assert not validator.is_valid(
        success(contract.tool, REQUEST_ID, {**data, "untrusted_display_text": "x" * 41})
    )
    data.pop("untrusted_display_text")
    assert not validator.is_valid(success(contract.tool, REQUEST_ID, data))


def test_envelope_schema_is_draft_2020_12_and_names_the_contract(example: Any) -> None:
    """The envelope schema declares Draft 2020-12 and its comment names tool and version."""
    contract, _, _ = example
    schema = contract.envelope_schema
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert contract.tool in schema["$comment"]
    assert contract.version in schema["$comment"]
    assert json.loads(json.dumps(schema)) == schema


def test_envelope_schema_root_is_an_object(example: Any) -> None:
    """Its root says "type": "object": MCP SDKs refuse an outputSchema whose root does not."""
    contract, _, _ = example
    assert contract.envelope_schema["type"] == "object"
    assert serve_schema([contract.envelope_schema])["type"] == "object"


def test_self_check_decides_as_the_envelope_schema_on_success_envelopes(example: Any) -> None:
    """The pipeline's self-check (the success branch alone) agrees with the whole schema's
    `oneOf` on the real success envelope and each malformed one, and refuses every failure
    envelope (the pipeline only self-checks what it accepts). The request id is left out:
    the self-check does not pattern-match it (`make_request` did)."""
    contract, validator, envelope = example
    for name, candidate in _mutations(contract.tool, envelope).items():
        if name.startswith(("short-request-id", "long-request-id", "request-id")):
            continue
        verdict = contract.success_validator.is_valid(candidate)
        assert verdict == (validator.is_valid(candidate) and candidate["outcome"] == "success"), (
            name
        )
    assert contract.success_validator.is_valid(envelope)
    for code in ERROR_CODES:
        assert not contract.success_validator.is_valid(
            failure(contract.tool, REQUEST_ID, code, False)
        )
