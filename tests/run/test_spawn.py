"""One bounded attempt at an upstream command, against real child processes that misbehave."""

from __future__ import annotations

import io
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from toolguard import signals
from toolguard.run import spawn as source
from toolguard.run.spawn import DRAIN_GRACE, STDERR_KEPT, Attempt, run_command

# NOTE: the children are this interpreter in isolated mode (-I): no shim, no user site, and
# no environment needed, so `env={}` works for every script below.
PYTHON = (sys.executable, "-I", "-c")
NO_ENV: dict[str, str] = {}
MAX_BYTES = 1 << 20
# Scripts that report a process id write it with an atomic rename, so a reader never sees half.
WRITE_PID = """
import os, sys
def write_pid(pid, path=sys.argv[1]):
    with open(path + ".tmp", "w") as f:
        f.write(str(pid))
    os.replace(path + ".tmp", path)
"""
SLEEPER = "import time; time.sleep(60)"


def run(script: str, *args: str | Path, timeout: float = 5.0, **options: object) -> Attempt:
    """Run a Python `script` as the upstream command."""
    options.setdefault("max_bytes", MAX_BYTES)
    options.setdefault("env", NO_ENV)
    argv = [*PYTHON, script, *map(str, args)]
    return run_command(argv, timeout=timeout, **options)  # type: ignore[arg-type]


