"""Lint reports -> text for people, one JSON document, or SARIF 2.1.0. Decides nothing.

Property names, file names and messages may quote a hostile schema: the rich output escapes
control characters and never interprets markup; JSON and SARIF escape them as JSON does.
A file name that is not UTF-8 is shown escaped (as `toolguard test` shows it; a SARIF URI
percent-encodes its bytes), never as a lone surrogate, which no strict JSON reader accepts.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import asdict
from typing import IO, Any

from toolguard.lint.findings import Finding, LintReport, Waived
from toolguard.lint.sarif import sarif_log
from toolguard.report import console as report_console
from toolguard.text import clean


def render_text(report: LintReport, stream: IO[str]) -> None:
    """One entry per finding (file:line, severity, rule, pointer, message), then a summary."""
    from rich.text import Text  # noqa: PLC0415 - rich only costs start-up when used

    console = report_console(stream, soft_wrap=True)
    style = {"error": "bold red", "warning": "yellow", "notice": "cyan"}
    for finding in report.findings:
        line = Text(f"{clean(finding.file)}:{finding.line}: ")
        line.append(finding.severity, style=style[finding.severity])
        line.append(f" {finding.rule} {finding.name}", style="bold")
        line.append(f" at {clean(finding.pointer or '(root)')}")
        console.print(line)
        console.print(Text(f"  {clean(finding.message)}"))
    for item in report.waived:
        waived = item.finding
        line = Text(f"{clean(waived.file)}:{waived.line}: ")
        line.append("waived", style="dim")
        line.append(f" {waived.rule} {waived.name} at {clean(waived.pointer or '(root)')}")
        console.print(line)
        console.print(Text(f"  reason: {clean(item.reason)}", style="dim"))
    console.print(Text(_summary(report), style="green" if report.clean else "bold"))


def _summary(report: LintReport) -> str:
    notices = sum(finding.severity == "notice" for finding in report.findings)
    count = len(report.findings) - notices
    found = "no findings" if not count else f"{count} finding{'s' * (count != 1)}"
    noticed = f", {notices} notice{'s' * (notices != 1)}" if notices else ""
    waived = f", {len(report.waived)} waived" if report.waived else ""
    files = len(report.files)
    return f"toolguard lint: {found}{noticed}{waived} in {files} file{'s' * (files != 1)}"


def render_json(report: LintReport, stream: IO[str]) -> None:
    """One line of JSON: the files linted, the findings, the waived findings with reasons."""
    document = {
        "files": [_file(file) for file in report.files],
        "findings": [_finding(finding) for finding in report.findings],
        "waived": [_waived(item) for item in report.waived],
    }
    stream.write(json.dumps(document, ensure_ascii=True, separators=(",", ":")) + "\n")


def _file(name: str) -> str:
    """A file name as JSON can hold it: hidden characters escaped, never truncated.

    A byte that is not UTF-8 (a lone surrogate in Python) is one of them.
    """
    return clean(name, limit=len(name))


def _finding(finding: Finding) -> dict[str, Any]:
    return {**asdict(finding), "file": _file(finding.file)}


def _waived(item: Waived) -> dict[str, Any]:
    return {
        **_finding(item.finding),
        "reason": item.reason,
        "waiver": {
            "file": _file(item.waiver_file),
            "pointer": item.waiver_pointer,
            "line": item.waiver_line,
        },
    }


def render_sarif(report: LintReport, stream: IO[str]) -> None:
    """One SARIF 2.1.0 log (waived findings as suppressed results), indented for diffs."""
    stream.write(json.dumps(sarif_log(report), ensure_ascii=True, indent=2) + "\n")


RENDERERS: Mapping[str, Callable[[LintReport, IO[str]], None]] = {
    "text": render_text,
    "json": render_json,
    "sarif": render_sarif,
}
