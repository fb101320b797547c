"""Every example contract against its fixture files, one test id per fixture.

Layout (shared with users' contract fixtures):
examples/<name>/fixtures/fixtures.toml                   fixed `now` and `request_id`
examples/<name>/fixtures/accept/NAME.json                raw response bytes (NAME.txt for a
                                                         contract with a [text] adapter)
examples/<name>/fixtures/accept/NAME.expected.json       golden success envelope (one line)
examples/<name>/fixtures/reject/NAME.json                raw response bytes
examples/<name>/fixtures/reject/NAME.expect.toml         code, layer, [reason], [rule]
examples/<name>/fixtures/{accept,reject}/NAME.context.json  optional; else the example's
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any, NamedTuple

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
KINDS = ("accept", "reject")
EXPECTATION = {"accept": ".expected.json", "reject": ".expect.toml"}
LAYERS = {"upstream", "input", "limits", "parse", "schema", "rule", "projection"}
RESPONSE_SUFFIXES = (".json", ".txt")
CODES = {"INVALID_RESPONSE", "UPSTREAM_UNAVAILABLE", "NOT_FOUND"}
EXPECT_KEYS = {"code", "layer", "reason", "rule"}


class Case(NamedTuple):
    example: Path
    kind: str
    name: str
    suffix: str

    @property
    def folder(self) -> Path:
        return self.example / "fixtures" / self.kind

    @property
    def response(self) -> Path:
        return self.folder / f"{self.name}{self.suffix}"

    @property
    def context(self) -> Path:
        own = self.folder / f"{self.name}.context.json"
        return own if own.exists() else self.example / "context.json"

    @property
    def id(self) -> str:
        return f"{self.example.name}/{self.kind}/{self.name}"


def example_dirs() -> list[Path]:
    return sorted(path.parent for path in EXAMPLES.glob("*/contract.toml"))


def is_response(path: Path) -> bool:
    """A fixture's response file: NAME.json (or .txt) that is not a companion file."""
    companion = path.name.endswith((".expected.json", ".context.json"))
    return path.suffix in RESPONSE_SUFFIXES and not companion


def cases(kind: str) -> list[Case]:
    return [
        Case(example, kind, path.stem, path.suffix)
        for example in example_dirs()
        for path in sorted((example / "fixtures" / kind).iterdir())
        if is_response(path)
    ]


def folders() -> list[Any]:
    return [
        pytest.param(example, kind, id=f"{example.name}/{kind}")
        for example in example_dirs()
        for kind in KINDS
    ]


def settings(example: Path) -> dict[str, Any]:
    with (example / "fixtures" / "fixtures.toml").open("rb") as handle:
        return tomllib.load(handle)


def check_args(case: Case) -> list[str | Path]:
    fixed = settings(case.example)
    return [
        "check",
        case.example / "contract.toml",
        "--input",
        case.response,
        "--context-file",
        case.context,
        "--now",
        fixed["now"],
        "--request-id",
        fixed["request_id"],
        "--diagnostics",
        "json",
    ]


def test_examples_exist() -> None:
    """The fixture walk finds the three example contracts, so it cannot pass vacuously."""
    assert {path.name for path in example_dirs()} >= {"review_status", "job_run", "deploy_status"}


@pytest.mark.parametrize(("example", "kind"), folders())
def test_fixture_folder_is_not_empty(example: Path, kind: str) -> None:
    """Each example has a non-empty accept/ and reject/ folder: a missing one is a failure."""
    folder = example / "fixtures" / kind
    assert folder.is_dir(), f"{folder} is missing"
    assert any(is_response(path) for path in folder.iterdir()), f"{folder} has no fixture"


