"""`toolguard run` end to end: a real command, one envelope on stdout, diagnostics apart."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, RunToolguard

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "examples" / "deploy_status"
DISK_USAGE = REPO / "examples" / "disk_usage"
PROBE = REPO / "tests" / "data" / "contracts" / "good" / "run_probe" / "contract.toml"
REQUEST_ID = "req.run.test.0001"
CANARY = "Qz7RUNCANARYxK"
PYTHON = (sys.executable, "-I", "-c")
DEPLOY_ARGS = (
    "run",
    DEPLOY / "contract.toml",
    "--request-id",
    REQUEST_ID,
    "--context",
    "environment=staging",
    "--diagnostics",
    "json",
)
UPSTREAM = (sys.executable, DEPLOY / "upstream.py")
DEPLOY_DATA = {"environment": "staging", "revision": "a83f19c", "state": "healthy"}


def failure(tool: str, code: str, retryable: bool) -> dict[str, Any]:
    return {
        "tool": tool,
        "request_id": REQUEST_ID,
        "outcome": "failure",
        "error": {"code": code, "retryable": retryable},
    }


def deploy(run_toolguard: RunToolguard, *upstream_args: str | Path) -> Run:
    """`toolguard run` on the deploy_status contract with the example upstream and `args`."""
    return run_toolguard(*DEPLOY_ARGS, "--", *UPSTREAM, *upstream_args)


def test_success_envelope_from_the_example_upstream(run_toolguard: RunToolguard) -> None:
    """The example upstream's answer passes: a success envelope, exit 0, one attempt."""
    run = deploy(run_toolguard)
    assert run.status == 0, run.stderr
    assert run.envelope() == {
        "tool": "deploy_status",
        "request_id": REQUEST_ID,
        "outcome": "success",
        "data": DEPLOY_DATA,
    }
    diagnostics = run.diagnostics()
    assert diagnostics["outcome"] == "success"
    assert diagnostics["upstream"] == [*map(str, UPSTREAM)]
    assert [attempt["exit_status"] for attempt in diagnostics["attempts"]] == [0]


@pytest.mark.parametrize(
    ("flag", "code", "layer", "reason"),
    [
        ("--broken", "INVALID_RESPONSE", "schema", None),
        ("--banner", "INVALID_RESPONSE", "parse", None),
        ("--not-found", "NOT_FOUND", "upstream", "error_document"),
    ],
)
def test_bad_answers_become_final_failures(
    run_toolguard: RunToolguard, flag: str, code: str, layer: str, reason: str | None
) -> None:
    """Drift, a banner and the error document each give their code, once, with exit 1."""
    run = deploy(run_toolguard, flag)
    assert run.status == 1, run.stderr
    assert run.envelope() == failure("deploy_status", code, False)
    diagnostics = run.diagnostics()
    assert diagnostics["layer"] == layer
    if reason is not None:
        assert diagnostics["reason"] == reason
    assert len(diagnostics["attempts"]) == 1


def test_exit_255_is_retried_up_to_max_attempts(run_toolguard: RunToolguard) -> None:
    """ssh's 255 is retryable: three attempts (the contract's max), reported retryable."""
    run = deploy(run_toolguard, "--fail", "255")
    assert run.status == 1
    assert run.envelope() == failure("deploy_status", "UPSTREAM_UNAVAILABLE", True)
    attempts = run.diagnostics()["attempts"]
    assert [attempt["number"] for attempt in attempts] == [1, 2, 3]
    assert {attempt["exit_status"] for attempt in attempts} == {255}


def test_other_exit_status_is_final(run_toolguard: RunToolguard) -> None:
    """Exit 2 is not retryable: one attempt, retryable false."""
    run = deploy(run_toolguard, "--fail", "2")
    assert run.status == 1
    assert run.envelope() == failure("deploy_status", "UPSTREAM_UNAVAILABLE", False)
    diagnostics = run.diagnostics()
    assert [attempt["exit_status"] for attempt in diagnostics["attempts"]] == [2]
    assert diagnostics["reason"] == "exit_status"