def alive(pid: int) -> bool:
    """Whether `pid` still runs; a zombie nobody has reaped yet counts as gone."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except FileNotFoundError:
        return False
    except OSError:  # no /proc: fall back to the signal probe
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return False
        return True
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


def gone(pid: int, within: float = 2.0) -> bool:
    """Whether `pid` is gone, giving a just-sent SIGKILL `within` seconds to land."""
    deadline = time.monotonic() + within
    while alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def read_pids(path: Path) -> list[int]:
    return [int(word) for word in path.read_text().split()]


@pytest.fixture
def pid_file(tmp_path: Path) -> Iterator[Path]:
    """A file a child writes process ids to; whatever they name is SIGKILLed afterwards."""
    path = tmp_path / "pids"
    yield path
    if path.exists():
        for pid in read_pids(path):
            if alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_output_and_exit_status_of_a_normal_command() -> None:
    """A command that prints and exits 0 gives its exact stdout, stderr and status."""
    attempt = run("import sys; print('hello'); print('note', file=sys.stderr)")
    assert attempt.stdout == b"hello\n"
    assert attempt.stderr == b"note\n"
    assert attempt.stderr_size == 5
    assert attempt.exit_status == 0
    assert (attempt.signal, attempt.timed_out, attempt.over_limit) == (None, False, False)
    assert attempt.spawn_error is None
    assert 0 < attempt.duration < 5


@pytest.mark.parametrize("status", [1, 2, 42, 255])
def test_exit_status_is_reported(status: int) -> None:
    """A non-zero exit status is reported as is, with whatever the command printed."""
    attempt = run(f"import sys; print('partial'); sys.exit({status})")
    assert attempt.exit_status == status
    assert attempt.signal is None
    assert attempt.stdout == b"partial\n"


def test_killed_by_a_signal() -> None:
    """A command killed by a signal has that signal set and no exit status."""
    attempt = run("import os, signal; os.kill(os.getpid(), signal.SIGTERM)")
    assert attempt.signal == signal.SIGTERM
    assert attempt.exit_status is None
    assert not attempt.timed_out


def test_timeout_kills_the_whole_group(pid_file: Path) -> None:
    """On timeout the child and its grandchild are both killed, promptly."""
    script = WRITE_PID + (
        "import subprocess, time\n"
        f"grand = subprocess.Popen([sys.executable, '-I', '-c', {SLEEPER!r}])\n"
        "write_pid(f'{os.getpid()} {grand.pid}')\n"
        "time.sleep(60)\n"
    )
    attempt = run(script, pid_file, timeout=0.6)
    assert attempt.timed_out
    assert attempt.exit_status is None
    assert attempt.signal is None
    assert attempt.duration < 0.6 + 2
    pids = read_pids(pid_file)
    assert len(pids) == 2
    assert all(gone(pid) for pid in pids)


def test_timeout_holds_when_the_child_closed_its_pipes(pid_file: Path) -> None:
    """A child that closes stdout and stderr and then hangs still times out and is killed."""
    script = (
        WRITE_PID
        + "import time\nwrite_pid(os.getpid())\nos.close(1); os.close(2)\ntime.sleep(10)\n"
    )
    started = time.monotonic()
    attempt = run(script, pid_file, timeout=0.5)
    assert time.monotonic() - started < 0.5 + 2
    assert attempt.timed_out
    assert attempt.exit_status is None
    assert gone(read_pids(pid_file)[0])


def test_silent_child_times_out() -> None:
    """A child that never writes nor exits ends as a timeout within the limit plus slack."""
    attempt = run(SLEEPER, timeout=0.3)
    assert attempt.timed_out
    assert attempt.stdout == b""
    assert 0.3 <= attempt.duration < 0.3 + 2


def test_endless_stdout_is_cut_at_max_bytes_plus_one(pid_file: Path) -> None:
    """An endless producer is killed as soon as it passes max_bytes; one extra byte is kept."""
    script = (
        WRITE_PID + "write_pid(os.getpid())\nwhile True: sys.stdout.buffer.write(b'x' * 65536)\n"
    )
    attempt = run(script, pid_file, max_bytes=100_000, timeout=10)
    assert attempt.over_limit
    assert not attempt.timed_out
    assert attempt.stdout == b"x" * 100_001
    assert attempt.duration < 2
    assert gone(read_pids(pid_file)[0])


@pytest.mark.parametrize(("size", "over"), [(4096, False), (4097, True)])
def test_max_bytes_boundary(size: int, over: bool) -> None:
    """Exactly max_bytes of output is kept whole; one byte more is over the limit."""
    attempt = run(f"import sys; sys.stdout.buffer.write(b'y' * {size})", max_bytes=4096)
    assert attempt.over_limit is over
    assert attempt.stdout == b"y" * min(size, 4097)


def test_grandchild_holding_stdout_does_not_stall(
    pid_file: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A grandchild in the child's group that keeps stdout open is killed when the child exits."""
    # A long grace, so only killing the group (not giving up on the pipe) can end this fast.
    monkeypatch.setattr(source, "DRAIN_GRACE", 5.0)
    script = WRITE_PID + (
        "import subprocess\n"
        f"grand = subprocess.Popen([sys.executable, '-I', '-c', {SLEEPER!r}])\n"
        "write_pid(grand.pid)\n"
        "print('done', flush=True)\n"
    )
    attempt = run(script, pid_file, timeout=10)
    assert attempt.stdout == b"done\n"
    assert attempt.exit_status == 0
    assert not attempt.timed_out
    assert attempt.duration < 3
    assert gone(read_pids(pid_file)[0])


def test_escaped_grandchild_holding_stdout_stalls_only_for_the_grace(pid_file: Path) -> None:
    """A grandchild that left the group (setsid) and holds stdout delays us by DRAIN_GRACE only."""
    script = WRITE_PID + (
        "import time\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        "    write_pid(os.getpid())\n"
        "    time.sleep(60)\n"
        "    os._exit(0)\n"
        "while not os.path.exists(sys.argv[1]): time.sleep(0.01)\n"
        "print('done', flush=True)\n"
    )
    attempt = run(script, pid_file, timeout=10)
    assert attempt.stdout == b"done\n"
    assert attempt.exit_status == 0
    assert not attempt.timed_out
    assert attempt.duration < DRAIN_GRACE + 1.5
    # The grandchild really escaped the group kill: otherwise this test proves nothing.
    assert alive(read_pids(pid_file)[0])


