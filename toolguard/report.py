"""Operator diagnostics of `check`, `run` and `serve` on stderr (and `validate`'s report).

Decides nothing. (`toolguard test` draws its own progress bar; `explain` and `audit summary`
render through `explain/render.py`; `fixtures/report.py` reuses `json_line`.)

Everything quoted from a response or a schema is hostile until shown otherwise: control
characters (ANSI escapes included) and bidirectional overrides are escaped, rich markup is
never interpreted, and long values are truncated.
"""

from __future__ import annotations

import contextlib
import json
import sys
from dataclasses import asdict, fields
from typing import IO, TYPE_CHECKING, Any

from toolguard.result import AttemptRecord, Diagnostics
from toolguard.text import clean, cleaned

if TYPE_CHECKING:
    from toolguard.validate import InstanceResult


def render(diagnostics: Diagnostics, mode: str, stream: IO[str] | None = None) -> None:
    """Write one diagnostics record to stderr as text for people or one line of JSON.

    A closed or missing stderr loses the diagnostics, never redirects them: they must not
    reach stdout, and they must not change the outcome the envelope already announced.
    """
    stream = stream if stream is not None else sys.stderr
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        _render(diagnostics, mode, stream)


def _render(diagnostics: Diagnostics, mode: str, stream: IO[str]) -> None:
    if mode == "json":
        json_line(_as_dict(diagnostics), stream)
        return
    lines = _lines(diagnostics)
    if _is_terminal(stream):
        _rich(lines, stream)
        return
    # NOTE: what rich would print to a pipe, without importing it (~20 ms of start-up).
    stream.write("".join("".join(text for text, _ in line) + "\n" for line in lines))
    stream.flush()


_DIAGNOSTICS = tuple(item.name for item in fields(Diagnostics))
_ATTEMPT = tuple(item.name for item in fields(AttemptRecord))


def _as_dict(diagnostics: Diagnostics) -> dict[str, Any]:
    """`dataclasses.asdict` without its deep copies (a quarter of `serve`'s cost per call)."""
    values = {name: getattr(diagnostics, name) for name in _DIAGNOSTICS}
    values["attempts"] = [
        {name: getattr(attempt, name) for name in _ATTEMPT} for attempt in diagnostics.attempts
    ]
    return values


def json_line(values: dict[str, Any], stream: IO[str]) -> None:
    """One line of ASCII JSON, every string escaped and bounded, empty fields left out."""
    stream.write(
        json.dumps(cleaned(values, drop_none=True), ensure_ascii=True, separators=(",", ":")) + "\n"
    )
    stream.flush()


def instance(result: InstanceResult, mode: str, stream: IO[str] | None = None) -> None:
    """One line for one validated instance file (`toolguard validate`), escaped and bounded."""
    stream = stream if stream is not None else sys.stdout
    if mode == "json":
        json_line(asdict(result), stream)
        return
    if result.valid:
        stream.write(f"{clean(result.instance)}: valid\n")
        return
    where = result.schema_path or (f"byte {result.offset}" if result.offset is not None else "")
    at = f" at {result.instance_path or '(root)'}" if result.layer == "schema" else ""
    stream.write(
        f"{clean(result.instance)}: invalid ({result.layer}: {result.reason}{at}"
        f"{', ' + where if where else ''}): {clean(result.message or '')}\n"
    )


def error(message: str, exit_status: int, mode: str, stream: IO[str] | None = None) -> None:
    """Report an invocation error (usage, contract, schema, internal) without a traceback."""
    stream = stream if stream is not None else sys.stderr
    if stream is None:
        return
    with contextlib.suppress(OSError, ValueError):
        _error(message, exit_status, mode, stream)


def _error(message: str, exit_status: int, mode: str, stream: IO[str]) -> None:
    if mode == "json":
        record = {"outcome": "error", "exit_status": exit_status, "message": clean(message)}
        stream.write(json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n")
    else:
        stream.write(f"toolguard: error: {clean(message)}\n")
    stream.flush()


def dropped(count: int, mode: str, stream: IO[str]) -> None:
    """Say that `count` diagnostics were dropped because stderr was not being read."""
    message = f"{count} diagnostics line(s) dropped: stderr was not being read"
    with contextlib.suppress(OSError, ValueError):
        if mode == "json":
            record = {"outcome": "dropped", "count": count, "message": message}
            stream.write(json.dumps(record, separators=(",", ":")) + "\n")
        else:
            stream.write(f"toolguard: warning: {message}\n")
        stream.flush()


Line = list[tuple[str, str | None]]  # (text, rich style) segments


def _lines(diagnostics: Diagnostics) -> list[Line]:
    status = {"success": ("accepted", "green"), "failure": ("rejected", "red")}
    word, style = status.get(diagnostics.outcome, ("internal error", "bold red"))
    head: Line = [(f"toolguard: {word}", style)]
    head.append((f" {diagnostics.tool} {diagnostics.request_id}", None))
    if diagnostics.layer:
        head.append((f" at layer {diagnostics.layer}", "bold"))
        head.append((f" ({diagnostics.reason}, {diagnostics.error_code})", None))
    rows: list[Line] = [
        [("  ", None), (f"{label}: ", "dim"), (clean(str(value)), None)]
        for label, value in _details(diagnostics)
    ]
    return [head, *rows]


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _rich(lines: list[Line], stream: IO[str]) -> None:
    from rich.console import Console  # noqa: PLC0415 - rich only costs start-up when used
    from rich.text import Text  # noqa: PLC0415

    console = Console(file=stream, highlight=False, soft_wrap=True)
    for line in lines:
        text = Text()
        for segment, style in line:
            text.append(segment, style=style or "")
        console.print(text)


def _details(diagnostics: Diagnostics) -> list[tuple[str, Any]]:
    where = diagnostics.instance_path
    fields = (
        ("message", diagnostics.message),
        ("rule", diagnostics.rule),
        ("schema path", diagnostics.schema_path),
        ("instance path", "(root)" if where == "" else where),
        ("byte offset", diagnostics.offset),
        ("size", None if diagnostics.size is None else f"{diagnostics.size} bytes"),
        ("sha256", diagnostics.sha256),
        ("contract", diagnostics.contract),
        ("time", f"{diagnostics.duration_ms} ms"),
        ("command", " ".join(diagnostics.upstream) if diagnostics.upstream else None),
    )
    rows = [(label, value) for label, value in fields if value is not None]
    rows.extend((f"attempt {record.number}", _attempt(record)) for record in diagnostics.attempts)
    return rows


def _attempt(record: AttemptRecord) -> str:
    if record.spawn_error is not None:
        how = f"not started ({record.spawn_error})"
    elif record.timed_out:
        how = "timed out, process group killed"
    elif record.over_limit:
        how = "output over max_bytes, process group killed"
    elif record.signal is not None:
        how = f"killed by signal {record.signal}"
    else:
        how = f"exit status {record.exit_status}"
    verdict = record.outcome if record.error_code is None else f"{record.layer}: {record.reason}"
    text = f"{how}; {record.stdout_size} bytes out; {verdict}; {record.duration_ms} ms"
    if record.stderr_size:
        text += f"; stderr ({record.stderr_size} bytes): {record.stderr}"
    return text
