"""The entry point: whatever happens, a status from the table and one clear line, no traceback."""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import Run, RunToolguard

from toolguard import signals
from toolguard.audit.trail import AuditTrail
from toolguard.cli import main, respond
from toolguard.errors import AuditError, UsageError

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
CONTEXT = ("--context", "change_id=CR-1042")


def run_main(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], *arguments: str
) -> tuple[Any, str, str]:
    """`main()` in process with `arguments`: (exit status, stdout, stderr)."""
    monkeypatch.setattr(sys, "argv", ["toolguard", *arguments])
    # NOTE: main() sets SIGINT/SIGTERM handlers (even to SIG_IGN, which children inherit) for
    # a process that is about to end; this one goes on, so they are put back.
    handlers = {signum: signal.getsignal(signum) for signum in signals.STOPPING}
    # NOTE: `check` and `run` end the process at once (`respond.leave`); this one goes on.
    monkeypatch.setattr("toolguard.cli.respond.leave", sys.exit)
    try:
        main()
    except SystemExit as exited:
        status = exited.code
    except BaseException as exc:  # noqa: BLE001 - Ctrl-C too: it must not reach pytest
        pytest.fail(f"main() let {exc!r} escape")
    else:
        pytest.fail("main() returned instead of exiting")
    finally:
        for signum, handler in handlers.items():
            signal.signal(signum, handler)
    out, err = capfd.readouterr()
    return status, out, err


def review(folder: Path, audit: str) -> Path:
    """A copy of the review_status example with `audit` appended to its contract."""
    for name in ("contract.toml", "response.schema.json", "response.json"):
        shutil.copy(REVIEW / name, folder / name)
    contract = folder / "contract.toml"
    contract.write_text(contract.read_text() + audit)
    return contract


def assert_one_clear_line(stderr: str | bytes) -> None:
    text = stderr.decode() if isinstance(stderr, bytes) else stderr
    assert "Traceback" not in text
    assert "Exception ignored" not in text
    assert len(text.splitlines()) == 1, text


@pytest.mark.parametrize("command", ["check", "run", "serve"])
def test_a_nul_in_a_contract_path_is_a_bad_contract(
    run_toolguard: RunToolguard, tmp_path: Path, command: str
) -> None:
    """`[audit] log = "a\\u0000b"` used to crash sealing (exit 1, a traceback): now exit 3."""
    contract = review(tmp_path, '\n[audit]\nlog = "audit\\u0000.jsonl"\n')
    argv = {
        "check": ("check", contract, *CONTEXT),
        "run": ("run", contract, *CONTEXT, "--", "cat", contract.with_name("response.json")),
        "serve": ("serve", contract),
    }[command]
    done = run_toolguard(*argv, stdin=(REVIEW / "response.json").read_bytes())
    assert (done.status, done.stdout) == (3, b"")
    assert b"audit.log: a path cannot hold a NUL" in done.stderr
    assert_one_clear_line(done.stderr)


@pytest.mark.parametrize("command", ["check", "serve"])
@pytest.mark.parametrize("flag", ["--audit-log", "--raw-dir", "--audit-key"])
def test_an_empty_path_flag_is_a_usage_error(
    run_toolguard: RunToolguard, command: str, flag: str
) -> None:
    """`--audit-log ""` names no file (it would be the current folder): exit 2, nothing read."""
    argv = ("check", REVIEW / "contract.toml", *CONTEXT) if command == "check" else ("serve",)
    if command == "serve":
        argv = (*argv, REVIEW / "contract.toml")
    done = run_toolguard(*argv, flag, "", stdin=(REVIEW / "response.json").read_bytes())
    assert (done.status, done.stdout) == (2, b"")
    assert b"an empty path" in done.stderr