def test_megabytes_on_stderr_are_bounded_and_stdout_still_read() -> None:
    """A child flooding stderr while writing stdout neither deadlocks nor keeps over 64 KiB."""
    script = (
        "import sys\n"
        "for _ in range(64):\n"
        "    sys.stdout.buffer.write(b'o' * 16384); sys.stdout.flush()\n"
        "    sys.stderr.buffer.write(b'e' * 65536); sys.stderr.flush()\n"
    )
    attempt = run(script, max_bytes=2 << 20, timeout=10)
    assert attempt.exit_status == 0
    assert attempt.stdout == b"o" * (64 * 16384)
    assert attempt.stderr == b"e" * STDERR_KEPT
    assert attempt.stderr_size == 64 * 65536
    assert attempt.duration < 5


def test_command_not_found_is_a_spawn_error(tmp_path: Path) -> None:
    """A command that does not exist is not started: a spawn error, no status, nothing read."""
    attempt = run_command([str(tmp_path / "absent")], max_bytes=MAX_BYTES, timeout=5, env=NO_ENV)
    assert attempt.spawn_error == "No such file or directory"
    assert (attempt.exit_status, attempt.signal, attempt.timed_out) == (None, None, False)
    assert attempt.stdout == attempt.stderr == b""


def test_command_is_looked_up_on_the_given_path_only(tmp_path: Path) -> None:
    """A bare command name is searched on the PATH passed in env, not on toolguard's own."""
    attempt = run_command(["python3"], max_bytes=MAX_BYTES, timeout=5, env={"PATH": str(tmp_path)})
    assert attempt.spawn_error is not None


