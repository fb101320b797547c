"""`toolguard test` reports: tables, JSON and JUnit XML, with hostile text always escaped."""

from __future__ import annotations

import io
import json
import shutil
from pathlib import Path

import pytest
from junitparser import Error, Failure, JUnitXml

from toolguard import fixture_report, load_contract
from toolguard.fixture_run import SuiteResult, run_suite
from toolguard.fixtures import contract_paths, discover

TREES = Path(__file__).resolve().parent / "data" / "fixture_trees"
HOSTILE = "evil\x1b[2J[bold red]markup\u202e"  # no "/": it would be a folder


def results(*roots: Path) -> list[SuiteResult]:
    return [run_suite(discover(path), load_contract(path)) for path in contract_paths(roots)]


@pytest.fixture(scope="module")
def every_tree() -> list[SuiteResult]:
    return results(TREES)


@pytest.fixture
def hostile(tmp_path: Path) -> list[SuiteResult]:
    """The passing tree with one accept fixture renamed to escapes, markup and a bidi override."""
    shutil.copytree(TREES, tmp_path / "trees")
    accept = tmp_path / "trees" / "pass" / "fixtures" / "accept"
    (accept / "no_golden.json").rename(accept / f"{HOSTILE}.json")
    (accept / f"{HOSTILE}.json").write_bytes(b'{"project_id": "bluebird"}')  # rejected: fails
    return results(tmp_path / "trees" / "pass")


def test_junit_is_read_back_by_junitparser_with_the_right_counts(
    tmp_path: Path, every_tree: list[SuiteResult]
) -> None:
    """One <testsuite> per contract, one <testcase> per fixture or problem, typed results."""
    path = tmp_path / "junit.xml"
    fixture_report.write_junit(every_tree, path)
    xml = JUnitXml.fromfile(str(path))
    assert (xml.tests, xml.failures, xml.errors) == (25, 2, 6)
    suites = {Path(suite.name).parent.name: suite for suite in xml}
    counts = {name: (s.tests, s.failures, s.errors, s.skipped) for name, s in suites.items()}
    assert counts == {
        "bad_fixtures": (5, 0, 4, 0),
        "empty_folder": (2, 0, 1, 0),
        "missing_folder": (2, 0, 1, 0),
        "pass": (10, 0, 0, 0),
        "stale_golden": (3, 1, 0, 0),
        "wrong_layer": (3, 1, 0, 0),
    }
    for name, suite in suites.items():
        cases = list(suite)
        assert len(cases) == counts[name][0], name  # the attributes match the elements
        assert sum(any(isinstance(r, Failure) for r in c.result) for c in cases) == counts[name][1]
        assert sum(any(isinstance(r, Error) for r in c.result) for c in cases) == counts[name][2]
    outcome = {
        (name, case.name): [(type(r).__name__, r.type) for r in case.result]
        for name, suite in suites.items()
        for case in suite
    }
    assert outcome["wrong_layer", "reject/empty_project"] == [("Failure", "expectation")]
    assert outcome["stale_golden", "accept/failed_run"] == [("Failure", "golden")]
    assert outcome["empty_folder", "fixtures/reject/"] == [("Error", "fixture")]
    assert outcome["bad_fixtures", "reject/unknown_key"] == [("Error", "fixture")]
    assert outcome["pass", "history/0.9/with_note"] == []


def test_junit_failure_carries_the_message_and_the_diff(
    tmp_path: Path, every_tree: list[SuiteResult]
) -> None:
    """CI shows the one-line message; the diff is the failure's text."""
    path = tmp_path / "junit.xml"
    fixture_report.write_junit(every_tree, path)
    suites = {Path(suite.name).parent.name: suite for suite in JUnitXml.fromfile(str(path))}
    wrong = next(case for case in suites["wrong_layer"] if case.name == "reject/empty_project")
    assert wrong.result[0].message.startswith(
        "expected rule project_matches, got schema /properties/project_id/pattern"
    )
    stale = next(case for case in suites["stale_golden"] if case.name == "accept/failed_run")
    assert '+    "state": "failed"' in stale.result[0].text
    assert stale.classname == "project_status"