@pytest.mark.parametrize(("example", "kind"), folders())
def test_every_fixture_file_is_paired(example: Path, kind: str) -> None:
    """Every response has its expectation file and every other file belongs to a response."""
    folder = example / "fixtures" / kind
    names = {path.name for path in folder.iterdir()} if folder.is_dir() else set()
    responses = {Path(name).stem for name in names if is_response(Path(name))}
    needed = EXPECTATION[kind]
    allowed = {
        f"{stem}{suffix}"
        for stem in responses
        for suffix in (*RESPONSE_SUFFIXES, needed, ".context.json")
    }
    missing = sorted(f"{stem}{needed}" for stem in responses if f"{stem}{needed}" not in names)
    orphans = sorted(names - allowed)
    assert not missing, f"responses without an expectation in {folder}: {missing}"
    assert not orphans, f"files that belong to no response in {folder}: {orphans}"


@pytest.mark.parametrize("example", example_dirs(), ids=lambda path: path.name)
def test_fixture_settings_fix_clock_and_request_id(example: Path) -> None:
    """fixtures.toml holds exactly a `now` instant and a valid `request_id`."""
    fixed = settings(example)
    assert set(fixed) == {"now", "request_id"}
    assert isinstance(fixed["now"], str)
    assert fixed["now"].endswith("Z")
    assert isinstance(fixed["request_id"], str)


@pytest.mark.parametrize("case", cases("accept"), ids=lambda case: case.id)
def test_accept_fixture_prints_its_golden_envelope(run_toolguard: Any, case: Case) -> None:
    """An accepted response exits 0 and prints exactly its golden success envelope."""
    golden = (case.folder / f"{case.name}.expected.json").read_bytes()
    assert golden.count(b"\n") == 1, "a golden envelope is exactly one line"
    run = run_toolguard(*check_args(case))
    assert run.status == 0, run.stderr.decode(errors="replace")
    assert run.stdout == golden
    assert run.diagnostics()["outcome"] == "success"


@pytest.mark.parametrize("case", cases("reject"), ids=lambda case: case.id)
def test_reject_fixture_fails_at_its_layer(run_toolguard: Any, case: Case) -> None:
    """A rejected response exits 1, prints only the failure envelope, and names layer and cause."""
    with (case.folder / f"{case.name}.expect.toml").open("rb") as handle:
        expect = tomllib.load(handle)
    assert set(expect) <= EXPECT_KEYS, f"unknown keys in expect.toml: {set(expect) - EXPECT_KEYS}"
    assert expect["code"] in CODES
    assert expect["layer"] in LAYERS
    fixed = settings(case.example)
    failure = {
        "tool": case.example.name,
        "request_id": fixed["request_id"],
        "outcome": "failure",
        "error": {"code": expect["code"], "retryable": False},
    }
    run = run_toolguard(*check_args(case))
    assert run.status == 1, run.stderr.decode(errors="replace")
    assert run.stdout == json.dumps(failure, separators=(",", ":")).encode() + b"\n"
    diagnostics = run.diagnostics()
    assert diagnostics["outcome"] == "failure"
    assert diagnostics["error_code"] == expect["code"]
    assert diagnostics["layer"] == expect["layer"], diagnostics
    if "reason" in expect:
        assert diagnostics["reason"] == expect["reason"], diagnostics
    if "rule" in expect:
        assert diagnostics["rule"] == expect["rule"], diagnostics
    elif expect["layer"] != "rule":
        assert "rule" not in diagnostics


def test_job_run_goldens_omit_provider_only_fields() -> None:
    """job_run accepts a response with diagnostic_url and exception_message; no golden has them."""
    folder = EXAMPLES / "job_run" / "fixtures" / "accept"
    provider_only = {"diagnostic_url", "exception_message"}
    responses = [
        json.loads(path.read_bytes()) for path in folder.glob("*.json") if is_response(path)
    ]
    assert any(provider_only <= set(response) for response in responses)
    for golden in folder.glob("*.expected.json"):
        data = json.loads(golden.read_bytes())["data"]
        assert set(data) == {"project_id", "run_id", "state", "observed_at"}, golden.name
        assert b"diagnostic_url" not in golden.read_bytes()
        assert b"RuntimeError" not in golden.read_bytes()
