"""Show `explain` and `audit summary` results to people (rich) or programs (one JSON line).

Records are read back from a file anyone with write access could have edited: every string
goes through `clean` again and into `rich.text.Text`, so markup and escapes are never
interpreted, whatever the log holds.
"""

from __future__ import annotations

import heapq
import json
from dataclasses import asdict
from pathlib import Path
from typing import IO, Any

from toolguard.audit.raw import Pruned
from toolguard.explain.find import Found, Recheck
from toolguard.explain.summary import Summary
from toolguard.report import console as report_console
from toolguard.report import json_line
from toolguard.text import clean
from toolguard.version import __version__

_COLUMNS = ("tool", "outcome", "error_code", "layer")


def explain(
    found: Found, rechecks: dict[int, Recheck], mode: str, stream: IO[str], request_id: str
) -> None:
    """The story of one request: each record, its attempts, and the re-check if asked."""
    if mode == "json":
        document = {
            "request_id": request_id,
            "records": [
                {"offset": offset, "record": entry, "recheck": _recheck_json(rechecks.get(offset))}
                for offset, entry in found.records
            ],
            "malformed_offsets": list(found.malformed),
            **_owner_json(found.owner),
        }
        json_line(document, stream, drop_none=False)
        return
    from rich.table import Table  # noqa: PLC0415 - rich only costs start-up when used
    from rich.text import Text  # noqa: PLC0415

    console = report_console(stream, soft_wrap=True)
    if found.owner is not None:
        console.print(Text(_owner_line(found.owner)))
    count = len(found.records)
    console.print(Text(f"request {request_id}: {count} record{'s' if count != 1 else ''}"))
    for offset, entry in found.records:
        table = Table(show_header=False, box=None, padding=(0, 1))
        table.add_column(style="dim", no_wrap=True)
        table.add_column(overflow="fold")
        for label, value in _rows(entry, rechecks.get(offset)):
            table.add_row(Text(label), Text(clean(str(value))))
        # NOTE: where the record starts in the log, not a parse offset: said so.
        console.print(Text(f"\n{_headline(entry)} (log byte {offset})", style="bold"))
        console.print(table)
    if found.malformed:
        where = ", ".join(str(offset) for offset in found.malformed[:10])
        console.print(
            Text(
                f"\n{len(found.malformed)} matching line(s) are not valid records "
                f"(at log byte {where})"
            )
        )


def summary(result: Summary, mode: str, stream: IO[str]) -> None:
    """Counts per tool, outcome, error code and layer, and the rows they come from."""
    if mode == "json":
        document = {
            "since": result.since,
            "until": result.until,
            "records": result.records,
            "malformed": result.malformed,
            "totals": {name: dict(result.totals(i)) for i, name in enumerate(_COLUMNS)},
            "rows": [
                {**dict(zip(_COLUMNS, row, strict=True)), "count": count}
                for row, count in sorted(result.rows.items())
            ],
            **_owner_json(result.owner),
        }
        json_line(document, stream, drop_none=False)
        return
    from rich.table import Table  # noqa: PLC0415 - rich only costs start-up when used
    from rich.text import Text  # noqa: PLC0415

    console = report_console(stream)
    if result.owner is not None:
        console.print(Text(_owner_line(result.owner)))
    window = f"from {result.since or 'the start'} until {result.until or 'now'}"
    console.print(Text(f"{result.records} records {window}; {result.malformed} malformed lines"))
    table = Table(*(name.replace("_", " ") for name in _COLUMNS), "count")
    largest = heapq.nsmallest(
        MAX_TABLE_ROWS, result.rows.items(), key=lambda item: (-item[1], item[0])
    )
    for row, count in largest:
        table.add_row(*(Text(clean(value, 80)) for value in row), str(count))
    console.print(table)
    left_out = len(result.rows) - len(largest)
    if left_out:
        records = result.records - sum(count for _, count in largest)
        console.print(
            Text(f"... {left_out} more rows ({records} records): --format json lists every row")
        )


# NOTE: a log anyone wrote may name a tool per record: a table of a million rows costs rich
# minutes and gigabytes, and no one reads it. The largest rows are the story; JSON has all.
MAX_TABLE_ROWS = 1000


def pruned(folder: Path, result: Pruned | None, mode: str, stream: IO[str]) -> None:
    """What `audit prune` did: copies deleted and left (none of either without a folder)."""
    done = result or Pruned()
    if mode == "json":
        document = {"raw_dir": str(folder), "found": result is not None, **asdict(done)}
        json_line(document, stream, drop_none=False)
        return
    if result is None:
        stream.write(f"no raw folder at {clean(str(folder))}: nothing to prune\n")
        return
    stream.write(
        f"{clean(str(folder))}: removed {_copies(done.removed)} ({done.removed_bytes} bytes), "
        f"left {_copies(done.left)} ({done.left_bytes} bytes)\n"
    )


def _copies(count: int) -> str:
    return f"{count} raw cop{'y' if count == 1 else 'ies'}"


def _owner_json(uid: int | None) -> dict[str, Any]:
    """`log_owner` for a log that is not this user's (absent when it is)."""
    return {} if uid is None else {"log_owner": {"uid": uid, "user": _user(uid)}}


def _owner_line(uid: int) -> str:
    name = _user(uid)
    who = f"{name} (uid {uid})" if name else f"uid {uid}"
    return f"note: this log belongs to {who}, not to you: read its records as that user's word"


def _user(uid: int) -> str | None:
    import pwd  # noqa: PLC0415 - only for a log that is someone else's

    try:
        return clean(pwd.getpwuid(uid).pw_name, 64)
    except KeyError:
        return None


