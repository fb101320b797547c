"""Bounded retries in `run_upstream`: scripted attempts and a fake clock (one real sleep)."""

from __future__ import annotations

import hashlib
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from toolguard import Contract, load_contract
from toolguard.error_documents import Mapped
from toolguard.errors import UsageError
from toolguard.frozen import replace
from toolguard.pipeline import RunInterrupted, run_upstream
from toolguard.request import make_request
from toolguard.run import retry
from toolguard.run.policy import RunPolicy
from toolguard.run.retry import RetryPolicy, time_limits
from toolguard.run.spawn import Attempt

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "examples" / "deploy_status"
ARGV = ("deploy-status", "--env", "staging")
REQUEST = make_request("req.retry.0001", {"environment": "staging"})
ANSWER = (DEPLOY / "response.json").read_bytes()


def ok(duration: float = 0.1) -> Attempt:
    return Attempt(ANSWER, b"", 0, duration, exit_status=0)


def exits(status: int, duration: float = 0.1, stdout: bytes = b"") -> Attempt:
    return Attempt(stdout, b"backend unreachable\n", 20, duration, exit_status=status)


def timed_out(duration: float = 1.0) -> Attempt:
    return Attempt(b"", b"", 0, duration, timed_out=True)


NOT_FOUND = Attempt(b'{"error": "not_found"}\n', b"", 0, 0.1, exit_status=0)
BROKEN = Attempt(b'{"environment": "staging", "revision": ', b"", 0, 0.1, exit_status=0)


@dataclass
class FakeClock:
    """Time that moves only when an attempt runs or the loop sleeps; jitter at a fixed fraction."""

    now: float = 1000.0
    jitter: float = 1.0  # where in [low, high] `uniform` lands: 1.0 is the ceiling
    sleeps: list[float] = field(default_factory=list)
    ranges: list[tuple[float, float]] = field(default_factory=list)

    def monotonic(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    def uniform(self, low: float, high: float) -> float:
        self.ranges.append((low, high))
        return low + (high - low) * self.jitter


@dataclass
class FakeRunner:
    """Plays back scripted attempts, advancing the clock by each one's duration."""

    clock: FakeClock
    script: list[Attempt]
    calls: list[dict[str, Any]] = field(default_factory=list)

    def __call__(self, argv: Sequence[str], **options: Any) -> Attempt:
        self.calls.append({"argv": tuple(argv), **options})
        assert self.script, "the retry loop ran more attempts than scripted"
        attempt = self.script.pop(0)
        self.clock.now += attempt.duration
        return attempt

    @property
    def timeouts(self) -> list[float]:
        return [call["timeout"] for call in self.calls]


@pytest.fixture(scope="module")
def deploy() -> Contract:
    return load_contract(DEPLOY / "contract.toml")


def with_retry(contract: Contract, **policy: Any) -> Contract:
    return replace(contract, retry=RetryPolicy(**policy))


def timed(contract: Contract, seconds: float | None) -> Contract:
    """`contract` with `[run] timeout_seconds = seconds` (None: not set)."""
    return replace(contract, run=replace(contract.run, timeout_seconds=seconds))


def play(
    contract: Contract,
    script: list[Attempt],
    *,
    clock: FakeClock | None = None,
    timeout: float | None = None,
    stdin: Path | None = None,
) -> tuple[dict[str, Any], Any, FakeRunner]:
    clock = clock or FakeClock()
    runner = FakeRunner(clock, list(script))
    envelope, diagnostics = run_upstream(
        contract, ARGV, REQUEST, timeout=timeout, stdin=stdin, clock=clock, runner=runner
    )
    return envelope, diagnostics, runner


def test_success_at_first_attempt_runs_once(deploy: Contract) -> None:
    """A first attempt that succeeds is the answer: no retry, one attempt recorded."""
    envelope, diagnostics, runner = play(deploy, [ok()])
    assert envelope["outcome"] == "success"
    assert envelope["data"] == {"environment": "staging", "revision": "a83f19c", "state": "healthy"}
    assert len(runner.calls) == 1
    assert [record.number for record in diagnostics.attempts] == [1]
    assert diagnostics.upstream == ARGV


def test_attempts_stop_at_max_attempts(deploy: Contract) -> None:
    """A retryable failure is retried until max_attempts, then reported retryable."""
    contract = with_retry(deploy, max_attempts=4, budget_seconds=600)
    envelope, diagnostics, runner = play(contract, [exits(255)] * 4)
    assert len(runner.calls) == 4
    assert envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}
    assert [record.number for record in diagnostics.attempts] == [1, 2, 3, 4]
    assert all(record.exit_status == 255 for record in diagnostics.attempts)