def test_command_not_found_is_a_failure_envelope_and_a_clear_message(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """A missing command yields a failure envelope and says on stderr it could not start."""
    missing = tmp_path / "no-such-command"
    run = run_toolguard(*DEPLOY_ARGS[:-2], "--", missing)
    assert run.status == 1
    assert run.envelope() == failure("deploy_status", "UPSTREAM_UNAVAILABLE", False)
    text = run.stderr.decode()
    assert "not started (No such file or directory)" in text
    assert "cannot run the command" in text
    assert str(missing) in text


def test_child_stderr_reaches_diagnostics_never_stdout(run_toolguard: RunToolguard) -> None:
    """What the command writes to stderr is shown to the operator, escaped, never to the agent."""
    script = (
        f"import sys; print('\\x1b[31m' + {CANARY!r}, file=sys.stderr); "
        f"sys.stdout.write(open(sys.argv[1]).read())"
    )
    run = run_toolguard(*DEPLOY_ARGS, "--", *PYTHON, script, DEPLOY / "response.json")
    assert run.status == 0, run.stderr
    assert CANARY.encode() not in run.stdout
    assert run.envelope()["data"] == DEPLOY_DATA
    (attempt,) = run.diagnostics()["attempts"]
    assert attempt["stderr"] == f"\\x1b[31m{CANARY}\\n"  # control characters escaped
    assert attempt["stderr_size"] == len(CANARY) + 6
    assert b"\x1b" not in run.stderr


def test_no_byte_of_a_rejected_response_reaches_stdout(run_toolguard: RunToolguard) -> None:
    """A rejected answer carrying a canary leaves stdout holding only the failure envelope."""
    drifted = {"environment": "staging", "revision": "a83f19c", "state": {"recovery": CANARY}}
    script = f"print({json.dumps(drifted)!r})"
    run = run_toolguard(*DEPLOY_ARGS, "--", *PYTHON, script)
    assert run.status == 1
    expected = failure("deploy_status", "INVALID_RESPONSE", False)
    assert run.stdout == json.dumps(expected, separators=(",", ":")).encode() + b"\n"
    assert CANARY.encode() not in run.stdout


def test_stdin_from_feeds_the_command(run_toolguard: RunToolguard) -> None:
    """--stdin-from gives the command that file as its stdin."""
    script = "import sys; sys.stdout.write(sys.stdin.read())"
    run = run_toolguard(
        *DEPLOY_ARGS, "--stdin-from", DEPLOY / "response.json", "--", *PYTHON, script
    )
    assert run.status == 0, run.stderr
    assert run.envelope()["data"] == DEPLOY_DATA


@pytest.mark.parametrize("name", ["-", "/dev/stdin", "/proc/self/fd/0"])
def test_stdin_from_is_never_this_commands_own_piped_stdin(
    run_toolguard: RunToolguard, name: str
) -> None:
    """A pipe is read once: a retried attempt would read it drained. A usage error, by any name."""
    script = "import sys; sys.stdout.write(sys.stdin.read())"
    response = (DEPLOY / "response.json").read_bytes()
    run = run_toolguard(*DEPLOY_ARGS, "--stdin-from", name, "--", *PYTHON, script, stdin=response)
    assert run.status == 2, run.stderr
    assert run.stdout == b""
    assert b"standard input can be read once" in run.stderr


def test_stdin_from_a_named_pipe_with_retries_is_a_usage_error(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """deploy_status retries: a FIFO as --stdin-from would reach attempt 2 drained. Exit 2."""
    fifo = tmp_path / "stdin"
    os.mkfifo(fifo)
    run = run_toolguard(*DEPLOY_ARGS, "--stdin-from", fifo, "--", *UPSTREAM)
    assert run.status == 2, run.stderr
    assert run.stdout == b""
    assert b"is a pipe: it can be read once" in run.stderr


def test_timeout_flag_overrides_the_contract(run_toolguard: RunToolguard) -> None:
    """--timeout 0.5 ends a sleeping command long before the contract's 5 s."""
    started = time.monotonic()
    run = run_toolguard(
        "run", PROBE, "--request-id", REQUEST_ID, "--diagnostics", "json", "--timeout", "0.5",
        "--", *PYTHON, "import time; time.sleep(30)",
    )  # fmt: skip
    assert time.monotonic() - started < 4.5
    assert run.status == 1
    assert run.envelope() == failure("run_probe", "UPSTREAM_UNAVAILABLE", True)
    diagnostics = run.diagnostics()
    assert diagnostics["reason"] == "timeout"
    (attempt,) = diagnostics["attempts"]
    assert attempt["timed_out"] is True
    assert 500 <= attempt["duration_ms"] < 2500


@pytest.mark.parametrize("after", [(), ("--",)], ids=["no-command", "empty-command"])
def test_missing_command_is_a_usage_error(run_toolguard: RunToolguard, after: tuple[str]) -> None:
    """`run CONTRACT` without a command is a usage error: exit 2, nothing on stdout."""
    run = run_toolguard("run", DEPLOY / "contract.toml", *after)
    assert run.status == 2
    assert run.stdout == b""
    assert b"COMMAND" in run.stderr


# What toolguard itself is started with in the environment tests (nothing else: `env -i`).
# LC_ALL keeps Python from coercing the C locale, which would add LC_CTYPE on its own.
LAUNCH_ENV = {
    "PATH": os.environ["PATH"],
    "HOME": "/home/probe",
    "LC_ALL": "C.UTF-8",
    "SSH_AUTH_SOCK": "/tmp/probe-agent.sock",
    "AWS_SECRET_ACCESS_KEY": CANARY,
    "PROBE_KEPT": "kept value",
    "PROBE_DROPPED": "secret",
    "PROBE_PREFIX_A": "a",
    "TOOLGUARD_AUDIT_KEY": "/nonexistent/toolguard.key",
    "TOOLGUARD_CACHE_DIR": os.environ["TOOLGUARD_CACHE_DIR"],
}
ENV_CASES = {
    "listed": (PROBE, {"PATH", "PROBE_KEPT", "PROBE_PREFIX_A"}),
    "default": (
        PROBE.parents[1] / "run_probe_env_default" / "contract.toml",
        {"PATH", "HOME", "LC_ALL", "SSH_AUTH_SOCK"},
    ),
    "inherit": (
        PROBE.parents[1] / "run_probe_env_inherit" / "contract.toml",
        {name for name in LAUNCH_ENV if not name.startswith("TOOLGUARD_")},
    ),
}


@pytest.mark.parametrize("case", ENV_CASES)
def test_command_sees_exactly_the_environment_the_contract_allows(
    run_toolguard: RunToolguard, case: str
) -> None:
    """`env = [...]` passes its names, no `env` the default list, `"*"` all; never TOOLGUARD_*."""
    env_program = shutil.which("env")
    if env_program is None or not Path("/proc/self/environ").exists():
        pytest.skip("needs env(1) and /proc/self/environ")
    contract, names = ENV_CASES[case]
    # NOTE: /proc/self/environ is what exec gave the child, before Python's locale coercion
    # could add LC_CTYPE to os.environ.
    script = (
        "import json; raw = open('/proc/self/environ', 'rb').read(); "
        "print(json.dumps({'env': dict(i.decode().split('=', 1) for i in raw.split(b'\\0') if i)}))"
    )
    settings = [f"{name}={value}" for name, value in LAUNCH_ENV.items()]
    launcher = [env_program, "-i", *settings, sys.executable, "-m", "toolguard"]
    run = run_toolguard(
        "run", contract, "--request-id", REQUEST_ID, "--", *PYTHON, script, command=launcher
    )
    assert run.status == 0, run.stderr
    assert run.envelope()["data"]["env"] == {name: LAUNCH_ENV[name] for name in names}


def test_disk_usage_example_reads_real_df_output(run_toolguard: RunToolguard) -> None:
    """The text adapter accepts this machine's own `df -P` through `toolguard run`."""
    df = shutil.which("df")
    if df is None:
        pytest.skip("no df(1) on this machine")
    run = run_toolguard(
        "run", DISK_USAGE / "contract.toml", "--request-id", REQUEST_ID, "--", df, "-P"
    )
    assert run.status == 0, run.stderr
    file_systems = run.envelope()["data"]["file_systems"]
    assert any(entry["mount"] == "/" for entry in file_systems)


def test_a_cut_command_output_is_refused_by_a_contract_for_mcp_text_blocks_too(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`[mcp] payload = "text"` lets an MCP text block end without a newline; a command's
    output through `run` still needs its final one: a cut last line is never accepted."""
    shutil.copytree(DISK_USAGE, tmp_path / "disk_usage")
    contract = tmp_path / "disk_usage" / "contract.toml"
    contract.write_text(contract.read_text() + '\n[mcp]\npayload = "text"\n')
    whole = tmp_path / "disk_usage" / "response.txt"
    cut = tmp_path / "cut.txt"
    cut.write_bytes(whole.read_bytes()[:-3])  # "/mnt/build cac", a valid mount all the same
    for output, status in ((whole, 0), (cut, 1)):
        done = run_toolguard("run", contract, "--diagnostics", "json", "--", "cat", output)
        assert done.status == status, done.stderr
    assert done.diagnostics()["reason"] == "unterminated_line"


@pytest.mark.parametrize(
    "signum", [signal.SIGTERM, signal.SIGINT, signal.SIGHUP], ids=["SIGTERM", "SIGINT", "SIGHUP"]
)
def test_signal_ends_run_promptly_and_kills_the_command(
    tmp_path: Path, signum: signal.Signals
) -> None:
    """A signal to a running `toolguard run` kills the command's group and still answers."""
    pids = tmp_path / "pids"
    script = (
        "import os, subprocess, sys, time\n"
        "grand = subprocess.Popen([sys.executable, '-I', '-c', 'import time; time.sleep(60)'])\n"
        "with open(sys.argv[1] + '.tmp', 'w') as f: f.write(f'{os.getpid()} {grand.pid}')\n"
        "os.replace(sys.argv[1] + '.tmp', sys.argv[1])\n"
        "time.sleep(60)\n"
    )
    argv = [
        sys.executable, "-m", "toolguard", "run", str(PROBE), "--request-id", REQUEST_ID,
        "--diagnostics", "json", "--", *PYTHON, script, str(pids),
    ]  # fmt: skip
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO
    ) as toolguard:
        deadline = time.monotonic() + 10
        while not pids.exists():
            assert time.monotonic() < deadline, "the command never started"
            assert toolguard.poll() is None, toolguard.communicate()
            time.sleep(0.02)
        child, grandchild = map(int, pids.read_text().split())
        signalled = time.monotonic()
        toolguard.send_signal(signum)
        stdout, stderr = toolguard.communicate(timeout=10)
    assert time.monotonic() - signalled < 2
    assert toolguard.returncode == 1, stderr
    assert json.loads(stdout) == failure("run_probe", "UPSTREAM_UNAVAILABLE", True)
    assert b"interrupted" in stderr
    for pid in (child, grandchild):
        assert gone(pid), f"process {pid} of the command's group survived"


def test_a_sighup_the_caller_ignores_leaves_the_run_to_finish(tmp_path: Path) -> None:
    """`nohup toolguard run ...`: a hangup is ignored, the command's answer is the answer."""
    started = tmp_path / "started"
    script = (
        "import json, pathlib, sys, time\n"
        "pathlib.Path(sys.argv[1]).touch()\n"
        "time.sleep(0.5)\n"
        "print(json.dumps({'env': {}}))\n"
    )
    argv = [
        "sh", "-c", 'trap "" HUP; exec "$@"', "nohup",  # as nohup does: SIGHUP ignored
        sys.executable, "-m", "toolguard", "run", str(PROBE), "--request-id", REQUEST_ID,
        "--", *PYTHON, script, str(started),
    ]  # fmt: skip
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO
    ) as toolguard:
        deadline = time.monotonic() + 10
        while not started.exists():
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        toolguard.send_signal(signal.SIGHUP)
        stdout, stderr = toolguard.communicate(timeout=20)
    assert toolguard.returncode == 0, stderr
    assert json.loads(stdout)["outcome"] == "success"


def test_an_interrupted_run_still_lists_the_attempts_it_finished(tmp_path: Path) -> None:
    """SIGTERM during attempt 2: attempt 1 (exit 255, its stderr) is in the diagnostics."""
    runs = tmp_path / "runs"
    script = (
        "import pathlib, sys, time\n"
        "runs = pathlib.Path(sys.argv[1])\n"
        "if not runs.exists():\n"
        "    runs.write_text('1')\n"
        "    sys.stderr.write('backend unreachable\\n')\n"
        "    sys.exit(255)\n"
        "runs.write_text('2')\n"
        "time.sleep(60)\n"
    )
    argv = [
        sys.executable,
        "-m",
        "toolguard",
        *map(str, DEPLOY_ARGS),
        "--",
        *PYTHON,
        script,
        str(runs),
    ]
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO
    ) as toolguard:
        deadline = time.monotonic() + 20
        while not (runs.exists() and runs.read_text() == "2"):
            assert time.monotonic() < deadline, "attempt 2 never started"
            assert toolguard.poll() is None, toolguard.communicate()
            time.sleep(0.02)
        toolguard.send_signal(signal.SIGTERM)
        stdout, stderr = toolguard.communicate(timeout=10)
    assert toolguard.returncode == 1, stderr
    assert json.loads(stdout) == failure("deploy_status", "UPSTREAM_UNAVAILABLE", True)
    diagnostics = json.loads(stderr)
    assert diagnostics["reason"] == "interrupted"
    assert "attempt 2" in diagnostics["message"]
    assert [(each["number"], each["exit_status"]) for each in diagnostics["attempts"]] == [(1, 255)]
    assert diagnostics["attempts"][0]["stderr"].startswith("backend unreachable")
    assert diagnostics["duration_ms"] >= diagnostics["attempts"][0]["duration_ms"]


