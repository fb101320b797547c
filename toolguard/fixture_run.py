"""`toolguard test`, running: each `Case` through `Contract.check` -> a `CaseResult` value.

A reject case must fail with its expected code and layer (and rule, keyword, reason when
given); an accept or history case must succeed and, when it has one, print exactly its golden
envelope. `--update` rewrites goldens atomically. Rendering is `fixture_report.py`'s job.
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from toolguard import envelope
from toolguard.errors import UsageError
from toolguard.expectation import Expectation, FixtureError, describe, golden_diff, observed
from toolguard.files import public_mode, write_atomic
from toolguard.fixtures import EXPECT, GOLDEN, SETTINGS_FILE, Case, Settings, Suite
from toolguard.request import read_context_file

if TYPE_CHECKING:
    from toolguard.contract import Contract
    from toolguard.result import Outcome

Status = Literal["pass", "fail", "error"]


@dataclass(frozen=True, slots=True)
class CaseResult:
    """What running one case gave: pass, fail (the contract disagrees) or error (bad fixture)."""

    case: Case
    status: Status
    expected: str  # "success", "success + golden", or the expected rejection
    got: str = ""  # "success" or where the check failed (`observed`); empty if it did not run
    message: str = ""  # why it failed; may quote the response, so escape it on display
    diff: str = ""  # golden vs actual envelope, when they differ
    golden: Literal["created", "updated"] | None = None  # what --update wrote
    duration_ms: float = 0.0
    outcome: Outcome | None = None  # the envelope and diagnostics, when the check ran


@dataclass(frozen=True, slots=True)
class SuiteResult:
    """Every case of one contract, and the problems of its fixtures folder."""

    suite: Suite
    tool: str
    results: tuple[CaseResult, ...]

    def count(self, status: Status) -> int:
        """How many cases ended with `status`; folder problems count as errors."""
        extra = len(self.suite.problems) if status == "error" else 0
        return extra + sum(result.status == status for result in self.results)

    @property
    def passed(self) -> bool:
        """Whether every case passed and the fixtures folder had no problem."""
        return not self.suite.problems and all(r.status == "pass" for r in self.results)


def run_suite(  # noqa: PLR0913 - the run's knobs, all keyword-only
    suite: Suite,
    contract: Contract,
    *,
    request_id: str | None = None,
    now: str | None = None,
    update: bool = False,
    on_result: Callable[[CaseResult], None] | None = None,
) -> SuiteResult:
    """Run every case of `suite`; `request_id` and `now` override fixtures.toml's.

    With `update`, the golden envelope of every accepted accept or history case is written
    (created or rewritten) when it differs; each result says which.
    """
    settings = suite.settings
    if settings is not None:
        settings = Settings(request_id or settings.request_id, now or settings.now)
    results = []
    for case in suite.cases:
        if settings is None:
            message = f"not run: {SETTINGS_FILE} is unusable"
            result = CaseResult(case, "error", _expected(case, None), message=message)
        else:
            result = run_case(case, contract, settings, update=update)
        results.append(result)
        if on_result is not None:
            on_result(result)
    return SuiteResult(suite, contract.tool, tuple(results))


def run_case(
    case: Case, contract: Contract, settings: Settings, *, update: bool = False
) -> CaseResult:
    """Check the case's raw bytes with its context and the fixed request, and judge the outcome."""
    started = time.perf_counter()
    expect = None
    try:
        expect = Expectation.read(case.companion(EXPECT)) if case.kind == "reject" else None
        context = read_context_file(case.context_file) if case.context_file else {}
        raw = case.response.read_bytes()
        outcome = contract.check(
            raw, request_id=settings.request_id, context=context, now=settings.now
        )
    except OSError as exc:
        message = f"cannot read {Path(exc.filename or '').name}: {exc.strerror}"
        return CaseResult(case, "error", _expected(case, expect), message=message)
    except (FixtureError, UsageError) as exc:
        return CaseResult(case, "error", _expected(case, expect), message=str(exc))
    result = _judge(case, expect, outcome, update)
    diagnostics = outcome.diagnostics
    got = "success" if diagnostics.outcome == "success" else observed(diagnostics)
    elapsed = round((time.perf_counter() - started) * 1000, 3)
    return replace(result, got=got, duration_ms=elapsed, outcome=outcome)


def _expected(case: Case, expect: Expectation | None) -> str:
    if expect is not None:
        return describe(expect)
    if case.kind == "reject":
        return "a rejection"
    return "success + golden" if case.companion(GOLDEN).exists() else "success"


def _judge(case: Case, expect: Expectation | None, outcome: Outcome, update: bool) -> CaseResult:
    diagnostics = outcome.diagnostics
    expected = _expected(case, expect)
    if diagnostics.outcome == "internal":
        message = f"internal error: {diagnostics.message}"
        return CaseResult(case, "error", expected, message=message)
    if expect is not None:
        mismatch = expect.mismatch(diagnostics)
        return CaseResult(case, "fail" if mismatch else "pass", expected, message=mismatch or "")
    if diagnostics.outcome != "success":
        message = f"expected success, got {observed(diagnostics)}: {diagnostics.message}"
        return CaseResult(case, "fail", expected, message=message)
    golden = case.companion(GOLDEN)
    actual = _serialised(outcome.envelope)
    try:
        previous = golden.read_bytes() if golden.exists() else None
    except OSError as exc:
        message = f"cannot read {golden.name}: {exc.strerror}"
        return CaseResult(case, "error", expected, message=message)
    if previous == actual or (previous is None and not update):
        return CaseResult(case, "pass", expected)
    if update:
        write_atomic(golden, actual, mode=public_mode(golden))
        written: Literal["created", "updated"] = "created" if previous is None else "updated"
        return CaseResult(case, "pass", "success + golden", golden=written)
    diff = golden_diff(previous or b"", actual, golden.name)
    return CaseResult(case, "fail", expected, message="golden envelope differs", diff=diff)


def _serialised(result: dict[str, Any]) -> bytes:
    """The envelope exactly as `toolguard check` prints it (the same writer)."""
    buffer = io.StringIO()
    envelope.write(result, buffer)
    return buffer.getvalue().encode("ascii")
