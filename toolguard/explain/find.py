"""`toolguard explain`: every record of one request, and whether today's contract agrees.

Finding is a byte search of the log for the request id, block by block, so it costs a scan
of its bytes however long the log is; only the lines whose `request_id` is the id (or, in a
log written by hand, may spell it with escapes) are parsed and validated.
Re-checking reads the raw copy named by the record's digest (a regular file, no longer than
recorded), verifies the digest, and runs the current contract on it with the recorded
request id, context and clock. An `mcp` record's copy is the server's whole line, named by its
`raw` entry: it is answered again by the MCP guard's own replay, which the caller passes in
(`explain` and `mcp` are independent layers).
"""

from __future__ import annotations

import hashlib
import heapq
import os
import re
import stat
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from toolguard import rfc3339
from toolguard.audit import log, record
from toolguard.contract import Contract, load_contract
from toolguard.errors import ToolguardError, UsageError, operator_text
from toolguard.files import SpecialFile, open_regular
from toolguard.limits import read_at_most
from toolguard.pipeline import check_attempt, check_bytes, require_context
from toolguard.request import Request, is_request_id, make_request
from toolguard.result import Outcome
from toolguard.rfc3339 import datetime
from toolguard.run.spawn import Attempt

MAX_RAW_BYTES = 1 << 30
# `toolguard.mcp.replay.replay`: the outcome `mcp` gives the server's line, for this request.
LineReplay = Callable[[Contract, Request, bytes], Outcome]


@dataclass(frozen=True, slots=True)
class Found:
    """The records of one request (in log order) and the matching lines that were not valid."""

    records: tuple[tuple[int, dict[str, Any]], ...]  # (byte offset in the log, record)
    malformed: tuple[int, ...]
    owner: int | None = None  # the log's owner, when it is not this user


@dataclass(frozen=True, slots=True)
class Recheck:
    """The recorded answer against what the current contract says about the same bytes."""

    done: bool
    note: str
    contract_changed: bool | None = None
    outcome: str | None = None
    error_code: str | None = None
    same_envelope: bool | None = None


# A character a request id may hold ([0-9A-Za-z_.]) written as an escape: toolguard never
# writes one, but a record written by hand may spell an id so (`req.\u0063...`), and `audit
# summary` counts it. NOTE: not every escaped ASCII character: toolguard writes DEL as `\u007f`.
_ESCAPED_ID_CHARACTER = re.compile(
    rb"\\u00(?:2[eE]|3[0-9]|4[1-9a-fA-F]|5[0-9aAfF]|6[1-9a-fA-F]|7[0-9aA])"
)


def find(path: Path, request_id: str) -> Found:
    """All records whose `request_id` is this one; raise `UsageError` for a bad id or log.

    The lines read are those whose `request_id` member is the id, however the record is laid
    out (spaces around the colon), and, in a log that has any, those holding an escaped
    character of a request id. Malformed lines are reported among the first only: the others
    may belong to any request.
    """
    if not is_request_id(request_id):
        raise UsageError(f"{request_id!r} is not a request id")
    named = re.compile(rb'"request_id"[ \t\r]*:[ \t\r]*"' + re.escape(request_id.encode()) + b'"')
    records: list[tuple[int, dict[str, Any]]] = []
    malformed: list[int] = []
    try:
        literal = ((offset, line, True) for offset, line in log.lines_with(path, named))
        escaped = (
            (offset, line, False) for offset, line in log.lines_with(path, _ESCAPED_ID_CHARACTER)
        )
        last = -1
        for offset, line, mentioned in heapq.merge(literal, escaped, key=lambda found: found[0]):
            if offset == last:
                continue  # a line found both ways
            last = offset
            decoded = None if line is None else record.decode(line)
            if decoded is None:
                if mentioned:
                    malformed.append(offset)
            elif decoded["request_id"] == request_id:
                records.append((offset, decoded))
    except OSError as exc:
        raise UsageError(f"cannot read audit log {path}: {exc.strerror or exc}") from None
    return Found(tuple(records), tuple(malformed), log.owner(path))


