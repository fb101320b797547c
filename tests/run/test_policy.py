"""Reading an attempt's failure: what each way of failing means for the agent (`RunPolicy`)."""

from __future__ import annotations

import signal
from pathlib import Path
from types import MappingProxyType
from typing import Any

import pytest

from toolguard import error_documents, load_contract
from toolguard.error_documents import Mapped
from toolguard.errors import UpstreamError
from toolguard.frozen import replace
from toolguard.pipeline import check_attempt
from toolguard.request import make_request
from toolguard.run.policy import RunPolicy
from toolguard.run.spawn import Attempt

ROOT = Path(__file__).resolve().parents[2]
DEFAULT = RunPolicy()


def attempt(**fields: object) -> Attempt:
    return Attempt(b"", b"", 0, 0.25, **fields)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fields", "reason", "retryable"),
    [
        ({"spawn_error": "No such file or directory"}, "not_started", False),
        ({"timed_out": True}, "timeout", True),
        ({"signal": signal.SIGKILL}, "killed", True),
    ],
    ids=["spawn-error", "timeout", "signal"],
)
def test_failures_decided_before_the_output_is_read(
    fields: dict[str, object], reason: str, retryable: bool
) -> None:
    """Not started, timed out or killed are UPSTREAM_UNAVAILABLE before any parsing."""
    failure = DEFAULT.before_output(attempt(**fields))
    assert isinstance(failure, UpstreamError)
    assert (failure.reason, failure.code, failure.retryable) == (
        reason,
        "UPSTREAM_UNAVAILABLE",
        retryable,
    )
    assert failure.layer == "upstream"


def test_signal_is_named_in_the_message() -> None:
    """A signal is reported by name for the operator."""
    failure = DEFAULT.before_output(attempt(signal=signal.SIGSEGV))
    assert failure is not None
    assert "SIGSEGV" in failure.message


@pytest.mark.parametrize(
    "fields",
    [
        {"exit_status": 0},
        {"exit_status": 2},
        {"exit_status": 255},
        {"over_limit": True, "signal": 9},
    ],
)
def test_output_is_read_when_nothing_decides_before(fields: dict[str, object]) -> None:
    """Exit 0, any exit status (for an error document), or output over the limit are read."""
    assert DEFAULT.before_output(attempt(**fields)) is None


def test_unmapped_non_zero_exit_fails_even_with_a_valid_answer() -> None:
    """An unmapped non-zero status is a non-retryable failure, however good the output."""
    contract = load_contract(ROOT / "examples" / "deploy_status" / "contract.toml")
    raw = (ROOT / "examples" / "deploy_status" / "response.json").read_bytes()
    request = make_request("req.policy.0001", {"environment": "staging"}, "2026-03-14T09:30:00Z")
    failed = check_attempt(contract, Attempt(raw, b"", 0, 0.1, exit_status=2), request)
    assert failed.envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}
    assert failed.diagnostics.reason == "exit_status"
    worked = check_attempt(contract, Attempt(raw, b"", 0, 0.1, exit_status=0), request)
    assert worked.envelope["outcome"] == "success"  # exit 0 without an error document


def test_exit_255_is_retryable_by_default() -> None:
    """ssh's connection failure: UPSTREAM_UNAVAILABLE, retryable; other statuses are not."""
    failure = DEFAULT.exit_failure(255)
    assert (failure.reason, failure.code, failure.retryable) == (
        "exit_status",
        "UPSTREAM_UNAVAILABLE",
        True,
    )
    assert DEFAULT.exit_failure(2).retryable is False


def test_contract_mapping_overrides_the_default() -> None:
    """A mapped exit status gives the contract's code and retry hint."""
    policy = RunPolicy(exit_statuses=MappingProxyType({3: Mapped("NOT_FOUND", False)}))
    failure = policy.exit_failure(3)
    assert (failure.code, failure.retryable) == ("NOT_FOUND", False)
    assert policy.exit_failure(255).retryable is False  # no longer mapped here


DEPLOY = ROOT / "examples" / "deploy_status" / "contract.toml"
NOT_FOUND = b'{"error": "not_found"}\n'
CUT_OFF = NOT_FOUND + b" " * 4096  # over deploy_status's max_bytes, as an over-limit read is
DEPLOY_REQUEST = make_request("req.policy.0002", {"environment": "staging"})


@pytest.mark.parametrize("status", [0, 3, 255, 4])
def test_an_error_document_wins_whatever_the_exit_status(status: int) -> None:
    """Built-in (255), contract-mapped (4) or unmapped: the document says what happened."""
    contract = load_contract(DEPLOY)
    mapped = {**contract.run.exit_statuses, 4: Mapped("UPSTREAM_UNAVAILABLE", True)}
    run = replace(contract.run, exit_statuses=MappingProxyType(mapped))
    contract = replace(contract, run=run)
    failed = check_attempt(
        contract, Attempt(NOT_FOUND, b"", 0, 0.1, exit_status=status), DEPLOY_REQUEST
    )
    assert failed.envelope["error"] == {"code": "NOT_FOUND", "retryable": False}
    assert failed.diagnostics.reason == "error_document"


@pytest.mark.parametrize(
    ("fields", "raw"),
    [
        ({"timed_out": True}, NOT_FOUND),
        ({"signal": signal.SIGTERM}, NOT_FOUND),
        ({"over_limit": True, "signal": signal.SIGKILL}, CUT_OFF),
        ({"over_limit": True, "exit_status": 3}, CUT_OFF),
    ],
    ids=["timeout", "signal", "over-limit", "over-limit-exited"],
)
def test_an_unfinished_attempt_is_never_read_as_an_error_document(
    fields: dict[str, Any], raw: bytes
) -> None:
    """What a timed-out, killed or cut-off command printed may be half an answer."""
    failed = check_attempt(
        load_contract(DEPLOY), Attempt(raw, b"", 0, 0.1, **fields), DEPLOY_REQUEST
    )
    assert failed.envelope["error"]["code"] != "NOT_FOUND"


def test_error_document_gives_its_code() -> None:
    """A payload matching a declared error document becomes that document's code."""
    documents = load_contract(ROOT / "examples" / "deploy_status" / "contract.toml").error_documents
    reported = error_documents.match(documents, {"error": "not_found"})
    assert reported is not None
    assert (reported.reason, reported.code) == ("error_document", "NOT_FOUND")
    assert error_documents.match(documents, {"error": "not_found", "detail": "x"}) is None


def test_environment_allow_list() -> None:
    """The child gets the listed variables that are set, the default list, or all if "*"."""
    current = {
        "PATH": "/bin",
        "HOME": "/root",
        "LC_TIME": "C",
        "AWS_SECRET_ACCESS_KEY": "s",
        "TOOLGUARD_AUDIT_KEY": "/k",
    }
    assert RunPolicy(env=("PATH", "LANG")).environment(current) == {"PATH": "/bin"}
    assert RunPolicy(env=()).environment(current) == {}
    assert DEFAULT.environment(current) == {"PATH": "/bin", "HOME": "/root", "LC_TIME": "C"}
    everything = RunPolicy(env="*").environment(current)
    assert everything == {name: current[name] for name in current if name != "TOOLGUARD_AUDIT_KEY"}