def _headline(entry: dict[str, Any]) -> str:
    verdict = "accepted" if entry["outcome"] == "success" else entry["outcome"]
    if "error_code" in entry:
        verdict += f" {entry['error_code']} (retryable: {str(entry['retryable']).lower()})"
    contract = entry["contract"]
    return clean(
        f"{entry['timestamp']} {entry['command']} {contract['tool']} {contract['version']}: "
        f"{verdict}",
        200,
    )


def _rows(entry: dict[str, Any], recheck: Recheck | None) -> list[tuple[str, Any]]:
    contract, upstream = entry["contract"], entry["upstream"]
    rows: list[tuple[str, Any]] = [
        ("contract", f"{contract['path']} (sha256 {contract['sha256'][:16]}...)"),
        ("toolguard", entry["toolguard"]),
        ("adapter", _adapter(entry["adapter"])),
        ("upstream", _upstream(upstream)),
    ]
    rows.extend(
        (f"attempt {attempt['number']}", _attempt(attempt))
        for attempt in upstream.get("attempts", [])
    )
    if "input" in entry:
        rows.append(("input", f"{entry['input']['size']} bytes, sha256 {entry['input']['sha256']}"))
    rows.extend(
        (label, entry[key])
        for label, key in (
            ("layer", "layer"),
            ("reason", "reason"),
            ("rule", "rule"),
            ("schema path", "schema_path"),
            ("instance path", "instance_path"),  # "" is the root
            ("byte offset", "offset"),
            ("message", "message"),
        )
        if key in entry
    )
    rows = [
        (label, "(root)" if label == "instance path" and value == "" else value)
        for label, value in rows
    ]
    if entry["context"]:
        rows.append(("context", json.dumps(entry["context"], ensure_ascii=True)))
    if "projected_fields" in entry:
        rows.append(("projected", ", ".join(entry["projected_fields"]) or "(none)"))
    if "projected_values" in entry:  # only with [audit] record_values = true
        rows.append(("values", json.dumps(entry["projected_values"], ensure_ascii=True)))
    rows.extend(("raw copy", _kept(kept)) for kept in entry.get("raw", []))
    rows.append(("envelope", f"sha256 {entry['envelope_sha256']}"))
    rows.append(("time", f"{entry['duration_ms']} ms"))
    if entry.get("truncated"):
        rows.append(("truncated", "detail was dropped to keep the record within 4096 bytes"))
    if recheck is not None:
        rows.append(("re-check", _recheck_text(entry, recheck)))
    return rows


def _adapter(adapter: dict[str, Any]) -> str:
    """What made the payload: `json`, `lines`, or `jc` with jc's version and the parser's."""
    shown = " ".join(str(adapter[key]) for key in ("kind", "version") if key in adapter)
    return f"{shown}, parser {adapter['parser']}" if "parser" in adapter else shown


def _upstream(upstream: dict[str, Any]) -> str:
    if upstream["kind"] == "command":
        return "command: " + " ".join(upstream.get("argv", []))
    if upstream["kind"] == "mcp":
        call = f"tool {upstream.get('tool', '?')}, JSON-RPC id {upstream.get('jsonrpc_id', '?')}"
        return f"MCP server: {' '.join(upstream.get('argv', []))} ({call})"
    return f"file {upstream['file']}" if "file" in upstream else upstream["kind"]


# NOTE: a member the record leaves out (a hand-edited log) is said so, never as Python's `None`.
_UNRECORDED = "not recorded"


def _attempt(attempt: dict[str, Any]) -> str:
    if "spawn_error" in attempt:
        how = f"not started ({attempt['spawn_error']})"
    elif attempt.get("timed_out"):
        how = "timed out"
    elif attempt.get("over_limit"):
        how = "output over max_bytes"
    elif "signal" in attempt:
        how = f"killed by signal {attempt['signal']}"
    else:
        how = f"exit status {attempt.get('exit_status', _UNRECORDED)}"
    verdict = attempt["outcome"]
    if "layer" in attempt:
        reason, code = (attempt.get(key, _UNRECORDED) for key in ("reason", "error_code"))
        verdict = f"{attempt['layer']}: {reason} ({code})"
    text = f"{how}; {attempt['stdout_size']} bytes out; {verdict}; {attempt['duration_ms']} ms"
    if attempt.get("stderr"):
        text += f"; stderr ({attempt['stderr_size']} bytes): {attempt['stderr']}"
    return text


def _kept(kept: dict[str, Any]) -> str:
    if kept["kept"]:
        return f"kept as {kept['sha256']}"
    return f"not kept ({kept.get('why', 'unknown')}): {kept['sha256']}"


def _recheck_text(entry: dict[str, Any], recheck: Recheck) -> str:
    """What the re-check found, after what it ran with.

    A contract or toolguard changed since is said first, so a verdict that differs is never
    read as the recorded one's.
    """
    contract = {None: "", True: "contract changed since; ", False: "contract unchanged; "}
    ran = contract[recheck.contract_changed]
    if entry["toolguard"] != __version__:
        ran += f"toolguard {entry['toolguard']} then, {__version__} now; "
    if not recheck.done:
        return f"{ran}not done: {recheck.note}"
    now = "accepted" if recheck.outcome == "success" else f"{recheck.outcome} {recheck.error_code}"
    same = "the same envelope" if recheck.same_envelope else "a different envelope"
    then = (
        "accepted" if entry["outcome"] == "success" else entry.get("error_code", entry["outcome"])
    )
    return f"{ran}then {then}, now {now}: {same}"


def _recheck_json(recheck: Recheck | None) -> dict[str, Any] | None:
    if recheck is None:
        return None
    told = {
        key: getattr(recheck, key)
        for key in Recheck.__dataclass_fields__
        if getattr(recheck, key) is not None
    }
    return {**told, "toolguard": __version__}  # the re-check's; the record holds the check's