def recheck(
    entry: dict[str, Any],
    raw_dir: Path,
    contract_path: Path | None = None,
    mcp_line: LineReplay | None = None,
) -> Recheck:
    """Run today's contract on the recorded raw bytes, as the recorded request.

    The contract is loaded first, so whether it changed since is told even when the re-check
    cannot run; each step that stops it (the contract, the raw copy, the request) says so.
    An `mcp` record is replayed by `mcp_line` (none: it is not re-checked).
    """
    why = _not_replayable(entry, mcp_line)
    if why is not None:
        return Recheck(done=False, note=why)
    path = contract_path or Path(entry["contract"]["path"])
    try:
        contract = load_contract(_regular_file(path))
    except ToolguardError as exc:
        return Recheck(done=False, note=f"the contract does not load today: {operator_text(exc)}")
    changed = contract.digest != entry["contract"]["sha256"]
    try:
        line = mcp_line if entry["upstream"]["kind"] == "mcp" else None
        if line is None:
            raw = _read_raw(raw_dir, entry["input"]["sha256"], entry["input"]["size"])
        else:  # NOTE: the line's size is not recorded: its copy is read no further than any
            raw = _read_raw(raw_dir, entry["raw"][0]["sha256"], None)
        request = _recorded_request(entry, contract)
        if line is None:
            outcome = _replay(contract, raw, request, entry["upstream"])
        else:
            outcome = line(contract, request, raw)
    except ToolguardError as exc:
        return Recheck(done=False, note=operator_text(exc), contract_changed=changed)
    now = record.envelope_digest(outcome.envelope)
    return Recheck(
        done=True,
        note="re-checked with the recorded request id, context and clock",
        contract_changed=changed,
        outcome=outcome.diagnostics.outcome,
        error_code=outcome.diagnostics.error_code,
        same_envelope=now == entry["envelope_sha256"],
    )


def _recorded_request(entry: dict[str, Any], contract: Contract) -> Request:
    """The recorded request, as today's contract takes it; `UsageError` if it refuses it.

    NOTE: the context is required here, before either replay: an `mcp` call's was required when
    it was admitted, so the line's own path never asks, and a context key today's contract
    reads and the record lacks would be a toolguard bug there (an internal outcome). Only these
    refusals are today's toolguard refusing the request; a replay's own notes are not.
    """
    try:
        request = make_request(entry["request_id"], entry["context"], _instant(entry["timestamp"]))
        require_context(contract, request)
    except UsageError as exc:  # an empty context value, say: recorded, refused today
        raise UsageError(f"today's toolguard refuses the recorded request: {exc}") from None
    return request


def _not_replayable(entry: dict[str, Any], mcp_line: LineReplay | None) -> str | None:
    """Why the record alone cannot be replayed (no bytes, no line kept, a lost request)."""
    mcp = entry["upstream"]["kind"] == "mcp"
    if not mcp and "input" not in entry:
        return "no response was read, so there is nothing to re-check"
    secret = [key for key, value in entry["context"].items() if isinstance(value, dict)]
    if secret or entry.get("truncated"):  # NOTE: before an mcp line: truncating drops `raw`
        why = f"secret context {secret}" if secret else "a truncated record"
        return f"the request cannot be rebuilt from {why}"
    return _no_line(entry, mcp_line) if mcp else None


def _no_line(entry: dict[str, Any], mcp_line: LineReplay | None) -> str | None:
    """Why an `mcp` record's line cannot be answered again, if it cannot.

    NOTE: its `input` is the payload's digest; the line's is its `raw` entry's, and a line
    whose copy was not kept (a success under `--raw-keep rejected`, a truncated record) has none.
    """
    if mcp_line is None:
        return "an MCP record needs the MCP guard's replay (`mcp_line`) to be re-checked"
    kept = entry.get("raw")
    if not kept:
        if "input" not in entry:
            return "the server's answer was never read (a timeout, a cancelled call, its exit)"
        return (
            "the record names no copy of the server's line: only rejected calls' lines are "
            "kept but with --raw-keep all"
        )
    if not kept[0]["kept"]:
        return f"the server's line was not kept ({kept[0].get('why', 'no reason recorded')})"
    return None


