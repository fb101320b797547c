"""`toolguard test` as a library: discovery, expectations and verdicts on fixture trees.

The trees under tests/data/fixture_trees/ share one schema and one contract shape; each holds
one situation (all pass, wrong layer, empty folder, missing folder, stale golden, bad files).
"""

from __future__ import annotations

import shutil
import stat
from pathlib import Path

import pytest

from toolguard import load_contract
from toolguard.errors import UsageError
from toolguard.expectation import Expectation, FixtureError, golden_diff
from toolguard.fixture_run import SuiteResult, run_case, run_suite
from toolguard.fixtures import Problem, Settings, Suite, contract_paths, discover
from toolguard.result import Diagnostics

TREES = Path(__file__).resolve().parent / "data" / "fixture_trees"


def run(tree: Path, **options: object) -> SuiteResult:
    contract = tree / "contract.toml"
    return run_suite(discover(contract), load_contract(contract), **options)


def statuses(result: SuiteResult) -> dict[str, str]:
    return {case.case.id: case.status for case in result.results}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A private copy of the passing tree, to break or update without touching the repo."""
    shutil.copytree(TREES, tmp_path / "trees")
    return tmp_path / "trees" / "pass"


def test_contract_paths_walk_folders_and_keep_files_as_given() -> None:
    """A folder gives every contract.toml under it (sorted); a file is taken as given, once."""
    found = contract_paths([TREES, TREES / "pass" / "contract.toml"])
    assert [path.parent.name for path in found] == [
        "bad_fixtures",
        "empty_folder",
        "missing_folder",
        "pass",
        "stale_golden",
        "wrong_layer",
    ]


def test_contract_paths_skip_hidden_and_fixture_folders(tmp_path: Path) -> None:
    """.venv-like and fixtures/ folders are not searched for contracts."""
    for folder in (".venv/lib", "tool/fixtures/accept", "tool"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "contract.toml").write_text("")
    assert contract_paths([tmp_path]) == [tmp_path / "tool" / "contract.toml"]


def test_a_folder_without_contract_is_a_usage_error(tmp_path: Path) -> None:
    """A run that would find nothing to test is refused, never an empty pass."""
    with pytest.raises(UsageError, match=r"no contract\.toml under"):
        contract_paths([tmp_path])


def test_discovery_finds_every_kind_in_order() -> None:
    """accept/, reject/ and history/<version>/ become cases, sorted, with their version."""
    suite = discover(TREES / "pass" / "contract.toml")
    assert suite.problems == ()
    assert [case.id for case in suite.cases] == [
        "accept/failed_run",
        "accept/no_golden",
        "accept/other_project",
        "reject/duplicate_member",
        "reject/empty_project",
        "reject/stale",
        "reject/too_deep",
        "reject/wrong_project",
        "history/0.9/compact_offset",
        "history/0.9/with_note",
    ]
    assert {case.version for case in suite.cases if case.kind == "history"} == {"0.9"}
    assert suite.settings == Settings("req.tree.0001", "2026-03-14T09:30:00Z")


def test_a_case_uses_its_own_context_else_the_contracts() -> None:
    """NAME.context.json wins over the context.json beside the contract."""
    cases = {case.id: case for case in discover(TREES / "pass" / "contract.toml").cases}
    assert cases["accept/other_project"].context_file == (
        TREES / "pass" / "fixtures" / "accept" / "other_project.context.json"
    )
    assert cases["accept/failed_run"].context_file == TREES / "pass" / "context.json"


def test_a_passing_tree_passes_every_case() -> None:
    """Accept with and without golden, rejects at each layer, history: all pass."""
    result = run(TREES / "pass")
    assert set(statuses(result).values()) == {"pass"}
    assert result.passed
    got = {case.case.id: case.got for case in result.results}
    assert got["reject/duplicate_member"] == "parse (duplicate_member)"
    assert got["reject/empty_project"] == "schema /properties/project_id/pattern"
    assert got["reject/stale"] == "rule observation_fresh (stale)"
    assert got["accept/no_golden"] == "success"


def test_a_reject_fixture_failing_at_the_wrong_layer_fails() -> None:
    """Rejected is not enough: the layer and the rule must be the ones the fixture names."""
    result = run(TREES / "wrong_layer")
    assert statuses(result) == {
        "accept/failed_run": "pass",
        "reject/empty_project": "fail",
        "reject/wrong_project": "pass",
    }
    failed = next(case for case in result.results if case.status == "fail")
    assert failed.message.startswith(
        "expected rule project_matches, got schema /properties/project_id/pattern: "
    )
    assert not result.passed


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("empty_folder", Problem("reject/", "holds no fixture")),
        ("missing_folder", Problem("reject/", "is missing")),
    ],
)
def test_an_empty_or_missing_folder_is_an_error_not_a_pass(name: str, problem: Problem) -> None:
    """Every case that exists passes, yet the suite fails on the folder it could not test."""
    result = run(TREES / name)
    assert result.suite.problems == (problem,)
    assert set(statuses(result).values()) == {"pass"}
    assert result.count("error") == 1
    assert not result.passed


def test_a_stale_golden_fails_with_a_diff() -> None:
    """The envelope now carries `state`; the golden does not: a failure showing the new line."""
    result = run(TREES / "stale_golden")
    assert statuses(result)["accept/failed_run"] == "fail"
    failed = next(case for case in result.results if case.status == "fail")
    assert failed.message == "golden envelope differs"
    assert '+    "state": "failed"' in failed.diff.splitlines()
    assert failed.diff.startswith("--- failed_run.expected.json (golden)\n+++ actual")


def test_update_rewrites_a_stale_golden_atomically_keeping_its_mode(tmp_path: Path) -> None:
    """--update writes the envelope the contract prints now; the next run passes."""
    shutil.copytree(TREES, tmp_path / "trees")
    stale = tmp_path / "trees" / "stale_golden"
    golden = stale / "fixtures" / "accept" / "failed_run.expected.json"
    golden.chmod(0o640)
    result = run(stale, update=True)
    assert result.passed
    assert {case.case.id: case.golden for case in result.results if case.golden} == {
        "accept/failed_run": "updated"
    }
    assert golden.read_bytes() == (
        b'{"tool":"project_status","request_id":"req.tree.0001","outcome":"success",'
        b'"data":{"project_id":"bluebird","state":"failed"}}\n'
    )
    assert stat.S_IMODE(golden.stat().st_mode) == 0o640
    assert sorted(p.name for p in golden.parent.iterdir() if p.name.startswith(".")) == []
    assert run(stale).passed


def test_update_creates_missing_goldens_for_accept_and_history(tree: Path) -> None:
    """A fixture without golden gets one; reject fixtures never get one."""
    result = run(tree, update=True)
    written = {case.case.id: case.golden for case in result.results if case.golden}
    assert written == {"accept/no_golden": "created", "history/0.9/compact_offset": "created"}
    assert (tree / "fixtures" / "accept" / "no_golden.expected.json").exists()
    assert not list((tree / "fixtures" / "reject").glob("*.expected.json"))


def test_a_rejected_accept_fixture_fails_and_update_leaves_it_alone(tree: Path) -> None:
    """An accept fixture the contract rejects fails; --update writes no golden for it."""
    response = tree / "fixtures" / "accept" / "no_golden.json"
    response.write_bytes(b'{"project_id": "bluebird", "state": "failed", "state": "failed"}')
    result = run(tree, update=True)
    failed = next(case for case in result.results if case.case.id == "accept/no_golden")
    assert failed.status == "fail"
    assert failed.message.startswith("expected success, got parse (duplicate_member): ")
    assert not (tree / "fixtures" / "accept" / "no_golden.expected.json").exists()


def test_bad_fixture_files_are_errors() -> None:
    """Unknown keys, a missing expectation, keyword with a rule layer, a stray file: errors."""
    result = run(TREES / "bad_fixtures")
    assert result.suite.problems == (
        Problem("accept/failed_run.expect.toml", "belongs to no fixture"),
    )
    messages = {case.case.id: case.message for case in result.results if case.status == "error"}
    assert messages == {
        "reject/keyword_on_rule": (
            "keyword_on_rule.expect.toml: keyword only goes with layer = 'schema'"
        ),
        "reject/no_expectation": (
            "no_expectation.expect.toml is missing (it states the code and layer)"
        ),
        "reject/unknown_key": (
            "unknown_key.expect.toml: unknown keys ['layers']; "
            "allowed: code, layer, rule, keyword, reason"
        ),
    }
    assert result.count("error") == 4


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('code = "INVALID_RESPONSE"\nlayer = 3\n', "every value must be a string"),
        ('code = "OOPS"\nlayer = "schema"\n', "code must be one of"),
        ('code = "INVALID_RESPONSE"\nlayer = "rules"\n', "layer must be one of"),
        ('layer = "schema"\n', "code must be one of"),
        ('code = "INVALID_RESPONSE"\nlayer = "schema"\nrule = "x"\n', "rule only goes with"),
        ("code = ", "NAME.expect.toml: "),
    ],
)
def test_expectation_refuses_what_it_cannot_check(tmp_path: Path, text: str, message: str) -> None:
    """An expectation that could never match, or means nothing, is refused with its file name."""
    path = tmp_path / "NAME.expect.toml"
    path.write_text(text)
    with pytest.raises(FixtureError, match=message):
        Expectation.read(path)


def diagnostics(**fields: object) -> Diagnostics:
    base: dict[str, object] = {
        "tool": "t",
        "request_id": "req.fixture.0001",
        "contract": "c",
        "outcome": "failure",
        "error_code": "INVALID_RESPONSE",
        "message": "why",
    }
    return Diagnostics(**{**base, **fields})


def test_keyword_is_the_last_segment_of_the_schema_path() -> None:
    """`keyword = "pattern"` matches /properties/x/pattern and nothing else."""
    expect = Expectation("INVALID_RESPONSE", "schema", keyword="pattern")
    at_pattern = diagnostics(layer="schema", reason="pattern", schema_path="/properties/x/pattern")
    at_enum = diagnostics(layer="schema", reason="enum", schema_path="/properties/x/enum")
    assert expect.mismatch(at_pattern) is None
    assert expect.mismatch(at_enum) == (
        "expected schema keyword pattern, got schema /properties/x/enum: why"
    )


def test_a_different_code_is_named_in_the_mismatch() -> None:
    """NOT_FOUND expected, INVALID_RESPONSE got: the message says both codes."""
    expect = Expectation("NOT_FOUND", "upstream", reason="error_document")
    got = diagnostics(layer="schema", reason="type", schema_path="/type")
    assert expect.mismatch(got) == (
        "expected NOT_FOUND at upstream (error_document), got INVALID_RESPONSE at schema /type: why"
    )


def test_success_where_a_rejection_was_expected_fails() -> None:
    """A reject fixture the contract accepts is the worst failure: it says so plainly."""
    expect = Expectation("INVALID_RESPONSE", "rule", rule="project_matches")
    assert expect.mismatch(diagnostics(outcome="success", error_code=None)) == (
        "expected rule project_matches, got success"
    )


def test_golden_diff_shows_bytes_when_the_json_is_the_same() -> None:
    """Whitespace-only differences still fail, and the diff shows the raw bytes."""
    diff = golden_diff(b'{"a": 1}\n', b'{"a":1}\n', "x.expected.json")
    assert "-b'{\"a\": 1}\\n'" in diff.splitlines()


def test_fixtures_toml_is_optional_and_strict(tree: Path) -> None:
    """Without it: the default request id, the real clock; an unknown key is a problem."""
    settings = tree / "fixtures" / "fixtures.toml"
    settings.unlink()
    assert discover(tree / "contract.toml").settings == Settings("req.fixture.0001", None)
    settings.write_text('now = "2026-03-14T09:30:00Z"\nrequest = "req.tree.0001"\n')
    suite = discover(tree / "contract.toml")
    assert suite.settings is None
    assert suite.problems[0].where == "fixtures.toml"
    assert "unknown keys ['request']" in suite.problems[0].message
    result = run_suite(suite, load_contract(tree / "contract.toml"))
    assert {case.status for case in result.results} == {"error"}
    assert result.results[0].message == "not run: fixtures.toml is unusable"


def test_a_bad_now_in_fixtures_toml_is_a_problem(tree: Path) -> None:
    """`now` must be an RFC 3339 date-time with an offset, as for `--now`."""
    (tree / "fixtures" / "fixtures.toml").write_text('now = "2026-03-14 09:30"\n')
    suite = discover(tree / "contract.toml")
    assert suite.settings is None
    assert "RFC 3339" in suite.problems[0].message


def test_run_options_override_fixtures_toml(tree: Path) -> None:
    """Another request id changes every envelope: each golden now differs."""
    result = run(tree, request_id="req.other.0001")
    failed = {case.case.id for case in result.results if case.status == "fail"}
    assert failed == {"accept/failed_run", "accept/other_project", "history/0.9/with_note"}


@pytest.mark.parametrize(
    ("make", "where", "message"),
    [
        (lambda f: (f / "acept").mkdir(), "acept", "is not part of the fixtures layout"),
        (lambda f: (f / "history").mkdir(), "history/", "holds no <upstream-version>/ folder"),
        (lambda f: (f / "history" / "2.0").mkdir(parents=True), "history/2.0/", "holds no fixture"),
        (
            lambda f: (f / "history").mkdir() or (f / "history" / "x.json").write_text("{}"),
            "history/x.json",
            "is not in a version folder",
        ),
        (
            lambda f: (f / "accept" / "failed_run.txt").write_text("x"),
            "accept/failed_run",
            "has more than one response file",
        ),
        (
            lambda f: (f / "reject" / "notes.md").write_text("x"),
            "reject/notes.md",
            "belongs to no fixture",
        ),
    ],
    ids=["typo", "empty-history", "empty-version", "loose-history", "two-responses", "stray"],
)
def test_layout_problems_are_reported(tree: Path, make: object, where: str, message: str) -> None:
    """Anything that would let a fixture go silently untested is a problem of the suite."""
    shutil.rmtree(tree / "fixtures" / "history")
    make(tree / "fixtures")
    assert Problem(where, message) in discover(tree / "contract.toml").problems


def test_fixtures_are_raw_bytes(tree: Path) -> None:
    """A duplicate member stays a duplicate: the file is checked as bytes, never re-encoded."""
    suite = discover(tree / "contract.toml")
    case = next(case for case in suite.cases if case.id == "reject/duplicate_member")
    assert case.response.read_bytes().count(b'"state"') == 2
    assert suite.settings is not None
    result = run_case(case, load_contract(tree / "contract.toml"), suite.settings)
    assert (result.status, result.got) == ("pass", "parse (duplicate_member)")


def test_an_unreadable_context_is_an_error_of_that_case(tree: Path) -> None:
    """A context file that is not strict JSON makes the case an error, the run goes on."""
    (tree / "fixtures" / "accept" / "other_project.context.json").write_text('{"a": 1, "a": 2}')
    result = run(tree)
    errors = {case.case.id for case in result.results if case.status == "error"}
    assert errors == {"accept/other_project"}


def test_suite_counts_include_folder_problems() -> None:
    """Counts are per status; problems count as errors."""
    suite = Suite(Path("c.toml"), (), (Problem("accept/", "is missing"),), Settings())
    result = SuiteResult(suite, "t", ())
    assert (result.count("pass"), result.count("fail"), result.count("error")) == (0, 0, 1)
