"""Every example contract against its fixture files, one test id per fixture.

The walk and the verdicts are `toolguard test`'s own (`toolguard/fixtures.py`,
`toolguard/fixture_run.py`): users' contract fixtures and ours share one layout and one runner.
"""

from __future__ import annotations

import json
import tomllib
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from toolguard import envelope
from toolguard.contract import Contract, load_contract
from toolguard.contract.find import contract_paths, variant
from toolguard.fixtures.discover import EXPECT, GOLDEN, Case, Suite, discover
from toolguard.fixtures.run import run_case

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
SUITES = [discover(path) for path in contract_paths([EXAMPLES])]


def label(suite: Suite) -> str:
    """`disk_usage` for its contract.toml, `disk_usage.jc` for its contract.jc.toml."""
    name = variant(suite.contract)
    return suite.contract.parent.name + (f".{name}" if name else "")


BY_NAME = {label(suite): suite for suite in SUITES}

# The article's near-miss set, and the reject fixture that plays each part in each example.
# None: the near miss cannot be written for that example. review_status and deploy_status
# carry no timestamp (nothing can be stale) and no project (the request-matching rule plays
# "wrong project"); disk_usage is `df -P` text: no objects, members or nulls exist in it.
# get_current_time (mcp-server-time's tool, for `toolguard mcp`) has no project: its zone,
# checked against the request, plays "wrong project".
NEAR_MISSES: dict[str, dict[str, str | None]] = {
    "extra property": {
        "review_status": "extra_property",
        "review_status_signed": "extra_property",
        "deploy_status": "extra_property",
        "job_run": "extra_property",
        "disk_usage": "extra_column",
        "get_current_time": "extra_property",
    },
    "null instead of object": {
        "review_status": "null_instead_of_object",
        "review_status_signed": "null_instead_of_object",
        "deploy_status": "null_instead_of_object",
        "job_run": "null_instead_of_object",
        "disk_usage": None,
        "get_current_time": "null_instead_of_object",
    },
    "empty identifier": {
        "review_status": "empty_identifier",
        "review_status_signed": "empty_identifier",
        "deploy_status": "empty_identifier",
        "job_run": "empty_identifier",
        "disk_usage": "empty_identifier",
        "get_current_time": "empty_identifier",
    },
    "duplicate member in the raw bytes": {
        "review_status": "duplicate_member",
        "review_status_signed": "duplicate_member",
        "deploy_status": "duplicate_member",
        "job_run": "duplicate_member",
        "disk_usage": None,
        "get_current_time": "duplicate_member",
    },
    "array instead of object": {
        "review_status": "array_instead_of_object",
        "review_status_signed": "array_instead_of_object",
        "deploy_status": "array_instead_of_object",
        "job_run": "array_instead_of_object",
        "disk_usage": None,
        "get_current_time": "array_instead_of_object",
    },
    "over-long string": {
        "review_status": "over_long_string",
        "review_status_signed": "over_long_string",
        "deploy_status": "over_long_string",
        "job_run": "over_long_string",
        "disk_usage": "over_long_string",
        "get_current_time": "over_long_string",
    },
    "success that also carries an error": {
        "review_status": "success_with_error",
        "review_status_signed": "success_with_error",
        "deploy_status": "success_with_error",
        "job_run": "success_with_error",
        "disk_usage": "warning_line",  # df printed its records and an error line
        "get_current_time": "success_with_error",
    },
    "injection": {
        "review_status": "injection_article",
        "review_status_signed": "injection_article",
        "deploy_status": "injection",
        "job_run": "injection",
        "disk_usage": "injection",
        "get_current_time": "injection",
    },
    "wrong project": {
        "review_status": "wrong_change_id",
        "review_status_signed": "wrong_change_id",
        "deploy_status": "production_when_staging",
        "job_run": "wrong_project",
        "disk_usage": None,
        "get_current_time": "wrong_zone",
    },
    "stale timestamp": {
        "review_status": None,
        "review_status_signed": "expired",  # the attestation's exp
        "deploy_status": None,
        "job_run": "stale",
        "disk_usage": None,
        "get_current_time": "stale",
    },
    "future timestamp": {
        "review_status": None,
        "review_status_signed": "issued_in_future",  # the attestation's iat
        "deploy_status": None,
        "job_run": "future",
        "disk_usage": None,
        "get_current_time": "future",
    },
}


# Each attack or failure the article describes, beyond the near-miss set: the example and
# reject fixture that show it, and the layer (and reason) the article says must stop it.
# docs/testing.md lists the same rows ("The article's attacks, each at its layer").
ARTICLE_ATTACKS: dict[str, tuple[str, str, str, str]] = {
    "instruction in a message, admin_override": (
        "review_status",
        "injection_article",
        "schema",
        "required",
    ),
    "message and admin_override beside valid fields": (
        "review_status",
        "injection_with_valid_fields",
        "schema",
        "additionalProperties",
    ),
    "wrong field names": ("review_status", "wrong_field_names", "schema", "required"),
    "duplicate approved key": (
        "review_status",
        "duplicate_approved_article",
        "parse",
        "duplicate_member",
    ),
    "an error page taken for approval": ("review_status", "html_error_page", "parse", "syntax"),
    "a string where a typed value belongs": (
        "get_current_time",
        "string_instead_of_boolean",
        "schema",
        "type",
    ),
    "an array of ten thousand log lines": (
        "job_run",
        "ten_thousand_log_lines",
        "limits",
        "too_large",
    ),
    "nesting built to eat the context": ("review_status", "limits_too_deep", "limits", "too_deep"),
    "only a status": ("job_run", "status_only", "schema", "required"),
    "a state put in a message": ("job_run", "state_in_message", "schema", "required"),
    "an absurd timestamp": ("job_run", "impossible_date", "schema", "format"),
    "stale data": ("job_run", "stale", "rule", "stale"),
    "wrong project": ("job_run", "wrong_project", "rule", "mismatch"),
    "a run of another project": ("job_run", "run_not_in_context", "rule", "not_a_member"),
    "state drifted into an object, plus maintenance": (
        "deploy_status",
        "drifted",
        "schema",
        "enum",
    ),
    "an unexpected property": ("review_status", "extra_property", "schema", "additionalProperties"),
}


