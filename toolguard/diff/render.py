"""Render a contract diff: a table for people, or one JSON object for CI. Decides nothing.

Everything shown comes from contract and schema files, so it is escaped and bounded like any
diagnostic (`report.clean`): no control character or rich markup reaches the terminal.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from typing import IO, Any

from toolguard.diff import ContractDiff
from toolguard.report import console as report_console
from toolguard.text import clean, cleaned

FORMATS = ("text", "json")
_SHORT_COLUMNS = ("upstream", "agent", "breaking")


def write(result: ContractDiff, mode: str, stream: IO[str], *, titled: bool = False) -> None:
    """Write `result` to `stream` in `mode` (one of `FORMATS`).

    `titled` puts the contract's path above the table (several contracts in one report).
    """
    if mode == "json":
        stream.write(json.dumps(as_json(result), ensure_ascii=True, separators=(",", ":")) + "\n")
        stream.flush()
        return
    _rich(result, stream, titled=titled)


def as_json(result: ContractDiff) -> dict[str, Any]:
    """The JSON document `--format json` prints: sides, changes, verdict, strings escaped.

    `old` is null for a contract with no earlier version.
    """
    document: dict[str, Any] = {
        "old": asdict(result.old) if result.old is not None else None,
        "new": asdict(result.new),
        "changes": [asdict(item) for item in result.changes],
        "verdict": asdict(result.verdict),
    }
    return {key: cleaned(value) for key, value in document.items()}


def _headline(result: ContractDiff) -> str:
    """`tool 1.0.0 -> 1.1.0: 3 changes (1 breaking, 2 agent-facing)`; `tool new at 1.0.0: ...`."""
    old, new = result.old, result.new
    count = len(result.changes)
    summary = f"{count} change{'' if count == 1 else 's'}"
    if count:
        summary += f" ({result.breaking} breaking, {result.agent_facing} agent-facing)"
    if old is None:
        return f"{clean(new.tool)} new at {clean(new.version)}: {summary}"
    tool = clean(old.tool if old.tool == new.tool else f"{old.tool} -> {new.tool}")
    return f"{tool} {clean(old.version)} -> {clean(new.version)}: {summary}"


def _rich(result: ContractDiff, stream: IO[str], *, titled: bool) -> None:
    from rich import box  # noqa: PLC0415 - rich only costs start-up when used
    from rich.table import Table  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415

    console = report_console(stream)
    if titled:
        console.print(Text(clean(str(result.new.contract)), style="bold"))
    console.print(Text(_headline(result)))
    if result.changes:
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        for column in ("where", "change", "upstream", "agent", "breaking"):
            table.add_column(column, overflow="fold", no_wrap=column in _SHORT_COLUMNS)
        for item in result.changes:
            what = f"{item.what}: {item.detail}" if item.detail else item.what
            table.add_row(
                Text(clean(item.where)),
                Text(clean(what)),
                Text(item.upstream),
                Text(item.agent),
                Text("yes" if item.breaking else "no", style="bold red" if item.breaking else ""),
            )
        console.print(table)
    verdict = result.verdict
    line = Text(
        "ok: " if verdict.ok else "version bump missing: ",
        style="green" if verdict.ok else "bold red",
    )
    line.append(clean(verdict.message))
    console.print(line)