def test_junit_escapes_hostile_names(tmp_path: Path, hostile: list[SuiteResult]) -> None:
    """Control characters are not even legal in XML: they are escaped, and the file parses."""
    path = tmp_path / "junit.xml"
    fixture_report.write_junit(hostile, path)
    raw = path.read_bytes()
    assert b"\x1b" not in raw
    assert "\u202e".encode() not in raw
    names = [case.name for suite in JUnitXml.fromfile(str(path)) for case in suite]
    assert "accept/evil\\x1b[2J[bold red]markup\\u202e" in names


def test_rich_report_escapes_hostile_names(hostile: list[SuiteResult]) -> None:
    """A file name never drives the terminal: no escape byte, markup shown, not interpreted."""
    stream = io.StringIO()
    fixture_report.render(hostile, "rich", stream)
    text = stream.getvalue()
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "evil\\x1b[2J[bold red]markup\\u202e" in text
    assert "1 contract: 9 passed, 1 failed, 0 errors" in text


def test_rich_report_has_a_table_per_contract_and_the_diffs(
    every_tree: list[SuiteResult],
) -> None:
    """Each contract is named above its table; failures are explained below it."""
    stream = io.StringIO()
    fixture_report.render(every_tree, "rich", stream)
    text = stream.getvalue()
    flat = "".join(text.split())  # rich folds a long checkout path, even mid-name
    for name in ("bad_fixtures", "empty_folder", "missing_folder", "pass", "wrong_layer"):
        assert "".join(f"project_status {TREES / name / 'contract.toml'}".split()) in flat
    assert "reject/empty_project: expected rule project_matches, got schema" in text
    assert '  +    "state": "failed"' in text
    assert text.rstrip().endswith("6 contracts: 17 passed, 2 failed, 6 errors")


def test_json_report_is_one_line_with_every_case(every_tree: list[SuiteResult]) -> None:
    """One line of ASCII JSON: totals, then each contract's problems and cases."""
    stream = io.StringIO()
    fixture_report.render(every_tree, "json", stream)
    assert stream.getvalue().count("\n") == 1
    document = json.loads(stream.getvalue())
    assert document["outcome"] == "fail"
    assert document["counts"] == {"contracts": 6, "pass": 17, "fail": 2, "error": 6}
    by_name = {Path(c["contract"]).parent.name: c for c in document["contracts"]}
    assert by_name["empty_folder"]["problems"] == [
        {"where": "fixtures/reject/", "message": "holds no fixture"}
    ]
    stale = by_name["stale_golden"]["cases"][0]
    assert stale["status"] == "fail"
    assert '+    "state": "failed"' in stale["diff"]
    history = by_name["pass"]["cases"][-1]
    assert (history["kind"], history["version"], history["name"]) == ("history", "0.9", "with_note")


def test_summary_counts_the_goldens_update_wrote(tmp_path: Path) -> None:
    """--update says how many goldens it rewrote and created."""
    shutil.copytree(TREES, tmp_path / "trees")
    path = tmp_path / "trees" / "stale_golden" / "contract.toml"
    updated = [run_suite(discover(path), load_contract(path), update=True)]
    assert fixture_report.summary(updated) == (
        "1 contract: 3 passed, 0 failed, 0 errors; goldens: 1 updated, 0 created"
    )


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_is_drawn_only_on_a_terminal(every_tree: list[SuiteResult]) -> None:
    """A pipe gets no progress bar; a terminal gets one, cleared when the run ends."""
    piped = io.StringIO()
    with fixture_report.progress(3, piped) as advance:
        advance(every_tree[0].results[0])
    assert piped.getvalue() == ""
    terminal = Terminal()
    with fixture_report.progress(3, terminal) as advance:
        for result in every_tree[3].results[:3]:
            advance(result)
    assert "toolguard test" in terminal.getvalue()
