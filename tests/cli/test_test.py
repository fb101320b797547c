"""`toolguard test` end to end: the real CLI on the examples and on the fixture trees."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

from conftest import REPO, RunToolguard
from junitparser import JUnitXml

TREES = Path("tests") / "data" / "fixture_trees"


def test_the_examples_pass(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """`toolguard test examples/` (what CI runs): every fixture passes, exit 0, quiet stderr."""
    junit = tmp_path / "examples.xml"
    run = run_toolguard("test", "examples/", "--junit", junit)
    assert run.status == 0, run.stdout.decode()
    assert run.stderr == b""
    last = run.stdout.decode().rstrip().splitlines()[-1]
    xml = JUnitXml.fromfile(str(junit))
    assert last == f"7 contracts: {xml.tests} passed, 0 failed, 0 errors"
    assert (xml.failures, xml.errors) == (0, 0)
    sizes = {suite.name: suite.tests for suite in xml}
    assert set(sizes) == {
        "examples/deploy_status/contract.toml",
        "examples/disk_usage/contract.toml",
        "examples/disk_usage/contract.jc.toml",
        "examples/get_current_time/contract.toml",
        "examples/job_run/contract.toml",
        "examples/review_status/contract.toml",
        "examples/review_status_signed/contract.toml",
    }
    own = {"examples/disk_usage/contract.jc.toml": Path("examples/disk_usage/fixtures.jc")}
    for name, size in sizes.items():
        fixtures = own.get(name, Path(name).parent / "fixtures")
        responses = [
            path
            for path in fixtures.rglob("*")
            if path.suffix in {".json", ".txt"}
            and not path.name.endswith((".expected.json", ".context.json"))
        ]
        assert size == len(responses), name


def test_a_fixture_at_the_wrong_layer_fails_the_run(run_toolguard: RunToolguard) -> None:
    """Exit 1, and the report says which rule was expected and where it failed instead."""
    run = run_toolguard("test", TREES / "wrong_layer")
    assert run.status == 1
    out = run.stdout.decode()
    assert "FAIL" in out
    assert (
        "reject/empty_project: expected rule project_matches, got schema "
        "/properties/project_id/pattern"
    ) in " ".join(out.split())


def test_an_empty_and_a_missing_folder_fail_the_run(run_toolguard: RunToolguard) -> None:
    """All present fixtures pass, yet an empty or absent folder makes the run fail."""
    run = run_toolguard(
        "test", TREES / "empty_folder", TREES / "missing_folder", "--format", "json"
    )
    assert run.status == 1
    document = run.envelope()
    assert document["counts"] == {"contracts": 2, "pass": 2, "fail": 0, "error": 2}
    problems = [problem for c in document["contracts"] for problem in c["problems"]]
    assert problems == [
        {"where": "fixtures/reject/", "message": "holds no fixture"},
        {
            "where": "fixtures/reject/",
            "message": "is missing: it holds responses it must refuse "
            "(NAME.json, NAME.expect.toml)",
        },
    ]


def test_a_stale_golden_fails_until_update(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """The diff is shown; --update rewrites the golden and says so; then the run passes."""
    shutil.copytree(TREES, tmp_path / "trees")
    stale = tmp_path / "trees" / "stale_golden"
    failed = run_toolguard("test", stale)
    assert failed.status == 1
    assert '  +    "state": "failed"' in failed.stdout.decode()
    updated = run_toolguard("test", stale, "--update")
    assert updated.status == 0
    assert "goldens: 1 updated, 0 created" in updated.stdout.decode()
    again = run_toolguard("test", stale, "--format", "json")
    assert again.status == 0
    assert again.envelope()["outcome"] == "pass"


def test_json_and_junit_agree_on_every_tree(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """Both reports of one run count the same passes, failures and errors per contract."""
    junit = tmp_path / "trees.xml"
    run = run_toolguard("test", TREES, "--format", "json", "--junit", junit)
    assert run.status == 1
    document = run.envelope()
    xml = {Path(suite.name).parent.name: suite for suite in JUnitXml.fromfile(str(junit))}
    for entry in document["contracts"]:
        suite = xml[Path(entry["contract"]).parent.name]
        counts = entry["counts"]
        assert suite.tests == counts["pass"] + counts["fail"] + counts["error"]
        assert (suite.failures, suite.errors) == (counts["fail"], counts["error"])


def test_usage_errors_exit_2_with_nothing_on_stdout(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """No contract under a folder, a bad --now, an unwritable --junit: exit 2."""
    nothing = run_toolguard("test", tmp_path)
    assert (nothing.status, nothing.stdout) == (2, b"")
    assert b"no contract.toml (or contract.NAME.toml) under" in nothing.stderr
    bad_now = run_toolguard("test", TREES / "pass", "--now", "yesterday", "--format", "json")
    assert (bad_now.status, bad_now.stdout) == (2, b"")
    assert json.loads(bad_now.stderr)["exit_status"] == 2
    unwritable = run_toolguard("test", TREES / "pass", "--junit", tmp_path / "no" / "j.xml")
    assert (unwritable.status, unwritable.stdout) == (2, b"")  # refused before anything runs
    assert b"cannot write --junit" in unwritable.stderr
    no_target = run_toolguard("test")
    assert no_target.status == 2


def test_junit_names_a_file_never_stdout(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """`--junit -` or an empty name: exit 2 before anything runs, no file named `-` made."""
    tree = REPO / TREES / "pass"
    for name in ("-", ""):
        run = run_toolguard("test", tree, "--junit", name, cwd=tmp_path)
        assert (run.status, run.stdout) == (2, b""), name
        assert b"--junit" in run.stderr
    assert list(tmp_path.iterdir()) == []
    dash = run_toolguard("test", tree, "--junit", "./-", cwd=tmp_path)
    assert dash.status == 0  # `./-` names the file `-`
    assert JUnitXml.fromfile(str(tmp_path / "-")).tests == 10


def test_junit_that_is_no_regular_file_is_refused_and_kept(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`--junit` naming a FIFO (as a device: /dev/null run as root) is written around, never
    renamed over: exit 2, and the FIFO is still there."""
    fifo = tmp_path / "report.xml"
    os.mkfifo(fifo)
    run = run_toolguard("test", TREES / "pass", "--junit", fifo)
    assert run.status == 2, run.stderr
    assert b"cannot write --junit" in run.stderr
    assert b"not a regular file (a named pipe)" in run.stderr
    assert stat.S_ISFIFO(fifo.lstat().st_mode)