def test_default_policy_is_a_single_attempt(deploy: Contract) -> None:
    """Without a [retry] table, even a retryable failure is tried only once."""
    envelope, diagnostics, runner = play(replace(deploy, retry=RetryPolicy()), [exits(255)])
    assert len(runner.calls) == 1
    assert envelope["error"]["retryable"] is True
    assert len(diagnostics.attempts) == 1


def test_delay_that_would_cross_the_budget_ends_the_loop(deploy: Contract) -> None:
    """When the next backoff would end past the budget, the loop stops without sleeping."""
    contract = with_retry(
        timed(deploy, None), max_attempts=5, budget_seconds=1.0, initial_backoff_seconds=2.0
    )
    clock = FakeClock()
    _, diagnostics, runner = play(contract, [exits(255, duration=0.0)], clock=clock)
    assert len(runner.calls) == 1
    assert clock.sleeps == []
    assert len(diagnostics.attempts) == 1


def test_budget_counts_attempt_time_and_sleeps(deploy: Contract) -> None:
    """Time spent running and sleeping both count: retries stop once the budget is used up."""
    contract = with_retry(
        timed(deploy, None),
        max_attempts=10,
        budget_seconds=3.0,
        initial_backoff_seconds=0.5,
        max_backoff_seconds=0.5,
    )
    clock = FakeClock()
    # t=0.8 sleep 0.5 -> 1.3; t=2.1 sleep 0.5 -> 2.6; t=3.4: 3.4 + 0.5 >= 3 ends it.
    _, diagnostics, runner = play(contract, [exits(255, duration=0.8)] * 3, clock=clock)
    assert len(runner.calls) == 3
    assert clock.sleeps == [0.5, 0.5]
    assert len(diagnostics.attempts) == 3


@pytest.mark.parametrize(
    ("attempt", "retry_on"),
    [
        (exits(2), {"UPSTREAM_UNAVAILABLE"}),  # a mapped failure, not retryable
        (exits(255), {"NOT_FOUND"}),  # retryable, but its code is not in retry_on
        (BROKEN, {"INVALID_RESPONSE", "UPSTREAM_UNAVAILABLE"}),  # rejections are final
        (NOT_FOUND, {"NOT_FOUND", "UPSTREAM_UNAVAILABLE"}),  # error document, not retryable
    ],
    ids=["exit-2", "code-not-in-retry-on", "invalid-response", "not-found-document"],
)
def test_only_retryable_codes_in_retry_on_are_retried(
    deploy: Contract, attempt: Attempt, retry_on: set[str]
) -> None:
    """A failure is retried only if it is retryable and its code is in retry_on."""
    contract = with_retry(deploy, max_attempts=3, retry_on=frozenset(retry_on))
    _, diagnostics, runner = play(contract, [attempt])
    assert len(runner.calls) == 1
    assert len(diagnostics.attempts) == 1


def test_retryable_error_document_in_retry_on_is_retried(deploy: Contract) -> None:
    """An error document the contract marks retryable is retried when its code is in retry_on."""
    document = replace(deploy.error_documents[0], meaning=Mapped("NOT_FOUND", True))
    contract = replace(
        with_retry(deploy, max_attempts=3, retry_on=frozenset({"NOT_FOUND"})),
        error_documents=(document,),
    )
    envelope, diagnostics, runner = play(contract, [NOT_FOUND, NOT_FOUND, ok()])
    assert len(runner.calls) == 3
    assert envelope["outcome"] == "success"
    assert [record.error_code for record in diagnostics.attempts] == [
        "NOT_FOUND",
        "NOT_FOUND",
        None,
    ]


