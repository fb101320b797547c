"""`toolguard test` reports: `SuiteResult` values -> a rich table per contract, JSON or JUnit XML.

Decides nothing. File names, messages and diffs may quote fixture bytes, so every string is
escaped with `report.clean` (rich markup is never interpreted, control characters never
reach a terminal or an XML file). rich is imported only when a table or a progress bar is drawn.
"""

from __future__ import annotations

import contextlib
import sys
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import IO, Any

from toolguard.files import public_mode, write_atomic
from toolguard.fixture_run import CaseResult, Status, SuiteResult
from toolguard.report import _json_line
from toolguard.text import clean

STYLE = {"pass": "green", "fail": "bold red", "error": "bold yellow"}
WORD = {"pass": "pass", "fail": "FAIL", "error": "ERROR"}
STATUSES: tuple[Status, ...] = ("pass", "fail", "error")


def totals(results: Sequence[SuiteResult]) -> dict[str, int]:
    """Cases passed, failed and in error over every contract (folder problems are errors)."""
    counts: dict[str, int] = {"contracts": len(results)}
    counts.update((status, sum(r.count(status) for r in results)) for status in STATUSES)
    return counts


def summary(results: Sequence[SuiteResult]) -> str:
    """`4 contracts: 91 passed, 0 failed, 0 errors`, plus the goldens `--update` wrote."""
    counts = totals(results)
    text = (
        f"{counts['contracts']} contract{'s' * (counts['contracts'] != 1)}: "
        f"{counts['pass']} passed, {counts['fail']} failed, "
        f"{counts['error']} error{'s' * (counts['error'] != 1)}"
    )
    written = [r.golden for suite in results for r in suite.results if r.golden]
    if written:
        text += f"; goldens: {written.count('updated')} updated, {written.count('created')} created"
    return text


def render(results: Sequence[SuiteResult], mode: str, stream: IO[str] | None = None) -> None:
    """Write the report on stdout: tables for people, or one line of JSON."""
    stream = stream if stream is not None else sys.stdout
    if mode == "json":
        _json_line(_document(results), stream)
    else:
        _rich(results, stream)


def _rich(results: Sequence[SuiteResult], stream: IO[str]) -> None:
    from rich import box  # noqa: PLC0415 - rich only costs start-up when used
    from rich.console import Console  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415
    from rich.text import Text  # noqa: PLC0415

    console = Console(file=stream, highlight=False, soft_wrap=False)
    for suite in results:
        console.print(
            Text(f"{clean(suite.tool)}  {clean(str(suite.suite.contract))}", style="bold")
        )
        table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
        table.add_column("")
        table.add_column("fixture", no_wrap=True)
        table.add_column("expected", overflow="fold")
        table.add_column("result", overflow="fold")
        for problem in suite.suite.problems:
            mark = Text(WORD["error"], style=STYLE["error"])
            where, message = Text(clean(f"fixtures/{problem.where}")), Text(clean(problem.message))
            table.add_row(mark, where, Text(""), message)
        for result in suite.results:
            table.add_row(
                Text(WORD[result.status], style=STYLE[result.status]),
                Text(clean(result.case.id)),
                Text(clean(result.expected)),
                Text(clean(_result(result))),
            )
        console.print(table)
        console.print()
        # NOTE: soft wrap: a message or a diff line stays one line, whole when copied.
        for result in suite.results:
            if result.status == "pass":
                continue
            line = Text(f"{clean(result.case.id)}: ", style=STYLE[result.status])
            console.print(line.append(clean(result.message), style=""), soft_wrap=True)
            for row in result.diff.splitlines():
                style = {"+": "green", "-": "red"}.get(row[:1], "")
                console.print(Text(f"  {clean(row)}", style=style), soft_wrap=True)
            console.print()
    passed = all(suite.passed for suite in results)
    console.print(Text(summary(results), style="green" if passed else "bold red"))


def _result(result: CaseResult) -> str:
    """`ok`, `golden updated`, `got schema /properties/x/pattern`, `golden differs`, ..."""
    if result.status == "pass":
        return f"golden {result.golden}" if result.golden else "ok"
    if result.diff:
        return "golden differs"
    return f"got {result.got}" if result.got else "fixture error"