def test_a_program_in_the_working_folder_never_runs_through_a_relative_path_entry(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`PATH=.:...` and an `ssh` in the working folder: not started, the entry named."""
    monkeypatch.chdir(tmp_path)
    planted = tmp_path / "ssh"
    planted.write_text(f"#!/bin/sh\ntouch {tmp_path / 'ran'}\n")
    planted.chmod(0o755)
    path = f".:{os.environ.get('PATH', os.defpath)}"
    attempt = run_command(["ssh"], max_bytes=MAX_BYTES, timeout=5, env={"PATH": path})
    assert attempt.spawn_error is not None
    assert "relative PATH entry '.'" in attempt.spawn_error
    assert not (tmp_path / "ran").exists()


@pytest.mark.parametrize(
    ("mode", "content", "reason"),
    [
        (0o644, b"#!/bin/sh\necho hi\n", "Permission denied"),
        (0o755, b"\x7fELF garbage", "Exec format error"),
    ],
    ids=["not-executable", "not-a-program"],
)
def test_file_that_cannot_be_executed_is_a_spawn_error(
    tmp_path: Path, mode: int, content: bytes, reason: str
) -> None:
    """A file without execute permission, or not a program at all, is a spawn error."""
    program = tmp_path / "program"
    program.write_bytes(content)
    program.chmod(mode)
    attempt = run_command([str(program)], max_bytes=MAX_BYTES, timeout=5, env=NO_ENV)
    assert attempt.spawn_error == reason
    assert attempt.exit_status is None


def test_environment_is_exactly_what_is_passed(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child sees exactly the env mapping given, and nothing of toolguard's environment."""
    env_program = shutil.which("env")
    if env_program is None:
        pytest.skip("no env(1) program to print the environment")
    monkeypatch.setenv("TOOLGUARD_SECRET_PROBE", "must-not-leak")
    attempt = run_command(
        [env_program],
        max_bytes=MAX_BYTES,
        timeout=5,
        env={"ONLY_THIS": "1", "AND_THIS": "two words"},
    )
    assert attempt.exit_status == 0
    assert sorted(attempt.stdout.decode().splitlines()) == ["AND_THIS=two words", "ONLY_THIS=1"]


ECHO_STDIN = "import sys; sys.stdout.buffer.write(sys.stdin.buffer.read())"


def test_stdin_comes_from_the_given_file(tmp_path: Path) -> None:
    """With a stdin file, the child reads exactly that file's bytes."""
    source = tmp_path / "input.bin"
    source.write_bytes(b"line one\n\x00\xffbinary\n")
    attempt = run(ECHO_STDIN, stdin=source)
    assert attempt.stdout == b"line one\n\x00\xffbinary\n"


def test_stdin_is_dev_null_by_default() -> None:
    """Without a stdin file the child reads end-of-file at once from /dev/null, not our stdin."""
    attempt = run(ECHO_STDIN)
    assert attempt.stdout == b""
    assert attempt.exit_status == 0
    if Path("/proc/self/fd/0").exists():
        where = run("import os; print(os.readlink('/proc/self/fd/0'))")
        assert where.stdout == b"/dev/null\n"


def test_missing_stdin_file_is_a_spawn_error(tmp_path: Path) -> None:
    """A stdin file that cannot be opened means the command is not started."""
    attempt = run(ECHO_STDIN, stdin=tmp_path / "absent")
    assert attempt.spawn_error == "No such file or directory"


def test_a_named_pipe_nobody_writes_to_is_an_ended_stdin_not_a_hang(tmp_path: Path) -> None:
    """Opening the FIFO would block before the timeout runs; the child reads its end instead."""
    fifo = tmp_path / "stdin"
    os.mkfifo(fifo)
    attempt = run(ECHO_STDIN, stdin=fifo)
    assert attempt.exit_status == 0
    assert attempt.stdout == b""


@pytest.fixture
def stops_interrupt() -> Iterator[None]:
    """SIGINT, SIGTERM and SIGHUP raise `KeyboardInterrupt`, as in the CLI; put back after."""
    previous = signals.handle(signals.interrupt)
    yield
    signals.restore(previous)


def test_a_stop_while_the_child_starts_still_ends_the_child(
    monkeypatch: pytest.MonkeyPatch, stops_interrupt: None
) -> None:
    """SIGTERM as Popen returns (after the fork) is held, then ends the child it started."""
    started: list[int] = []

    class StoppedAtStart(subprocess.Popen):  # type: ignore[type-arg]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            super().__init__(*args, **kwargs)
            started.append(self.pid)
            signal.raise_signal(signal.SIGTERM)

    monkeypatch.setattr(source.subprocess, "Popen", StoppedAtStart)
    with pytest.raises(KeyboardInterrupt):
        run(SLEEPER)
    (pid,) = started
    if alive(pid):  # a failing run: do not leave it behind
        os.killpg(pid, signal.SIGKILL)
        pytest.fail("the child outlived the interrupted start")


def test_a_stop_just_after_the_child_started_still_ends_the_child(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """An interrupt after `start` returned, before the child is read: the attempt ends it."""
    started: list[subprocess.Popen[bytes]] = []
    real_start = source.start

    def recorded(*args: Any, **kwargs: Any) -> subprocess.Popen[bytes]:
        started.append(real_start(*args, **kwargs))
        return started[-1]

    class InterruptedOnClose(io.BufferedReader):
        def close(self) -> None:  # the --stdin-from file, closed once the child has it
            super().close()
            raise KeyboardInterrupt

    monkeypatch.setattr(source, "start", recorded)
    monkeypatch.setattr(source.os, "fdopen", lambda fd, mode: InterruptedOnClose(io.FileIO(fd)))
    stdin = tmp_path / "stdin"
    stdin.write_bytes(b"")
    with pytest.raises(KeyboardInterrupt):
        run(SLEEPER, stdin=stdin)
    (child,) = started
    if child.returncode is None:
        os.killpg(child.pid, signal.SIGKILL)
        pytest.fail("the child outlived the interrupt")
    assert child.returncode == -signal.SIGKILL


@pytest.mark.parametrize("argv", [["ec\0ho", "a"], ["echo", "a\0b"]], ids=["name", "argument"])
def test_a_nul_byte_in_argv_is_a_spawn_error_that_says_so(argv: list[str]) -> None:
    """A NUL cannot reach exec: the attempt is not started, and the reason names it."""
    attempt = run_command(argv, max_bytes=MAX_BYTES, timeout=5, env={"PATH": "/usr/bin:/bin"})
    assert attempt.spawn_error == "embedded null byte"