def test_success_after_failures_lists_every_attempt_in_order(deploy: Contract) -> None:
    """A success after failures is returned; the diagnostics list each attempt as it happened."""
    contract = with_retry(deploy, max_attempts=3, budget_seconds=60)
    envelope, diagnostics, _ = play(contract, [exits(255), timed_out(), ok()])
    assert envelope["outcome"] == "success"
    assert diagnostics.outcome == "success"
    records = diagnostics.attempts
    assert [record.number for record in records] == [1, 2, 3]
    assert [record.outcome for record in records] == ["failure", "failure", "success"]
    assert [record.exit_status for record in records] == [255, None, 0]
    assert [record.timed_out for record in records] == [False, True, False]
    assert [record.reason for record in records] == ["exit_status", "timeout", None]
    assert records[0].stderr == "backend unreachable\n"
    assert records[2].stdout_size == len(ANSWER)


def test_last_attempt_decides_the_envelope(deploy: Contract) -> None:
    """After a retryable failure, a final non-retryable failure is what the agent sees."""
    contract = with_retry(deploy, max_attempts=3, budget_seconds=60)
    envelope, diagnostics, runner = play(contract, [exits(255), exits(2)])
    assert len(runner.calls) == 2
    assert envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}
    assert diagnostics.reason == "exit_status"
    assert diagnostics.message == "the command exited with status 2"
    assert [record.exit_status for record in diagnostics.attempts] == [255, 2]