def test_junit_in_a_folder_no_system_can_name_is_a_usage_error(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """A path over the system's length limit is exit 2 before anything runs, not a bug (4)."""
    long = tmp_path.joinpath(*["a" * 200] * 25, "j.xml")
    run = run_toolguard("test", TREES / "pass", "--junit", long)
    assert (run.status, run.stdout) == (2, b""), run.stderr
    assert b"cannot write --junit" in run.stderr


def test_a_bad_contract_exits_3(run_toolguard: RunToolguard) -> None:
    """A contract that does not load stops the run before any fixture, as for `check`."""
    run = run_toolguard("test", "tests/data/contracts/bad/invalid_toml/contract.toml")
    assert (run.status, run.stdout) == (3, b"")
    assert b"invalid_toml" in run.stderr


def test_a_path_the_system_cannot_look_up_is_a_bad_contract(run_toolguard: RunToolguard) -> None:
    """A name too long to stat: exit 3, as for any contract that cannot be read (not a bug, 4)."""
    run = run_toolguard("test", "a" * 300)  # one name over NAME_MAX (255)
    assert (run.status, run.stdout) == (3, b"")
    assert b"cannot read contract: File name too long" in run.stderr


def test_options_override_fixtures_toml(run_toolguard: RunToolguard) -> None:
    """--request-id changes every envelope, so every golden differs."""
    run = run_toolguard(
        "test", TREES / "pass", "--request-id", "req.other.0001", "--format", "json"
    )
    assert run.status == 1
    assert run.envelope()["counts"]["fail"] == 3


def test_a_contract_whose_extra_is_missing_is_an_error_naming_it(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """Without jc, disk_usage's jc contract is an error that names the extra; the other runs."""
    shadow = tmp_path / "jc"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('jc is not installed here')\n")
    run = run_toolguard(
        "test", "examples/disk_usage", "--format", "json", extra_env={"PYTHONPATH": str(tmp_path)}
    )
    assert run.status == 1
    assert run.stderr == b""
    report = run.envelope()
    assert report["counts"]["contracts"] == 2
    line, jc = report["contracts"]
    assert line["contract"] == "examples/disk_usage/contract.toml"
    assert line["counts"]["error"] == line["counts"]["fail"] == 0
    assert jc["contract"] == "examples/disk_usage/contract.jc.toml"
    assert jc["cases"] == []
    assert jc["problems"] == [
        {
            "where": "contract.jc.toml",
            "message": "not run: [text] jc needs the jc extra: pip install 'toolguard-cli[jc]'"
            " (from a clone: pip install '.[jc]')",
        }
    ]


def test_a_second_contract_in_a_folder_runs_against_its_own_fixtures(
    run_toolguard: RunToolguard,
) -> None:
    """contract.jc.toml is checked against fixtures.jc/, contract.toml against fixtures/."""
    run = run_toolguard("test", "examples/disk_usage", "--format", "json")
    assert run.status == 0, run.stdout.decode()
    line, jc = run.envelope()["contracts"]
    assert {Path(case["file"]).parts[2] for case in line["cases"]} == {"fixtures"}
    assert {Path(case["file"]).parts[2] for case in jc["cases"]} == {"fixtures.jc"}
    got = {
        side["contract"]: next(case["got"] for case in side["cases"] if case["name"] == "banner")
        for side in (line, jc)
    }
    assert got == {
        "examples/disk_usage/contract.toml": "parse (line_mismatch)",
        "examples/disk_usage/contract.jc.toml": "schema /properties/records/items/required",
    }


def test_named_pipes_among_the_fixtures_are_errors_not_waits(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """A FIFO as a response, a golden or an expectation: that case errs, the run ends."""
    shutil.copytree(TREES, tmp_path / "trees")
    fixtures = tmp_path / "trees" / "stale_golden" / "fixtures"
    for name in (
        "accept/running.json",
        "accept/failed_run.expected.json",
        "reject/wrong_project.expect.toml",
    ):
        (fixtures / name).unlink()
        os.mkfifo(fixtures / name)
    run = run_toolguard("test", tmp_path / "trees" / "stale_golden", "--format", "json")
    assert run.status == 1, run.stderr
    cases = {case["name"]: case for case in run.envelope()["contracts"][0]["cases"]}
    assert {name: case["status"] for name, case in cases.items()} == {
        "running": "error",
        "failed_run": "error",
        "wrong_project": "error",
    }
    assert all("not a regular file (a named pipe)" in case["message"] for case in cases.values())