def test_a_bug_outside_any_command_is_one_line_and_exit_4(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """An exception nothing handled: `internal error: TYPE: message (at FILE:LINE in FUNC)`."""

    def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("boom\n\x1b[31mred")

    monkeypatch.setattr("toolguard.cli.app.cli.main", broken)
    status, out, err = run_main(monkeypatch, capfd, "lint", str(REVIEW / "contract.toml"))
    assert (status, out) == (4, "")
    assert_one_clear_line(err)
    assert err.startswith("toolguard: error: internal error: RuntimeError: boom\\n\\x1b[31mred")
    assert "in broken)" in err


def test_a_bug_in_json_mode_is_one_json_line(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """With `--diagnostics json` the last words are the JSON error line too."""
    monkeypatch.setattr("toolguard.cli.fast.parse_check", lambda _: 1 / 0)
    status, _, err = run_main(
        monkeypatch, capfd, "check", str(REVIEW / "contract.toml"), "--diagnostics", "json"
    )
    assert status == 4
    assert json.loads(err)["message"].startswith("internal error: ZeroDivisionError")


def test_a_bug_during_set_up_is_one_line_and_exit_4(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A bug while the contract loads (inside `guard`): one line, not the last frames."""

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("deep")

    monkeypatch.setattr("toolguard.cli.respond.load_contract", broken)
    status, out, err = run_main(monkeypatch, capfd, "check", str(REVIEW / "contract.toml"))
    assert (status, out) == (4, "")
    assert_one_clear_line(err)
    assert "internal error: KeyError: 'deep' (at" in err


def test_an_error_raised_on_purpose_keeps_its_status(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """A `ToolguardError` that escaped its command still exits with its own status."""

    def refused(*args: object, **kwargs: object) -> None:
        raise UsageError("no such thing")

    monkeypatch.setattr("toolguard.cli.app.cli.main", refused)
    status, _, err = run_main(monkeypatch, capfd, "lint", "x")
    assert status == 2
    assert err == "toolguard: error: no such thing\n"


def test_a_rejection_raised_during_set_up_tells_the_operator_its_message(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """The operator reads a rejection's `message` on stderr, not its `str` (layer and reason)."""

    def refused(*args: object, **kwargs: object) -> None:
        raise AuditError("key_unreadable", "audit key k.key: it must hold 16 to 4096 bytes")

    monkeypatch.setattr("toolguard.cli.respond.load_contract", refused)
    status, out, err = run_main(monkeypatch, capfd, "check", str(REVIEW / "contract.toml"))
    assert (status, out) == (1, "")
    assert err == "toolguard: error: audit key k.key: it must hold 16 to 4096 bytes\n"


def test_ctrl_c_before_a_command_runs_is_130(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """Ctrl-C while click parses (click alone would say "Aborted!" and exit 1): 130."""

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr("toolguard.cli.app.cli.main", interrupted)
    status, out, err = run_main(monkeypatch, capfd, "lint", "x")
    assert (status, out) == (130, "")
    assert err == "toolguard: error: interrupted during set-up\n"


def test_sigterm_before_a_command_runs_is_130(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str]
) -> None:
    """SIGTERM during set-up ends like Ctrl-C (130), not killed by the signal."""
    monkeypatch.setattr("toolguard.cli.app.cli.main", lambda **_: os.kill(os.getpid(), 15))

    def unhandled(signum: int, frame: object) -> None:
        raise RuntimeError("main() left SIGTERM to whoever handled it before")

    previous = signal.signal(signal.SIGTERM, unhandled)  # never the default: it kills pytest
    try:
        status, out, err = run_main(monkeypatch, capfd, "lint", "x")
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert (status, out) == (130, "")
    assert err == "toolguard: error: interrupted during set-up\n"


@pytest.mark.parametrize(
    "arguments",
    [("check", "--help"), ("check", str(REVIEW / "contract.toml"), *CONTEXT)],
    ids=["through-click", "fast-check"],
)
def test_a_signal_whose_interrupt_was_lost_in_an_import_is_130(
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
    arguments: tuple[str, ...],
) -> None:
    """Python drops an exception raised in a weakref callback (importlib's module locks have
    one): a signal whose interrupt was lost during the imports still ends the command."""
    from toolguard.cli import fast  # noqa: PLC0415

    real = fast.parse_check

    def lost(words: list[str]) -> object:
        with contextlib.suppress(KeyboardInterrupt):
            signal.getsignal(signal.SIGTERM)(signal.SIGTERM, None)  # type: ignore[operator]
        return real(words)

    monkeypatch.setattr(fast, "parse_check", lost)  # `--help`: then click runs the command
    status, out, err = run_main(monkeypatch, capfd, *arguments)
    assert (status, out) == (130, "")
    assert err == "toolguard: error: interrupted during set-up\n"


def test_a_bug_while_recording_still_answers_the_agent(
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """The trail raising something unexpected: a failure envelope (not retryable) and exit 4."""

    def broken(*args: object, **kwargs: object) -> None:
        raise ValueError("embedded null byte")

    monkeypatch.setattr(AuditTrail, "seal", broken)
    monkeypatch.setattr(sys, "stdin", open(REVIEW / "response.json"))  # noqa: SIM115, PTH123
    status, out, err = run_main(
        monkeypatch,
        capfd,
        *("check", str(REVIEW / "contract.toml"), *CONTEXT),
        *("--audit-log", str(tmp_path / "audit.jsonl")),
    )
    sys.stdin.close()
    assert status == 4
    assert json.loads(out)["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}
    assert "internal error while recording" in err


def _buffered() -> dict[str, str]:
    """This environment without `PYTHONUNBUFFERED`: stdout and stderr buffered, as a user has them.

    NOTE: containers and CI runners often set it; there a write that failed leaves nothing
    behind for the interpreter's last flush, so a test run there would miss what users see.
    """
    return {key: value for key, value in os.environ.items() if key != "PYTHONUNBUFFERED"}


@pytest.mark.parametrize(
    "arguments",
    [
        ("validate", REVIEW / "response.schema.json", REVIEW / "response.json"),
        ("audit", "summary", "-", "--format", "json"),  # an empty log: stdin is /dev/null
    ],
    ids=["validate", "audit-summary"],
)
def test_stdout_closed_before_the_last_flush_is_exit_4(arguments: tuple[str | Path]) -> None:
    """Output still buffered when the reader went away: exit 4 and one line, not exit 120."""
    read, write = os.pipe()
    os.close(read)
    try:
        done = subprocess.run(  # noqa: PLW1510 - the status is what the test asserts
            [sys.executable, "-m", "toolguard", *map(str, arguments)],
            stdin=subprocess.DEVNULL,
            stdout=write,
            stderr=subprocess.PIPE,
            env=_buffered(),
            timeout=60,
        )
    finally:
        os.close(write)
    run = Run(done.returncode, b"", done.stderr)
    assert run.status == 4
    said = "stdout was closed before everything was written"
    if "json" in arguments:  # the form `--format json` chose for stderr
        assert run.diagnostics() == {"outcome": "error", "exit_status": 4, "message": said}
    else:
        assert run.stderr == f"toolguard: error: {said}\n".encode()


STDOUTS = ["reader gone", "never open", "full disk"]
FULL = "No space left on device"


def _unwritable(kind: str) -> int:
    """A descriptor no write succeeds on: a pipe whose reader is gone, or a full disk."""
    if kind == "full disk":
        if not Path("/dev/full").exists():
            pytest.skip("no /dev/full here")
        return os.open("/dev/full", os.O_WRONLY)
    read, write = os.pipe()
    os.close(read)
    return write


def _written_to(stdout: str, argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    """`toolguard ARGV` with a stdout whose reader is gone, no stdout at all, or a full disk."""
    write = _unwritable(stdout)
    try:
        return subprocess.run(  # noqa: PLW1510 - the status is what the tests assert
            [sys.executable, "-m", "toolguard", *argv],
            stdout=subprocess.DEVNULL if stdout == "never open" else write,
            stderr=subprocess.PIPE,
            preexec_fn=(lambda: os.close(1)) if stdout == "never open" else None,
            cwd=REPO,
            timeout=120,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize("stdout", STDOUTS)
@pytest.mark.parametrize(
    "arguments",
    [
        ("test", REPO / "examples"),
        ("lint", REPO / "examples"),
        ("validate", REVIEW / "response.schema.json", REVIEW / "response.json"),
        ("audit", "summary", "{tmp}.log"),  # an empty log (a device is refused)
        ("init", "zz_tool", "{tmp}"),
        ("--help",),
        ("check", "--help"),
    ],
    ids=["test", "lint", "validate", "audit-summary", "init", "help", "check-help"],
)
def test_a_report_that_cannot_be_written_is_exit_4(
    arguments: tuple[str | Path, ...], stdout: str, tmp_path: Path
) -> None:
    """Whatever a command prints, a stdout that cannot take it is exit 4 and one line: not
    click's silent exit 1 for a broken pipe (a failed fixture's status), nor an internal
    error or a silent 0 for a stdout closed from the start (`>&-`)."""
    (tmp_path / "new.log").touch()
    done = _written_to(stdout, [str(word).format(tmp=tmp_path / "new") for word in arguments])
    assert done.returncode == 4, done.stderr
    what = f"stdout failed ({FULL})" if stdout == "full disk" else "stdout was closed"
    assert done.stderr == f"toolguard: error: {what} before everything was written\n".encode()


@pytest.mark.parametrize("stdout", STDOUTS)
@pytest.mark.parametrize(
    "arguments",
    [
        ("run", REVIEW / "contract.toml", *CONTEXT, "--", "cat", REVIEW / "response.json"),
        ("schema", REVIEW / "contract.toml"),
        ("check", REVIEW / "contract.toml", *CONTEXT, "--input", REVIEW / "response.json", "--"),
    ],
    ids=["run", "schema", "check-through-click"],
)
def test_an_envelope_that_cannot_be_written_is_exit_4_in_its_own_words(
    arguments: tuple[str | Path, ...], stdout: str
) -> None:
    """The answering commands say it of the envelope, whichever way click ran them."""
    done = _written_to(stdout, [str(word) for word in arguments])
    assert done.returncode == 4, done.stderr
    what = f"stdout failed ({FULL})" if stdout == "full disk" else "stdout was closed"
    assert done.stderr.endswith(f"{what} before the envelope was written\n".encode())
    assert b"Traceback" not in done.stderr


def test_an_encoding_error_on_stdout_is_a_bug_not_a_closed_stdout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A stdout that cannot be told to escape what it cannot encode raises the encoding error
    itself (a bug, exit 4 in its own words), never `OutputClosed`. (A real text stdout escapes:
    tests/cli/test_output.py.)"""

    class Strict:  # no `reconfigure`
        def write(self, text: str) -> int:
            return len(text.encode("ascii"))

        def flush(self) -> None:
            return None

    monkeypatch.setattr(sys, "stdout", Strict())
    respond.watch_stdout()
    with pytest.raises(UnicodeEncodeError):
        sys.stdout.write("r\u00e9ponse")


def _without_root_powers() -> list[str]:
    """The interpreter, run so that file modes bind (as root: without CAP_DAC_OVERRIDE)."""
    if os.geteuid() != 0:
        return [sys.executable]
    if shutil.which("setpriv") is None:
        pytest.skip("running as root without setpriv: file modes do not bind")
    return ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", sys.executable]


@pytest.mark.parametrize("command", ["check", "run", "serve", "schema"])
def test_an_unreadable_contract_is_a_bad_contract_for_every_command(
    run_toolguard: RunToolguard, tmp_path: Path, command: str
) -> None:
    """Mode 000: exit 3 from the loader for each answering command (click said 2 for some)."""
    contract = review(tmp_path, "")
    contract.chmod(0)
    extra = {"run": ("--", "true"), "check": CONTEXT}.get(command, ())
    done = run_toolguard(
        command, contract, *extra, command=[*_without_root_powers(), "-m", "toolguard"]
    )
    assert done.status == 3, done.stderr
    assert b"cannot read contract: Permission denied" in done.stderr


_TEARDOWN_PROBE = """
import atexit, sys
atexit.register(lambda: sys.stderr.write("interpreter teardown\\n"))
sys.argv = ["toolguard", *sys.argv[1:]]
from toolguard.cli import main, respond
main()
"""


_RESPONSE = (REVIEW / "response.json").read_bytes()


@pytest.mark.parametrize(
    ("argv", "stdin", "status"),
    [
        (("check", REVIEW / "contract.toml", *CONTEXT), _RESPONSE, 0),
        (("check", REVIEW / "contract.toml", "--context", "change_id=CR-9"), _RESPONSE, 1),
        (("check", REVIEW / "contract.toml", *CONTEXT), b'{"a": 1, "a": 2}', 1),
        (("check", REVIEW / "contract.toml"), _RESPONSE, 2),  # no context: no envelope
        (
            ("run", REVIEW / "contract.toml", *CONTEXT, "--", "cat", REVIEW / "response.json"),
            b"",
            0,
        ),
    ],
)
def test_a_one_shot_answer_is_whole_and_skips_the_interpreters_teardown(
    run_toolguard: RunToolguard, argv: tuple[str | Path, ...], stdin: bytes, status: int
) -> None:
    """check and run leave once stdout and stderr are flushed: same status, same output."""
    argv = (*argv[:2], "--request-id", "req.teardown", *argv[2:])
    direct = run_toolguard(*argv, stdin=stdin)
    probed = run_toolguard(*argv, stdin=stdin, command=[sys.executable, "-c", _TEARDOWN_PROBE])
    assert direct.status == probed.status == status
    assert probed.stdout == direct.stdout
    assert b"interpreter teardown" not in probed.stderr

    def timeless(stderr: bytes) -> list[bytes]:
        return [re.sub(rb"[0-9.]+ ms", b"", line) for line in stderr.splitlines()]

    assert timeless(probed.stderr) == timeless(direct.stderr)
    assert direct.stderr
    if status != 2:
        assert direct.envelope()["outcome"] == ("success" if status == 0 else "failure")


def test_other_commands_end_with_the_interpreters_teardown(run_toolguard: RunToolguard) -> None:
    """Only the one-shot answers skip teardown: `lint` (a report on stdout) ends normally."""
    done = run_toolguard(
        "lint", REVIEW / "contract.toml", command=[sys.executable, "-c", _TEARDOWN_PROBE]
    )
    assert done.status == 0, done.stderr
    assert done.stderr.endswith(b"interpreter teardown\n")


def _told_to(stderr: str, argv: list[str]) -> subprocess.CompletedProcess[bytes]:
    """`toolguard ARGV` with a stderr whose reader is gone, or a full disk (buffered)."""
    write = _unwritable(stderr)
    try:
        return subprocess.run(  # noqa: PLW1510 - the status is what the tests assert
            [sys.executable, "-m", "toolguard", *argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=write,
            env=_buffered(),
            cwd=REPO,
            timeout=60,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize("stderr", ["reader gone", "full disk"])
@pytest.mark.parametrize(
    ("arguments", "status"),
    [
        (("check", "--no-such-flag"), 2),
        (("lint",), 2),
        (("audit", "no-such-command"), 2),
        (("check", REVIEW / "contract.toml", "--request-id", "bad"), 2),
        (("check", REVIEW / "missing.toml"), 3),
        (("lint", REVIEW / "missing.toml"), 3),
        (("check", REVIEW / "contract.toml", *CONTEXT, "--input", REVIEW / "response.json"), 0),
    ],
    ids=["click-flag", "click-argument", "click-command", "usage", "contract", "lint", "check"],
)
def test_diagnostics_nobody_can_read_leave_the_status_as_it_was(
    arguments: tuple[str | Path, ...], status: int, stderr: str
) -> None:
    """A stderr that cannot take the one line (EPIPE, a full disk) loses the line, never the
    status: a usage error click found is still 2, not 4 as for a toolguard bug."""
    done = _told_to(stderr, [str(word) for word in arguments])
    assert done.returncode == status


def _no_file_may_grow() -> None:
    """`ulimit -f 0` for the child: every write to a file fails (EFBIG; SIGXFSZ is ignored)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))


@pytest.mark.parametrize(
    "arguments",
    [("init", "zz_tool", "{tmp}"), ("diff", "--against", "HEAD", REVIEW / "contract.toml")],
    ids=["init", "diff-against"],
)
def test_no_usable_temporary_folder_is_a_usage_error(
    arguments: tuple[str | Path, ...], tmp_path: Path
) -> None:
    """A temporary folder that cannot be made or written (`ulimit -f 0`, a full /tmp) is the
    environment's doing: exit 2 and a line that names TMPDIR, not an internal error (4)."""
    done = subprocess.run(  # noqa: PLW1510 - the status is what the test asserts
        [sys.executable, "-m", "toolguard"]
        + [str(word).format(tmp=tmp_path / "new") for word in arguments],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=REPO,
        # NOTE: the cache off: a cold one's write, refused too, would add its warning first.
        env={**os.environ, "TOOLGUARD_CACHE_DIR": ""},
        preexec_fn=_no_file_may_grow,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert done.stdout == b""
    assert done.stderr.startswith(b"toolguard: error: cannot use a temporary folder: ")
    assert done.stderr.endswith(b" (TMPDIR names the folder to use)\n")
    assert_one_clear_line(done.stderr)


@pytest.mark.parametrize("closed", ["2>&-", ">&- 2>&-", "<&- >&- 2>&-"])
def test_a_usage_error_with_stderr_closed_from_the_start_is_2_and_never_on_stdout(
    run_toolguard: RunToolguard, closed: str
) -> None:
    """`2>&-` leaves Python no stderr: click would print its usage lines on stdout (where
    the agent reads) and, that closed too, end 4. The line is lost; the status is 2."""
    done = run_toolguard(
        "check",
        "--bogus",
        command=["sh", "-c", f'exec "$0" -m toolguard "$@" {closed}', sys.executable],
    )
    assert (done.status, done.stdout) == (2, b"")


@pytest.mark.parametrize(
    "command", [["serve"], ["mcp", "--contract", str(REVIEW / "contract.toml"), "--"]]
)
@pytest.mark.parametrize(
    ("closed", "status", "said"),
    [
        (">&-", 4, b"stdout was closed before anything was written"),
        ("<&-", 2, b"needs stdin open"),
    ],
)
def test_serve_and_mcp_with_stdio_closed_from_the_start_end_as_every_command_does(
    run_toolguard: RunToolguard, command: list[str], closed: str, status: int, said: bytes
) -> None:
    """Stdout closed (`>&-`) is 4 as for every command (the README's table); stdin closed is
    a usage error (2), as `check` says it."""
    arguments = (
        [*command, str(REVIEW / "contract.toml")] if command == ["serve"] else [*command, "cat"]
    )
    done = run_toolguard(
        *arguments,
        command=["sh", "-c", f'exec "$0" -m toolguard "$@" {closed}', sys.executable],
    )
    assert done.status == status, done.stderr
    assert said in done.stderr