# NOTE: the stop's interrupt is lost as Python loses one raised in a weakref callback
# (importlib's module locks have one): the handler runs during attempt 1, its exception goes
# nowhere, and the attempt ends as if nothing happened.
_LOST = """
import signal, sys
from toolguard.launch import run
from toolguard.run import spawn

attempt, handler = spawn.run_command, []

def lost_during(*args, **kwargs):
    if not handler:  # attempt 1 only: the handler ignores every stop after the first
        handler.append(signal.getsignal(signal.SIGTERM))
        try:
            handler[0](signal.SIGTERM, None)
        except KeyboardInterrupt:
            pass
    return attempt(*args, **kwargs)

spawn.run_command = lost_during
sys.argv[:] = ["toolguard", *sys.argv[1:]]
run(sys.argv)
"""


def test_a_stop_whose_interrupt_was_lost_ends_the_run_before_the_next_attempt(
    tmp_path: Path,
) -> None:
    """Attempt 1 exits 255 (retryable); the stop asked during it ends the run there: the
    interrupted envelope (1), attempt 1 listed, no attempt 2."""
    runs = tmp_path / "runs"
    script = (
        "import pathlib, sys\n"
        "runs = pathlib.Path(sys.argv[1])\n"
        "runs.write_text(runs.read_text() + 'x' if runs.exists() else 'x')\n"
        "sys.exit(255)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", _LOST, *map(str, DEPLOY_ARGS), "--", *PYTHON, script, str(runs)],
        capture_output=True, cwd=REPO, timeout=60, check=False,
    )  # fmt: skip
    assert runs.read_text() == "x", "a second attempt started"
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout) == failure("deploy_status", "UPSTREAM_UNAVAILABLE", True)
    diagnostics = json.loads(done.stderr)
    assert diagnostics["reason"] == "interrupted"
    assert [(each["number"], each["exit_status"]) for each in diagnostics["attempts"]] == [(1, 255)]