def _replay(contract: Contract, raw: bytes, request: Request, upstream: dict[str, Any]) -> Outcome:
    """The check the record's command made: `run`'s last attempt as it ended, else the bytes.

    A timed-out, killed or over-limit attempt is replayed as one: its output read as a
    complete answer would be a verdict the record never had.
    """
    attempts = upstream.get("attempts")
    if not attempts and not upstream.get("exit_status"):
        return check_bytes(contract, raw, request)
    last = attempts[-1] if attempts else upstream
    attempt = Attempt(
        raw,
        b"",
        last.get("stderr_size", 0),
        last.get("duration_ms", 0.0) / 1000,
        exit_status=last.get("exit_status"),
        signal=last.get("signal"),
        timed_out=last.get("timed_out", False),
        over_limit=last.get("over_limit", False),
        spawn_error=last.get("spawn_error"),
    )
    return check_attempt(contract, attempt, request)


def _instant(timestamp: str) -> datetime:
    """The record's clock, read as `--now` and the `fresh` rule read a time (`rfc3339`).

    So a leap second (`23:59:60Z`, valid RFC 3339, which `datetime` cannot hold) replays as the
    first instant of the next minute, and digits past the microsecond are truncated, as
    `audit summary` reads the same record.
    """
    instant = rfc3339.parse_date_time(timestamp)
    if instant is None:  # year 0000: valid RFC 3339, but no instant `datetime` can hold
        raise UsageError(f"the recorded time {timestamp} cannot be replayed")
    return instant


def _regular_file(path: Path) -> Path:
    """The recorded contract path, if it names a regular file (a FIFO would block `explain`)."""
    try:
        regular = stat.S_ISREG(path.stat().st_mode)
    except OSError as exc:
        raise UsageError(f"cannot read contract {path}: {exc.strerror or exc}") from None
    if not regular:
        raise UsageError(f"contract {path} is not a regular file")
    return path


def _read_raw(folder: Path, digest: str, size: int | None) -> bytes:
    """The raw copy's bytes, if they are still the recorded ones; `UsageError` if not.

    Only a regular file toolguard could have written: the name is opened in the folder
    without following a link (toolguard never writes one; one put there is named, not read),
    judged before it is opened (a FIFO would be waited on, a device read forever) and again
    on its descriptor. Read no further than one byte past the recorded `size` (more is an
    altered copy), nor past `MAX_RAW_BYTES` (`size` None: not recorded; a longer copy is
    said to be, not to be altered).
    """
    path, most = folder / digest, MAX_RAW_BYTES
    try:
        where = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except FileNotFoundError:
        raise UsageError(f"no raw folder {folder}") from None
    except OSError as exc:
        raise UsageError(f"cannot open raw folder {folder}: {exc.strerror or exc}") from None
    try:
        with open_regular(digest, dir_fd=where, follow=False) as stream:
            raw = read_at_most(stream, (most if size is None else min(size, most)) + 1)
    except SpecialFile as exc:
        why = f"it is a {exc.kind}, not a regular file"
        raise UsageError(f"raw copy {path} is not read: {why}") from None
    except FileNotFoundError:
        raise UsageError(f"no raw copy {path} (pruned, or never kept)") from None
    except OSError as exc:
        raise UsageError(f"cannot read raw copy {path}: {exc.strerror or exc}") from None
    finally:
        os.close(where)
    if size is None and len(raw) > most:  # not read to its end: whether it matches is unknown
        raise UsageError(f"raw copy {path} is larger than {most} bytes: it is not read")
    if hashlib.sha256(raw).hexdigest() != digest:
        how = "altered"
        if size is not None and len(raw) != size:
            how = "cut short" if len(raw) < size else "grown"
        raise UsageError(f"raw copy {path} does not match its digest: it was {how}")
    return raw