def test_final_diagnostics_describe_the_last_response_only(deploy: Contract) -> None:
    """Size, digest and layer in the diagnostics are those of the last attempt's output."""
    contract = with_retry(deploy, max_attempts=3, budget_seconds=60)
    first = exits(255, stdout=b"partial output of attempt one")
    envelope, diagnostics, _ = play(contract, [first, BROKEN])
    assert envelope["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert (diagnostics.layer, diagnostics.reason) == ("parse", diagnostics.attempts[1].reason)
    assert diagnostics.size == len(BROKEN.stdout)
    assert diagnostics.sha256 == hashlib.sha256(BROKEN.stdout).hexdigest()


@pytest.mark.parametrize(
    ("attempt", "expected"),
    [
        (1, 0.5),
        (2, 1.0),
        (3, 2.0),
        (4, 3.0),
        (5, 3.0),
        (10, 3.0),
    ],
)
def test_backoff_ceiling_doubles_and_caps(attempt: int, expected: float) -> None:
    """Full jitter draws from [0, min(max, initial * 2**(n-1))]: doubling, then capped."""
    policy = RetryPolicy(initial_backoff_seconds=0.5, max_backoff_seconds=3.0)
    high, low = FakeClock(jitter=1.0), FakeClock(jitter=0.0)
    assert policy.backoff(attempt, high) == expected
    assert policy.backoff(attempt, low) == 0.0
    assert high.ranges == [(0.0, expected)]


def test_sleeps_follow_the_jittered_backoff(deploy: Contract) -> None:
    """The loop sleeps exactly the jittered delays the policy draws, growing per attempt."""
    contract = with_retry(
        deploy,
        max_attempts=4,
        budget_seconds=600,
        initial_backoff_seconds=0.25,
        max_backoff_seconds=0.75,
    )
    clock = FakeClock(jitter=0.5)
    play(contract, [exits(255)] * 4, clock=clock)
    assert clock.ranges == [(0.0, 0.25), (0.0, 0.5), (0.0, 0.75)]
    assert clock.sleeps == [0.125, 0.25, 0.375]


def test_later_attempts_get_what_is_left_of_the_budget(deploy: Contract) -> None:
    """The first attempt gets the contract's whole timeout; a later one what the budget has left."""
    contract = with_retry(timed(deploy, 1.5), max_attempts=3, budget_seconds=2.0)
    clock = FakeClock(jitter=0.0)  # no backoff: only attempts use the budget
    _, _, runner = play(contract, [exits(255, duration=1.5)] * 2, clock=clock)
    assert runner.timeouts == pytest.approx([1.5, 0.5])


def test_timeout_argument_overrides_the_contracts(deploy: Contract) -> None:
    """An explicit timeout (--timeout) replaces the contract's, still capped by the budget."""
    contract = with_retry(deploy, max_attempts=2, budget_seconds=10)
    clock = FakeClock(jitter=0.0)
    _, _, runner = play(contract, [exits(255, duration=9.5), ok()], clock=clock, timeout=0.75)
    assert runner.timeouts == pytest.approx([0.75, 0.5])


def test_runner_gets_argv_limits_environment_and_stdin(
    deploy: Contract, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The runner is given the argv, the byte budget, the allow-listed env and the stdin file."""
    monkeypatch.setenv("PATH", "/usr/bin:/bin")
    monkeypatch.setenv("TOOLGUARD_NOT_ALLOWED", "secret")
    monkeypatch.delenv("LC_ALL", raising=False)
    source = tmp_path / "stdin"
    _, _, runner = play(deploy, [ok()], stdin=source)
    (call,) = runner.calls
    assert call["argv"] == ARGV
    assert call["max_bytes"] == deploy.limits.max_bytes
    assert call["stdin"] == source
    assert set(call["env"]) <= {"PATH", "HOME", "LANG"}
    assert call["env"]["PATH"] == "/usr/bin:/bin"


def test_a_pipe_as_stdin_with_retries_is_a_usage_error_before_any_attempt(
    deploy: Contract, tmp_path: Path
) -> None:
    """A named pipe gives its bytes to attempt 1 only: with retries, refused, nothing runs."""
    fifo = tmp_path / "stdin"
    os.mkfifo(fifo)
    clock = FakeClock()
    runner = FakeRunner(clock, [exits(255), ok()])
    with pytest.raises(UsageError, match="is a pipe: it can be read once"):
        run_upstream(deploy, ARGV, REQUEST, stdin=fifo, clock=clock, runner=runner)
    assert runner.calls == []


def test_a_pipe_as_stdin_of_a_single_attempt_is_read_once(deploy: Contract, tmp_path: Path) -> None:
    """Without retries a pipe is read once anyway: it is passed on as before."""
    fifo = tmp_path / "stdin"
    os.mkfifo(fifo)
    _, _, runner = play(with_retry(deploy), [ok()], stdin=fifo)
    assert [call["stdin"] for call in runner.calls] == [fifo]


@pytest.mark.parametrize("where", ["contract", "flag"])
def test_explicit_timeout_longer_than_the_default_budget_is_honoured(
    deploy: Contract, where: str
) -> None:
    """A 100 s timeout without a [retry] budget runs 100 s: the budget follows it, not 60 s."""
    contract = replace(timed(deploy, 100 if where == "contract" else None), retry=RetryPolicy())
    timeout = 100 if where == "flag" else None
    envelope, _, runner = play(contract, [timed_out(duration=100)], timeout=timeout)
    assert runner.timeouts == [100]
    assert envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}


def test_a_budget_that_followed_the_timeout_still_bounds_the_retries(deploy: Contract) -> None:
    """With the budget grown to a 100 s timeout, later attempts get what is left of 100 s."""
    contract = with_retry(timed(deploy, 100), max_attempts=3, initial_backoff_seconds=0.5)
    clock = FakeClock(jitter=1.0)
    _, diagnostics, runner = play(contract, [exits(255, duration=40)] * 3, clock=clock)
    # t=40 sleep 0.5; t=80.5 sleep 1.0; the third attempt gets 100 - 81.5 = 18.5 s.
    assert runner.timeouts == pytest.approx([100, 59.5, 18.5])
    assert len(diagnostics.attempts) == 3


def test_unset_timeout_stays_within_an_explicit_budget(deploy: Contract) -> None:
    """No timeout written down and `budget_seconds = 10`: the default 30 s is cut to the budget."""
    contract = with_retry(timed(deploy, None), budget_seconds=10)
    _, _, runner = play(contract, [ok()])
    assert runner.timeouts == [10]


def test_flag_longer_than_an_explicit_budget_is_a_usage_error(deploy: Contract) -> None:
    """`--timeout 100` against `budget_seconds = 60` is refused, naming both; nothing runs."""
    contract = with_retry(deploy, max_attempts=2, budget_seconds=60)
    clock = FakeClock()
    runner = FakeRunner(clock, [])
    with pytest.raises(UsageError) as info:
        run_upstream(contract, ARGV, REQUEST, timeout=100, clock=clock, runner=runner)
    assert "--timeout 100" in str(info.value)
    assert "budget_seconds = 60" in str(info.value)
    assert runner.calls == []


@pytest.mark.parametrize(
    ("contract_timeout", "budget", "flag", "expected"),
    [
        (None, None, None, (30, 60)),
        (None, None, 100, (100, 100)),
        (100, None, None, (100, 100)),
        (100, None, 5, (5, 60)),
        (5, None, None, (5, 60)),
        (None, 10, None, (10, 10)),
        (5, 10, None, (5, 10)),
        (5, 10, 10, (10, 10)),
        (None, 120, 100, (100, 120)),
    ],
)
def test_time_limits_honour_what_was_written(
    contract_timeout: float | None,
    budget: float | None,
    flag: float | None,
    expected: tuple[float, float],
) -> None:
    """(per-attempt timeout, budget): an explicit timeout whole; an unset budget as long or more."""
    run = RunPolicy(timeout_seconds=contract_timeout)
    assert time_limits(run, RetryPolicy(budget_seconds=budget), flag) == expected


@pytest.mark.parametrize("flag", [0.0, -1.0, float("nan")])
def test_time_limits_refuse_a_timeout_that_is_not_positive(flag: float) -> None:
    """A library caller's zero, negative or NaN timeout is a usage error, not an instant kill."""
    with pytest.raises(UsageError, match="positive"):
        time_limits(RunPolicy(), RetryPolicy(), flag)


def test_real_sleep_longer_than_the_default_budget_completes(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A real command with a 3 s timeout ends its 0.6 s sleep though the default budget is 0.3 s."""
    monkeypatch.setattr(retry, "DEFAULT_BUDGET", 0.3)
    contract = replace(timed(load_contract(DEPLOY / "contract.toml"), 3.0), retry=RetryPolicy())
    script = "import sys, time; time.sleep(0.6); sys.stdout.write(open(sys.argv[1]).read())"
    argv = (sys.executable, "-I", "-c", script, str(DEPLOY / "response.json"))
    envelope, diagnostics = run_upstream(contract, argv, REQUEST)
    assert envelope["outcome"] == "success", diagnostics.message
    (attempt,) = diagnostics.attempts
    assert attempt.timed_out is False


class Interrupting(FakeClock):
    """A clock whose first backoff sleep is interrupted (SIGTERM, as `KeyboardInterrupt`)."""

    def sleep(self, seconds: float) -> None:
        raise KeyboardInterrupt


def test_an_interruption_between_attempts_keeps_the_attempts_done(deploy: Contract) -> None:
    """Interrupted in the backoff: the finished attempt is kept; no command was running."""
    runner = FakeRunner(Interrupting(), [exits(255)])
    with pytest.raises(KeyboardInterrupt) as caught:
        run_upstream(deploy, ARGV, REQUEST, clock=runner.clock, runner=runner)
    stopped = caught.value
    assert isinstance(stopped, RunInterrupted)
    assert [(record.number, record.exit_status) for record in stopped.attempts] == [(1, 255)]
    assert stopped.responses == [b""]
    assert not stopped.running
    assert "no command was running" in stopped.why


def test_an_interruption_during_an_attempt_says_its_command_was_killed(deploy: Contract) -> None:
    """Interrupted while attempt 2 runs: attempt 1 is kept, and the message names the kill."""

    def runner(argv: Sequence[str], **options: Any) -> Attempt:
        if clock.sleeps:
            raise KeyboardInterrupt  # the real runner kills the group on its way out
        return exits(255)

    clock = FakeClock()
    with pytest.raises(RunInterrupted) as caught:
        run_upstream(deploy, ARGV, REQUEST, clock=clock, runner=runner)
    assert [record.number for record in caught.value.attempts] == [1]
    assert caught.value.running
    assert "attempt 2: the command's process group was killed" in caught.value.why