def gone(pid: int, within: float = 2.0) -> bool:
    """Whether `pid` has ended (a zombie nobody reaped counts as ended) within `within` s."""
    deadline = time.monotonic() + within
    while True:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        except OSError:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return True
            state = "R"
        if state == "Z":
            return True
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)  # do not leave it behind for the rest of the run
            return False
        time.sleep(0.01)


def test_now_after_the_command_is_not_toolguards_clock(run_toolguard: RunToolguard) -> None:
    """A stale answer stays stale: `--now` after COMMAND goes to the command, not the clock."""
    job_run = REPO / "examples" / "job_run"
    observed = json.loads((job_run / "response.json").read_text())["observed_at"]
    script = "import sys; sys.stdout.write(open(sys.argv[1]).read())"
    run = run_toolguard(
        "run", job_run / "contract.toml", "--context-file", job_run / "context.json",
        "--diagnostics", "json", *PYTHON, script, job_run / "response.json", f"--now={observed}",
    )  # fmt: skip
    assert run.status == 1, run.stderr
    diagnostics = run.diagnostics()
    assert (diagnostics["layer"], diagnostics["reason"]) == ("rule", "stale")
    assert diagnostics["upstream"][-1] == f"--now={observed}"


def test_audit_flags_after_the_command_are_the_commands(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`--audit-log` and `--audit-optional` after COMMAND reach its argv; toolguard writes none."""
    log = tmp_path / "injected.jsonl"
    script = "import json, sys; print(json.dumps({'env': dict(enumerate(sys.argv[1:]))}))"
    trailing = ["--audit-log", str(log), "--audit-optional", "--timeout", "0.001"]
    run = run_toolguard("run", PROBE, "--request-id", REQUEST_ID, *PYTHON, script, *trailing)
    assert run.status == 0, run.stderr
    assert run.envelope()["data"]["env"] == {str(i): word for i, word in enumerate(trailing)}
    assert not log.exists()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="a subreaper is Linux-only")
@pytest.mark.parametrize("after", ["exit", "hang"], ids=["command-exits", "command-times-out"])
@pytest.mark.parametrize("mode", ["setsid", "setpgid", "double-fork"])
def test_descendants_that_leave_the_group_end_with_the_attempt(
    run_toolguard: RunToolguard, tmp_path: Path, mode: str, after: str
) -> None:
    """A grandchild that setsid()s, setpgid()s or double-forks is gone when `run` returns."""
    pidfile = tmp_path / "escaped.pid"
    command = (sys.executable, "-I", REPO / "tests" / "data" / "commands" / "leave_group.py")
    run = run_toolguard(
        "run", PROBE, "--request-id", REQUEST_ID, "--diagnostics", "json", "--timeout", "1",
        *command, pidfile, mode, after,
    )  # fmt: skip
    escaped = int(pidfile.read_text())
    try:
        os.kill(escaped, 0)
    except ProcessLookupError:
        pass  # ended and reaped: nothing of the attempt is left
    else:
        os.kill(escaped, signal.SIGKILL)
        pytest.fail(f"process {escaped} ({mode}) outlived `toolguard run`")
    outcome = run.envelope()["outcome"]
    assert outcome == ("success" if after == "exit" else "failure"), run.stderr


def test_timeout_flag_longer_than_the_contracts_budget_is_a_usage_error(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`--timeout 20` against deploy_status's `budget_seconds = 10`: exit 2, both named, no run."""
    marker = tmp_path / "ran"
    run = run_toolguard(*DEPLOY_ARGS, "--timeout", "20", *PYTHON, f"open({str(marker)!r}, 'w')")
    assert run.status == 2
    assert run.stdout == b""
    assert b"--timeout 20" in run.stderr
    assert b"budget_seconds = 10" in run.stderr
    assert not marker.exists()
