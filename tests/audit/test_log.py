"""The audit log: one whole record per write under concurrency, and a bounded reader."""

from __future__ import annotations

import contextlib
import errno
import fcntl
import os
import stat
import subprocess
import sys
import threading
import tracemalloc
from pathlib import Path

import pytest
from conftest import without_waiting
from rejections import saying

from toolguard.audit import log, record
from toolguard.errors import AuditError

REPO = Path(__file__).resolve().parents[2]
LINE = b'{"format":1}\n'
WRITERS = 50
RECORDS = 200
HUGE = 10 << 20
# One interpreter builds record templates from real checks (some padded to or past the limit
# with text that escaping makes longer), then forks the writers: each waits at a shared
# barrier (the pipe closing), then appends its records, its own id in each.
WRITERS_SCRIPT = """
import os, sys
from collections.abc import Callable
from pathlib import Path
from toolguard import frozen
from toolguard.audit import log, record
from toolguard.contract import load_contract
from toolguard.pipeline import check
from toolguard.request import make_request

repo, target = Path(sys.argv[1]), Path(sys.argv[2])
writers, count = int(sys.argv[3]), int(sys.argv[4])
example = repo / "examples" / "review_status"
contract = load_contract(example / "contract.toml")
responses = [(example / "response.json").read_bytes(), b'{"change_id": "CR-1"}']
templates = []
for variant in range(36):
    context = {"change_id": "CR-1042"}
    context.update((f"pad{n}", "\\x1b[31m\\u202e" * 40) for n in range(variant % 9))
    outcome = check(contract, responses[variant % 2], request_id="w00.s0000", context=context)
    if variant % 4 >= 2:
        message = "[bold red]x[/]\\x1b[2J\\U000e0001" * (variant * 3)
        diagnostics = frozen.replace(outcome.diagnostics, message=message)
        outcome = frozen.replace(outcome, diagnostics=diagnostics)
    request = make_request("w00.s0000", context)
    built = record.build(outcome, contract, request, command="check", source=record.Source("stdin"))
    templates.append(record.encode(built))
barrier, release = os.pipe()
children = []
for writer in range(writers):
    pid = os.fork()
    if pid == 0:
        os.close(release)
        lines = [
            templates[seq % len(templates)].replace(b"w00.s0000", b"w%02d.s%04d" % (writer, seq))
            for seq in range(count)
        ]
        os.read(barrier, 1)
        try:
            for line in lines:
                log.append(target, line)
        finally:
            os._exit(0 if len(lines) == count else 1)
    children.append(pid)
os.close(release)
failed = sum(os.waitpid(pid, 0)[1] != 0 for pid in children)
sys.exit(failed)
"""