@cache
def contract(path: Path) -> Contract:
    return load_contract(path)


def cases(kind: str | None = None) -> list[Any]:
    return [
        pytest.param(suite, case, id=f"{label(suite)}/{case.id}")
        for suite in SUITES
        for case in suite.cases
        if kind in (None, case.kind)
    ]


def test_examples_exist() -> None:
    """The walk finds the six example contracts, so it cannot pass vacuously."""
    assert set(BY_NAME) == {
        "review_status",
        "review_status_signed",
        "job_run",
        "deploy_status",
        "disk_usage",
        "get_current_time",
        "disk_usage.jc",
    }


@pytest.mark.parametrize("suite", SUITES, ids=label)
def test_fixture_folders_are_sound(suite: Suite) -> None:
    """accept/ and reject/ exist and hold fixtures, and every file belongs to a fixture."""
    assert suite.problems == ()
    assert {case.kind for case in suite.cases} >= {"accept", "reject"}


@pytest.mark.parametrize("suite", SUITES, ids=label)
def test_fixture_settings_fix_clock_and_request_id(suite: Suite) -> None:
    """fixtures.toml holds a fixed `now`, so freshness verdicts do not depend on the day."""
    assert suite.settings is not None
    assert suite.settings.now is not None
    assert suite.settings.now.endswith("Z")


@pytest.mark.parametrize(("suite", "case"), cases())
def test_fixture_passes(suite: Suite, case: Case) -> None:
    """Each fixture gets the verdict its files state: golden envelope, or code, layer, cause."""
    assert suite.settings is not None
    result = run_case(case, contract(case.contract), suite.settings)
    assert result.status == "pass", f"{result.message}\n{result.diff}"


@pytest.mark.parametrize(("suite", "case"), cases("reject"))
def test_reject_fixture_envelope_holds_nothing_from_the_response(suite: Suite, case: Case) -> None:
    """A rejected response becomes exactly the failure envelope: tool, id, code, no data."""
    assert suite.settings is not None
    result = run_case(case, contract(case.contract), suite.settings)
    assert result.outcome is not None
    code = result.outcome.diagnostics.error_code
    assert code is not None
    expected = envelope.failure(case.contract.parent.name, suite.settings.request_id, code, False)
    assert result.outcome.envelope == expected


@pytest.mark.parametrize(("suite", "case"), cases("accept"))
def test_every_accept_fixture_of_the_examples_has_a_one_line_golden(
    suite: Suite, case: Case
) -> None:
    """Goldens are optional for users; every accepted example response pins its envelope."""
    golden = case.companion(GOLDEN).read_bytes()
    assert golden.count(b"\n") == 1
    assert golden.endswith(b"\n")


@pytest.mark.parametrize("near_miss", NEAR_MISSES)
def test_every_example_has_the_articles_near_miss_set(near_miss: str) -> None:
    """Each near miss of the article is a reject fixture of every example it can apply to."""
    for example, name in NEAR_MISSES[near_miss].items():
        rejects = {case.name for case in BY_NAME[example].cases if case.kind == "reject"}
        if name is not None:
            assert name in rejects, f"{example} has no {near_miss} fixture ({name})"


def test_deploy_status_keeps_the_shape_from_before_the_drift_as_history() -> None:
    """history/1.0 holds what upstream 1.0 sent before it drifted; the drifted shape is rejected."""
    suite = BY_NAME["deploy_status"]
    history = [case for case in suite.cases if case.kind == "history"]
    assert {case.version for case in history} == {"1.0"}
    assert "drifted" in {case.name for case in suite.cases if case.kind == "reject"}
    before = json.loads(history[0].response.read_bytes())
    drifted = json.loads((suite.contract.parent / "fixtures/reject/drifted.json").read_bytes())
    assert set(before) == {"environment", "revision", "state"}
    assert isinstance(drifted["state"], dict)


def test_job_run_goldens_omit_provider_only_fields() -> None:
    """job_run accepts a response with diagnostic_url and exception_message; no golden has them."""
    accepted = [case for case in BY_NAME["job_run"].cases if case.kind == "accept"]
    provider_only = {"diagnostic_url", "exception_message"}
    responses = [json.loads(case.response.read_bytes()) for case in accepted]
    assert any(provider_only <= set(response) for response in responses)
    for case in accepted:
        golden = case.companion(GOLDEN).read_bytes()
        data = json.loads(golden)["data"]
        assert set(data) == {"project_id", "run_id", "state", "observed_at"}, case.name
        assert b"diagnostic_url" not in golden
        assert b"RuntimeError" not in golden


@pytest.mark.parametrize("attack", ARTICLE_ATTACKS)
def test_every_attack_of_the_article_is_rejected_at_its_layer(attack: str) -> None:
    """Each attack the article describes has a reject fixture naming the layer it implies."""
    example, name, layer, reason = ARTICLE_ATTACKS[attack]
    rejects = {case.name: case for case in BY_NAME[example].cases if case.kind == "reject"}
    assert name in rejects, f"{example} has no fixture for {attack} ({name})"
    expect = tomllib.loads(rejects[name].companion(EXPECT).read_text(encoding="utf-8"))
    assert (expect.get("layer"), expect.get("reason")) == (layer, reason), attack