def _problems(suite: SuiteResult) -> list[tuple[str, str]]:
    return [(f"fixtures/{problem.where}", problem.message) for problem in suite.suite.problems]


def _document(results: Sequence[SuiteResult]) -> dict[str, Any]:
    return {
        "outcome": "pass" if all(suite.passed for suite in results) else "fail",
        "counts": totals(results),
        "contracts": [
            {
                "contract": str(suite.suite.contract),
                "tool": suite.tool,
                "counts": {status: suite.count(status) for status in STATUSES},
                "problems": [
                    {"where": where, "message": message} for where, message in _problems(suite)
                ],
                "cases": [_case(result) for result in suite.results],
            }
            for suite in results
        ],
    }


def _case(result: CaseResult) -> dict[str, Any]:
    return {
        "id": result.case.id,
        "kind": result.case.kind,
        "name": result.case.name,
        "version": result.case.version,
        "file": str(result.case.response),
        "status": result.status,
        "expected": result.expected,
        "got": result.got or None,
        "message": result.message or None,
        "diff": result.diff.splitlines() or None,
        "golden": result.golden,
        "duration_ms": result.duration_ms,
    }


def write_junit(results: Sequence[SuiteResult], path: Path) -> None:
    """JUnit XML for CI: a <testsuite> per contract, a <testcase> per fixture or folder problem."""
    counts = totals(results)
    root = ET.Element(
        "testsuites",
        name="toolguard test",
        tests=str(counts["pass"] + counts["fail"] + counts["error"]),
        failures=str(counts["fail"]),
        errors=str(counts["error"]),
        time=_seconds(r.duration_ms for suite in results for r in suite.results),
    )
    for suite in results:
        tests = len(suite.results) + len(suite.suite.problems)
        element = ET.SubElement(
            root,
            "testsuite",
            name=clean(str(suite.suite.contract)),
            tests=str(tests),
            failures=str(suite.count("fail")),
            errors=str(suite.count("error")),
            skipped="0",
            time=_seconds(r.duration_ms for r in suite.results),
        )
        for problem in suite.suite.problems:
            case = _testcase(element, suite.tool, f"fixtures/{problem.where}", "", 0.0)
            ET.SubElement(case, "error", message=clean(problem.message), type="fixture")
        for result in suite.results:
            case = _testcase(
                element,
                suite.tool,
                result.case.id,
                str(result.case.response),
                result.duration_ms,
            )
            if result.status != "pass":
                tag = "failure" if result.status == "fail" else "error"
                kind = "golden" if result.diff else "expectation" if tag == "failure" else "fixture"
                detail = ET.SubElement(case, tag, message=clean(result.message), type=kind)
                detail.text = "\n".join(clean(line) for line in result.diff.splitlines()) or None
    ET.indent(root)
    data = ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"
    write_atomic(path, data, mode=public_mode(path))


def _testcase(parent: ET.Element, tool: str, name: str, file: str, ms: float) -> ET.Element:
    attributes = {"classname": clean(tool), "name": clean(name), "time": _seconds([ms])}
    if file:
        attributes["file"] = clean(file)
    return ET.SubElement(parent, "testcase", attributes)


def _seconds(durations: Iterable[float]) -> str:
    return f"{sum(durations) / 1000:.6f}"


@contextlib.contextmanager
def progress(total: int, stream: IO[str] | None = None) -> Iterator[Callable[[CaseResult], None]]:
    """A transient progress bar on stderr while cases run, only if stderr is a terminal."""
    stream = stream if stream is not None else sys.stderr
    if stream is None or not stream.isatty() or total == 0:
        yield lambda _result: None
        return
    from rich.console import Console  # noqa: PLC0415 - rich only costs start-up when used
    from rich.progress import Progress  # noqa: PLC0415

    with Progress(console=Console(file=stream), transient=True) as bar:
        task = bar.add_task("toolguard test", total=total)
        yield lambda _result: bar.advance(task)