def test_fifty_processes_appending_at_once_neither_lose_nor_tear_a_record(tmp_path: Path) -> None:
    """50 processes x 200 records into one log: 10,000 schema-valid lines, each exactly once."""
    target = tmp_path / "audit.jsonl"
    argv = [sys.executable, "-I", "-c", WRITERS_SCRIPT, REPO, target, str(WRITERS), str(RECORDS)]
    done = subprocess.run(argv, capture_output=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    assert stat.S_IMODE(target.stat().st_mode) == 0o600
    raw = target.read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.split(b"\n")[:-1]
    assert len(lines) == WRITERS * RECORDS
    decoded = [record.decode(line) for line in lines]
    assert None not in decoded
    assert max(map(len, lines)) >= log.MAX_RECORD_BYTES - 200  # some were near the limit
    assert any("truncated" in item for item in decoded if item is not None)
    seen = sorted(item["request_id"] for item in decoded if item is not None)
    expected = sorted(f"w{w:02d}.s{s:04d}" for w in range(WRITERS) for s in range(RECORDS))
    assert seen == expected


# --- append --------------------------------------------------------------------------------------


def test_append_creates_a_private_log_holding_the_line(tmp_path: Path) -> None:
    """The first append creates the log 0600 with exactly the line in it."""
    target = tmp_path / "audit.jsonl"
    log.append(target, LINE)
    assert target.read_bytes() == LINE
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


def test_append_adds_to_the_end(tmp_path: Path) -> None:
    """Later appends go after the earlier ones, in order."""
    target = tmp_path / "audit.jsonl"
    for index in range(3):
        log.append(target, b"%d\n" % index)
    assert target.read_bytes() == b"0\n1\n2\n"


def test_a_record_after_a_torn_one_starts_a_line_of_its_own(tmp_path: Path) -> None:
    """A write cut short (full disk, `ulimit -f`) left part of a record: the next is apart."""
    target = tmp_path / "audit.jsonl"
    target.write_bytes(LINE + b'{"format":1,"tim')
    target.chmod(0o600)
    log.append(target, LINE)
    assert target.read_bytes() == LINE + b'{"format":1,"tim\n' + LINE
    assert list(log.all_lines(target)) == [LINE[:-1], b'{"format":1,"tim', LINE[:-1]]


def test_a_short_write_then_an_append_loses_no_record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The record appended after a failed (short) write is a whole line, found by its id."""
    target = tmp_path / "audit.jsonl"
    real_write = os.write
    with monkeypatch.context() as patched:
        patched.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[:5]))
        with pytest.raises(AuditError):
            log.append(target, b'{"request_id":"req.lost.0001"}\n')
    log.append(target, b'{"request_id":"req.kept.0001"}\n')
    assert list(log.lines_with(target, b"req.kept.0001")) == [
        (6, b'{"request_id":"req.kept.0001"}')
    ]


def test_record_of_exactly_the_limit_is_accepted(tmp_path: Path) -> None:
    """A record of MAX_RECORD_BYTES bytes, newline included, is written."""
    line = b"x" * (log.MAX_RECORD_BYTES - 1) + b"\n"
    log.append(tmp_path / "audit.jsonl", line)
    assert (tmp_path / "audit.jsonl").read_bytes() == line


def test_record_over_the_limit_is_refused(tmp_path: Path) -> None:
    """A record one byte over MAX_RECORD_BYTES raises AuditError and writes nothing."""
    with pytest.raises(AuditError) as caught:
        log.append(tmp_path / "audit.jsonl", b"x" * log.MAX_RECORD_BYTES + b"\n")
    assert caught.value.reason == "record_too_large"
    assert not (tmp_path / "audit.jsonl").exists()


@pytest.mark.parametrize("line", [b"", b'{"format":1}', b'{"format":1}\n{"x"'])
def test_record_without_a_final_newline_is_refused(tmp_path: Path, line: bytes) -> None:
    """A record that does not end in a newline raises AuditError and writes nothing."""
    with pytest.raises(AuditError):
        log.append(tmp_path / "audit.jsonl", line)
    assert not (tmp_path / "audit.jsonl").exists()


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
@pytest.mark.parametrize("fsync", [False, True])
def test_full_disk_raises_audit_error(fsync: bool) -> None:
    """A write failing with ENOSPC (/dev/full) raises AuditError audit_unwritable."""
    with pytest.raises(AuditError) as caught:
        log.append(Path("/dev/full"), LINE, fsync=fsync)
    assert caught.value.reason == "audit_unwritable"


def test_short_write_raises_audit_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A write that stores only part of the record raises AuditError, not silence."""
    real_write = os.write
    monkeypatch.setattr(os, "write", lambda fd, data: real_write(fd, bytes(data)[:5]))
    with pytest.raises(AuditError) as caught:
        log.append(tmp_path / "audit.jsonl", LINE)
    assert caught.value.reason == "audit_unwritable"


def test_write_error_raises_audit_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An OSError from write (EIO) raises AuditError with the reason audit_unwritable."""

    def failing_write(fd: int, data: bytes) -> int:
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(os, "write", failing_write)
    with pytest.raises(AuditError, check=saying("Input/output error")) as caught:
        log.append(tmp_path / "audit.jsonl", LINE)
    assert caught.value.reason == "audit_unwritable"


def test_missing_directory_raises_audit_error(tmp_path: Path) -> None:
    """A log in a directory that does not exist raises AuditError; the directory is not made."""
    with pytest.raises(AuditError) as caught:
        log.append(tmp_path / "missing" / "audit.jsonl", LINE)
    assert caught.value.reason == "audit_unwritable"
    assert not (tmp_path / "missing").exists()


def test_log_path_that_is_a_directory_raises_audit_error(tmp_path: Path) -> None:
    """A log path naming a directory raises AuditError."""
    with pytest.raises(AuditError):
        log.append(tmp_path, LINE)


def test_fsync_append_writes_the_line(tmp_path: Path) -> None:
    """With fsync=True the record is written just the same."""
    target = tmp_path / "audit.jsonl"
    log.append(target, LINE, fsync=True)
    log.append(target, LINE, fsync=True)
    assert target.read_bytes() == LINE * 2


@pytest.mark.parametrize("errno_", [errno.EIO, errno.ENOSPC])
def test_a_record_whose_fsync_fails_is_taken_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, errno_: int
) -> None:
    """The agent gets a failure then: no record may say it got the answer (no misread)."""
    target = tmp_path / "audit.jsonl"
    log.append(target, LINE)

    def failing_fsync(fd: int) -> None:
        raise OSError(errno_, os.strerror(errno_))

    with monkeypatch.context() as patched:
        patched.setattr(os, "fsync", failing_fsync)
        with pytest.raises(AuditError, check=saying(os.strerror(errno_))) as caught:
            log.append(target, b'{"request_id":"req.unsynced.01"}\n', fsync=True)
    assert caught.value.reason == "audit_unwritable"
    assert target.read_bytes() == LINE
    log.append(target, LINE, fsync=True)
    assert target.read_bytes() == LINE * 2


def test_a_close_that_fails_raises_audit_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file system that reports a lost write at close (NFS: EIO, ENOSPC) fails the trail."""
    real_close = os.close
    target = tmp_path / "audit.jsonl"

    def failing_close(fd: int) -> None:
        closing_the_log = Path(f"/proc/self/fd/{fd}").readlink() == target
        real_close(fd)
        if closing_the_log:
            raise OSError(errno.EIO, os.strerror(errno.EIO))

    monkeypatch.setattr(log, "_ends_a_line", lambda fd: True)  # the log's only close: the write's
    monkeypatch.setattr(os, "close", failing_close)
    with pytest.raises(AuditError, check=saying("Input/output error")) as caught:
        log.append(target, LINE)
    assert caught.value.reason == "audit_unwritable"


def test_rotation_by_rename_starts_a_new_file(tmp_path: Path) -> None:
    """After the log is renamed away, the next append creates a new log; the old one is kept."""
    target = tmp_path / "audit.jsonl"
    log.append(target, b"first\n")
    target.rename(tmp_path / "audit.jsonl.1")
    log.append(target, b"second\n")
    assert (tmp_path / "audit.jsonl.1").read_bytes() == b"first\n"
    assert target.read_bytes() == b"second\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o600


# --- reading -------------------------------------------------------------------------------------


def write_log(path: Path, *parts: bytes) -> Path:
    path.write_bytes(b"".join(parts))
    return path


def test_lines_with_gives_offset_and_line_of_each_match(tmp_path: Path) -> None:
    """lines_with yields (offset of the line, line without newline) for each matching line."""
    path = write_log(tmp_path / "log", b"a-one\n", b"b-two\n", b"a-three\n")
    assert list(log.lines_with(path, b"a-")) == [(0, b"a-one"), (12, b"a-three")]


def test_lines_with_yields_one_entry_per_line_with_several_matches(tmp_path: Path) -> None:
    """A line holding the needle twice is yielded once."""
    path = write_log(tmp_path / "log", b"xx xx\n", b"yy\n")
    assert list(log.lines_with(path, b"xx")) == [(0, b"xx xx")]


def test_lines_with_on_an_empty_log_yields_nothing(tmp_path: Path) -> None:
    """An empty log has no matching line (and mapping it is not an error)."""
    assert list(log.lines_with(write_log(tmp_path / "log"), b"x")) == []


def test_lines_with_reads_a_last_line_without_newline(tmp_path: Path) -> None:
    """A final line cut before its newline is still found."""
    path = write_log(tmp_path / "log", b"one\n", b"two-needle")
    assert list(log.lines_with(path, b"needle")) == [(4, b"two-needle")]


def test_lines_with_gives_none_for_a_huge_line_without_copying_it(tmp_path: Path) -> None:
    """A 10 MB line holding the needle comes back as None, and no copy of it is made."""
    path = write_log(tmp_path / "log", b"needle-1\n", b"x" * HUGE + b"needle", b"\nneedle-2")
    tracemalloc.start()
    try:
        found = list(log.lines_with(path, b"needle"))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert found == [(0, b"needle-1"), (9, None), (9 + HUGE + 7, b"needle-2")]
    assert peak < 1 << 20


# A log cut short while `explain` searches it (logrotate's copytruncate): the reader must end
# at the new end. Run in a child: a log searched through a memory map dies of SIGBUS there.
TRUNCATED_SCRIPT = """
import os, sys
from pathlib import Path
from toolguard.audit import log
path = Path(sys.argv[1])
path.write_bytes(b"needle-1\\n" + (b"y" * 999 + b"\\n") * 8192 + b"needle-2\\n")
found = log.lines_with(path, b"needle")
print(next(found))
os.truncate(path, 0)
print(list(found))
"""


def test_lines_with_ends_at_the_new_end_of_a_log_truncated_under_it(tmp_path: Path) -> None:
    """A log truncated while it is searched ends the search; the process does not crash."""
    done = subprocess.run(
        [sys.executable, "-c", TRUNCATED_SCRIPT, str(tmp_path / "log")],
        capture_output=True,
        cwd=REPO,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    first, rest = done.stdout.decode().splitlines()
    assert first == "(0, b'needle-1')"
    assert rest in {"[]", f"[({9 + 1000 * 8192}, b'needle-2')]"}


def test_lines_with_reads_the_log_only_as_far_as_it_was_when_opened(tmp_path: Path) -> None:
    """Records appended while the log is searched are not waited for: its size at open bounds it."""
    path = write_log(tmp_path / "log", b"needle-1\n", b"x" * (1 << 20), b"\n")
    found = log.lines_with(path, b"needle")
    assert next(found) == (0, b"needle-1")
    with path.open("ab") as appended:
        appended.write(b"needle-2\n")
    assert list(found) == []


def test_lines_with_finds_lines_across_read_boundaries(tmp_path: Path) -> None:
    """Lines of every length around the block size are found whole, wherever they fall."""
    lines = [b"%d-needle-" % n + b"z" * (n * 997 % (log.MAX_RECORD_BYTES - 16)) for n in range(600)]
    path = write_log(tmp_path / "log", b"\n".join(lines))
    offsets = [sum(len(line) + 1 for line in lines[:n]) for n in range(len(lines))]
    assert list(log.lines_with(path, b"needle")) == list(zip(offsets, lines, strict=True))


def test_lines_with_gives_none_for_a_long_line_matching_across_a_read_boundary(
    tmp_path: Path,
) -> None:
    """A line too long to be a record is reported when the needle straddles two reads."""
    for before in range((1 << 18) - 8, (1 << 18) + 2):
        path = write_log(tmp_path / "log", b"x" * before, b"needle", b"x" * (1 << 20), b"\nneedle")
        assert list(log.lines_with(path, b"needle")) == [
            (0, None),
            (before + 6 + (1 << 20) + 1, b"needle"),
        ]


def test_all_lines_of_an_empty_log_is_empty(tmp_path: Path) -> None:
    """An empty log has no lines."""
    assert list(log.all_lines(write_log(tmp_path / "log"))) == []


def test_all_lines_strips_newlines_and_keeps_a_last_partial_line(tmp_path: Path) -> None:
    """Each line comes without its newline; a final line without one is still yielded."""
    path = write_log(tmp_path / "log", b"one\n", b"\n", b"three")
    assert list(log.all_lines(path)) == [b"one", b"", b"three"]


def test_all_lines_keeps_a_line_at_the_limit_and_drops_one_past_it(tmp_path: Path) -> None:
    """A line of MAX_RECORD_BYTES bytes is read; one byte more is None; the next line is read."""
    at_limit = b"a" * log.MAX_RECORD_BYTES
    past = b"b" * (log.MAX_RECORD_BYTES + 1)
    path = write_log(tmp_path / "log", at_limit, b"\n", past, b"\n", b"after\n", past)
    assert list(log.all_lines(path)) == [at_limit, None, b"after", None]


def test_all_lines_gives_none_for_a_huge_line_in_bounded_memory(tmp_path: Path) -> None:
    """A 10 MB line without newline is skipped as None without being held in memory."""
    path = write_log(tmp_path / "log", b"before\n", b"x" * HUGE)
    tracemalloc.start()
    try:
        lines = list(log.all_lines(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert lines == [b"before", None]
    assert peak < 1 << 20


# --- never into a file someone else controls ------------------------------------------------------

NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown to another uid")


def refused(target: Path, why: str) -> None:
    """append refuses `target` with audit_unwritable, naming `why`."""
    with pytest.raises(AuditError, check=saying(why)) as caught:
        log.append(target, LINE)
    assert caught.value.reason == "audit_unwritable"


def test_a_log_that_is_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    """A link at the log path (to a shell start-up file, say) is never written through."""
    victim = tmp_path / ".bashrc"
    victim.write_bytes(b"# mine\n")
    victim.chmod(0o600)
    (tmp_path / "audit.jsonl").symlink_to(victim)
    refused(tmp_path / "audit.jsonl", "it is a symbolic link")
    assert victim.read_bytes() == b"# mine\n"


def test_a_dangling_link_is_not_followed_to_create_a_log(tmp_path: Path) -> None:
    """A link to a missing file is refused, and nothing is created where it points."""
    (tmp_path / "audit.jsonl").symlink_to(tmp_path / "planted")
    refused(tmp_path / "audit.jsonl", "symbolic link")
    assert not (tmp_path / "planted").exists()


def test_a_hard_linked_log_is_refused(tmp_path: Path) -> None:
    """A log with a second link (the same file under another name) is refused, left as it was."""
    target = tmp_path / "audit.jsonl"
    log.append(target, LINE)
    os.link(target, tmp_path / "elsewhere")
    refused(target, "has 2 hard links")
    assert target.read_bytes() == LINE


@pytest.mark.parametrize("mode", [0o620, 0o602, 0o666], ids=lambda mode: f"{mode:04o}")
def test_a_log_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    """A log group or others may write could hold records nobody wrote: refused."""
    target = tmp_path / "audit.jsonl"
    target.write_bytes(b"")
    target.chmod(mode)
    refused(target, f"has mode {mode:04o}")
    assert target.read_bytes() == b""


def test_a_log_others_can_only_read_is_used(tmp_path: Path) -> None:
    """Readable by others (0644) is the operator's choice: records are appended."""
    target = tmp_path / "audit.jsonl"
    target.write_bytes(b"")
    target.chmod(0o644)
    log.append(target, LINE)
    assert target.read_bytes() == LINE


@NEEDS_ROOT
def test_a_log_of_another_user_is_refused(tmp_path: Path) -> None:
    """A log planted by another uid would collect this user's records: refused."""
    target = tmp_path / "audit.jsonl"
    target.write_bytes(b"")
    target.chmod(0o600)
    os.chown(target, 65534, -1)
    refused(target, "belongs to uid 65534")
    assert target.read_bytes() == b""


def test_a_fifo_of_this_user_with_a_reader_gets_the_record(tmp_path: Path) -> None:
    """A FIFO this user made (0600) is a stream: the record arrives whole at its reader."""
    fifo = tmp_path / "audit.fifo"
    os.mkfifo(fifo, 0o600)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        log.append(fifo, LINE, fsync=True)
        assert os.read(reader, 4096) == LINE
    finally:
        os.close(reader)


def test_a_fifo_nobody_reads_fails_at_once_instead_of_hanging(tmp_path: Path) -> None:
    """Opening a FIFO with no reader would block forever: it fails (fail closed) at once."""
    fifo = tmp_path / "audit.fifo"
    os.mkfifo(fifo, 0o600)
    refused(fifo, "cannot open audit log")


def test_a_fifo_others_can_write_is_refused(tmp_path: Path) -> None:
    """A FIFO group or others may write could carry records nobody wrote: refused."""
    fifo = tmp_path / "audit.fifo"
    os.mkfifo(fifo)
    fifo.chmod(0o622)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        refused(fifo, "FIFO writable by group or others")
    finally:
        os.close(reader)


@NEEDS_ROOT
def test_a_fifo_of_another_user_is_refused(tmp_path: Path) -> None:
    """A FIFO someone else made sends this user's records to them: refused."""
    fifo = tmp_path / "audit.fifo"
    os.mkfifo(fifo, 0o600)
    os.chown(fifo, 65534, -1)
    reader = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        refused(fifo, "FIFO of uid 65534")
    finally:
        os.close(reader)


def test_dev_null_is_accepted() -> None:
    """A device of root's (/dev/null) is a place to write, not another user's file."""
    log.append(Path("/dev/null"), LINE)


TO_DESCRIPTOR = """
import os, sys
from collections.abc import Callable
from pathlib import Path
from toolguard.audit import log
read, write = os.pipe()
os.dup2(write, 5)
for path in sys.argv[1:]:
    log.append(Path(path), path.encode() + b"\\n")
os.close(5)
os.close(write)
sys.stdout.write(os.read(read, 4096).decode())
"""


def test_descriptor_names_write_to_the_descriptor_given() -> None:
    """/dev/stderr and /dev/fd/N (and /proc/self/fd/N) mean the descriptor the caller handed."""
    argv = [sys.executable, "-I", "-c", TO_DESCRIPTOR, "/dev/stderr", "/dev/fd/5"]
    argv.append("/proc/self/fd/5")
    done = subprocess.run(argv, capture_output=True, timeout=60, check=True)
    assert done.stderr == b"/dev/stderr\n"
    assert done.stdout == b"/dev/fd/5\n/proc/self/fd/5\n"


@pytest.mark.parametrize("name", ["/dev/fd/\u0662", "/proc/self/fd/\uff12", "/dev/fd/2\n"])
def test_a_descriptor_name_is_spelled_in_ascii_digits_only(name: str) -> None:
    """`/dev/fd/` and another script's digit names a file (none), not descriptor 2."""
    assert log.descriptor(Path(name)) is None


def test_a_closed_descriptor_fails_closed() -> None:
    """A descriptor name whose descriptor is not open raises AuditError."""
    refused(Path("/dev/fd/987654"), "Bad file descriptor")


# --- the way to the log: no other user's folder link ---------------------------------------------


@NEEDS_ROOT
def test_a_folder_link_of_another_user_on_the_way_is_not_followed(tmp_path: Path) -> None:
    """A team folder's `logs`, made a link by another user, never leads the record elsewhere."""
    victim = tmp_path / "bashrc.d"
    victim.mkdir()
    team = tmp_path / "team"
    team.mkdir()
    team.chmod(0o2775)
    (team / "logs").symlink_to(victim)
    os.lchown(team / "logs", 65534, -1)
    refused(team / "logs" / "audit.log", "symbolic link .*logs belongs to uid 65534")
    assert list(victim.iterdir()) == []


def test_a_folder_link_of_this_user_is_followed(tmp_path: Path) -> None:
    """The user's own link on the way (the last folder included) leads to the log."""
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "logs").symlink_to(real)
    log.append(tmp_path / "logs" / "audit.log", LINE)
    assert (real / "audit.log").read_bytes() == LINE


def test_a_folder_others_can_write_may_hold_the_log(tmp_path: Path) -> None:
    """Folders others can write are allowed on the way: the file itself is still checked."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    log.append(shared / "audit.log", LINE)
    assert (shared / "audit.log").read_bytes() == LINE
    assert stat.S_IMODE((shared / "audit.log").stat().st_mode) == 0o600


# --- standard output and the operator channel -----------------------------------------------------

AS_STDOUT = """
import sys
from collections.abc import Callable
from pathlib import Path
from toolguard.audit import log
from toolguard.errors import AuditError, UsageError
for path in sys.argv[1:]:
    try:
        log.refuse_stdout(Path(path))
    except UsageError:
        pass
    else:
        print("accepted by refuse_stdout", path, file=sys.stderr)
    try:
        log.append(Path(path), b"record\\n")
    except AuditError as exc:
        print(exc.reason, file=sys.stderr)
"""


def test_standard_output_is_never_the_log() -> None:
    """Every name for fd 1 is refused, as a usage error first and by `append` on its descriptor."""
    names = ["/dev/stdout", "/dev/fd/1", "/proc/self/fd/1"]
    argv = [sys.executable, "-c", AS_STDOUT, *names]
    done = subprocess.run(argv, capture_output=True, cwd=REPO, timeout=60, check=True)
    assert done.stdout == b""
    assert done.stderr == b"audit_unwritable\n" * 3


def test_a_log_that_is_the_channels_file_is_written_through_it_or_refused() -> None:
    """A record for the file an operator channel writes goes through its writer, never
    blocking on a full pipe: `append` returns once it is in the pipe, or fails (it is never
    left queued to be dropped); every accepted record arrives whole."""
    from toolguard.operator_channel import OperatorChannel  # noqa: PLC0415

    read, write = os.pipe()
    target = open(write, "w", encoding="utf-8")  # noqa: SIM115, PTH123 - closed below
    fifo_size = fcntl.fcntl(read, fcntl.F_GETPIPE_SZ)
    record_line = b"r" * 1000 + b"\n"
    failed: list[AuditError] = []
    attempts = fifo_size // len(record_line) + 100

    def fill() -> None:
        for _ in range(attempts):
            try:
                log.append(Path(f"/dev/fd/{write}"), record_line)
            except AuditError as exc:
                failed.append(exc)

    with target, OperatorChannel(target, capacity=8 * len(record_line)) as channel:
        thread = threading.Thread(target=fill, daemon=True)
        thread.start()
        thread.join(30)
        assert not thread.is_alive(), "append blocked on a full pipe"
        assert {(exc.reason, "could not be written" in exc.message) for exc in failed} == {
            ("audit_unwritable", True)
        }
        assert channel.dropped == 0
    written = b""
    os.set_blocking(read, False)
    with contextlib.suppress(BlockingIOError):
        while chunk := os.read(read, 1 << 16):
            written += chunk
    os.close(read)
    assert written.splitlines() == [record_line[:-1]] * (attempts - len(failed))


# --- reading a log that is not a regular file -----------------------------------------------------


def test_explain_refuses_a_fifo_at_once(tmp_path: Path) -> None:
    """`lines_with` maps a regular file: a named pipe is refused, not waited on."""
    fifo = tmp_path / "audit.fifo"
    os.mkfifo(fifo, 0o600)
    found = without_waiting(lambda: list(log.lines_with(fifo, b"req")))
    assert isinstance(found, OSError)
    assert found.strerror == "not a regular file (a named pipe)"


def test_a_summary_reads_a_fifo_as_a_stream_only_while_someone_writes(tmp_path: Path) -> None:
    """A named pipe nobody writes to reads as empty at once; what a writer put in it is read
    to its end; a device is refused (it would never end)."""
    fifo = tmp_path / "audit.fifo"
    os.mkfifo(fifo, 0o600)
    assert without_waiting(lambda: list(log.all_lines(fifo))) == []
    holder = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)  # keeps what is written in the pipe
    try:
        writer = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
        os.write(writer, LINE + LINE[:-1])
        os.close(writer)
        assert without_waiting(lambda: list(log.all_lines(fifo))) == [LINE[:-1], LINE[:-1]]
    finally:
        os.close(holder)
    refused_device = without_waiting(lambda: list(log.all_lines(Path("/dev/zero"))))
    assert isinstance(refused_device, OSError)
    assert refused_device.strerror == "not a regular file (a character device)"


def test_a_terminal_that_is_stdout_is_never_the_log_by_any_name() -> None:
    """An agent harness may run toolguard on a terminal it reads: stderr on that terminal,
    its device node and `/dev/tty` are all stdout's, and refused like it."""
    import pty  # noqa: PLC0415 - POSIX only

    main, terminal = pty.openpty()
    try:
        names = ["/dev/stderr", "/dev/tty", os.ttyname(terminal)]
        argv = [sys.executable, "-c", AS_STDOUT, *names]
        done = subprocess.run(
            argv, stdout=terminal, stderr=terminal, cwd=REPO, timeout=60, check=True,
            start_new_session=True, preexec_fn=lambda: _control(terminal),
        )  # fmt: skip
        os.close(terminal)
        terminal = -1
        shown = b""
        with contextlib.suppress(OSError):  # EIO once the terminal's other side is gone
            while chunk := os.read(main, 4096):
                shown += chunk
    finally:
        os.close(main)
        if terminal >= 0:
            os.close(terminal)
    assert done.returncode == 0
    assert shown.replace(b"\r\n", b"\n") == b"audit_unwritable\n" * 3


def _control(terminal: int) -> None:
    """In the child: make `terminal` its controlling terminal, as a harness's pty would be."""
    import fcntl  # noqa: PLC0415
    import termios  # noqa: PLC0415

    fcntl.ioctl(terminal, termios.TIOCSCTTY, 0)
