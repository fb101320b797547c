"""Loading the `[run]`, `[retry]` and `[text]` tables: good ones become frozen policies.

Bad values are fixture folders under `tests/data/contracts/bad/` (named `run_*`, `retry_*`,
`text_*`), checked case by case by `test_contract.py`; here we make sure every field of the
three tables has at least one, and that good tables load into what they say.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

import pytest

from toolguard import load_contract
from toolguard.adapters.lines import TextAdapter
from toolguard.error_documents import Mapped
from toolguard.run.environment import DEFAULT_NAMES, INHERIT
from toolguard.run.policy import DEFAULT_TIMEOUT, RunPolicy
from toolguard.run.retry import DEFAULT_BUDGET, RetryPolicy, time_limits

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
CONTRACTS = Path(__file__).resolve().parents[1] / "data" / "contracts"
TABLES = ("run", "retry", "text")
SCHEMA = json.loads((ROOT / "schemas" / "contract.schema.json").read_text(encoding="utf-8"))


def bad_fields() -> list[str]:
    """The field each bad fixture's expected error names."""
    cases = sorted((CONTRACTS / "bad").glob("*/expected.toml"))
    return [tomllib.loads(path.read_text(encoding="utf-8"))["field"] for path in cases]


def table_bad_cases(table: str) -> list[Path]:
    return sorted(path for path in (CONTRACTS / "bad").glob(f"{table}_*") if path.is_dir())


@pytest.mark.parametrize("table", TABLES)
def test_each_table_has_bad_fixtures_that_name_it(table: str) -> None:
    """Every bad fixture named after a table expects an error in that table (or its schema)."""
    cases = table_bad_cases(table)
    assert cases, f"no bad fixtures for [{table}]"
    for case in cases:
        expected = tomllib.loads((case / "expected.toml").read_text(encoding="utf-8"))
        assert (
            expected["field"] == table
            or expected["field"].startswith(f"{table}.")
            or (expected["error"] == "SchemaError")
        ), case.name


@pytest.mark.parametrize(
    "field",
    [f"{table}.{name}" for table in TABLES for name in SCHEMA["properties"][table]["properties"]],
)
def test_every_field_of_the_new_tables_has_a_bad_fixture(field: str) -> None:
    """Each field the contract schema declares for [run]/[retry]/[text] is refused when bad."""
    assert any(name == field or name.startswith(f"{field}.") for name in bad_fields()), (
        f"no fixture in tests/data/contracts/bad/ expects an error at {field}"
    )


def test_tables_are_optional_with_single_attempt_defaults() -> None:
    """Without the tables: 30 s, the default env allow-list, one attempt, JSON."""
    contract = load_contract(EXAMPLES / "review_status" / "contract.toml")
    assert contract.run == RunPolicy()
    assert contract.run.timeout_seconds is None
    assert time_limits(contract.run, contract.retry) == (DEFAULT_TIMEOUT, DEFAULT_BUDGET)
    assert contract.run.env == DEFAULT_NAMES
    assert dict(contract.run.exit_statuses) == {255: Mapped("UPSTREAM_UNAVAILABLE", True)}
    assert contract.retry == RetryPolicy()
    assert contract.retry.max_attempts == 1
    assert contract.adapter_kind == "json"


def test_deploy_status_run_and_retry_tables_load_as_written() -> None:
    """The example's [run] and [retry] tables become the policies they spell out."""
    contract = load_contract(EXAMPLES / "deploy_status" / "contract.toml")
    assert contract.run.timeout_seconds == 5
    assert contract.run.env == ("PATH", "HOME", "LANG", "LC_ALL")
    (document,) = contract.error_documents
    assert document.meaning == Mapped("NOT_FOUND", False)
    assert document.source == "not_found.schema.json"
    assert document.validator.is_valid({"error": "not_found"})
    assert not document.validator.is_valid({"error": "not_found", "hint": "retry"})
    assert contract.retry == RetryPolicy(
        max_attempts=3,
        budget_seconds=10,
        retry_on=frozenset({"UPSTREAM_UNAVAILABLE"}),
        initial_backoff_seconds=0.2,
        max_backoff_seconds=1,
    )


def test_env_star_inherits_and_a_list_keeps_its_prefixes() -> None:
    """`env = "*"` loads as INHERIT; a list (with a `PREFIX*` entry) loads as written."""
    good = CONTRACTS / "good"
    assert load_contract(good / "run_probe_env_inherit" / "contract.toml").run.env == INHERIT
    listed = load_contract(good / "run_probe" / "contract.toml").run.env
    assert listed == ("PATH", "PROBE_KEPT", "PROBE_UNSET", "PROBE_PREFIX_*")


def test_exit_status_mappings_merge_over_the_default() -> None:
    """Mapped exit statuses are added to the default 255 mapping, and may override it."""
    contract = load_contract(CONTRACTS / "good" / "run_exit_status" / "contract.toml")
    assert dict(contract.run.exit_statuses) == {
        255: Mapped("NOT_FOUND", False),
        75: Mapped("UPSTREAM_UNAVAILABLE", True),
    }
    assert contract.run.timeout_seconds == 2.5
    assert contract.retry.retry_on == frozenset({"UPSTREAM_UNAVAILABLE", "NOT_FOUND"})
    assert contract.retry.max_attempts == 2
    assert contract.retry.budget_seconds == 7.5


def test_text_table_loads_into_a_text_adapter() -> None:
    """disk_usage's [text] table becomes an adapter with its patterns, bounds and types."""
    contract = load_contract(EXAMPLES / "disk_usage" / "contract.toml")
    adapter = contract.adapter
    assert isinstance(adapter, TextAdapter)
    assert adapter.header is not None
    assert adapter.header.names == ()
    assert adapter.line.names == (
        "filesystem",
        "size_kb",
        "used_kb",
        "available_kb",
        "capacity_percent",
        "mount",
    )
    assert (adapter.min_lines, adapter.max_lines) == (1, 256)
    assert dict(adapter.types or {}) == dict.fromkeys(
        ("size_kb", "used_kb", "available_kb", "capacity_percent"), "integer"
    )


def test_loaded_policies_are_frozen() -> None:
    """The run policy, retry policy, text adapter and its type map cannot be changed."""
    # NOTE: AttributeError: what `dataclasses` and `toolguard.frozen` both raise.
    contract = load_contract(EXAMPLES / "disk_usage" / "contract.toml")
    with pytest.raises(AttributeError):
        contract.run.timeout_seconds = 1  # type: ignore[misc]
    with pytest.raises(AttributeError):
        contract.retry.max_attempts = 10  # type: ignore[misc]
    adapter = contract.adapter
    assert isinstance(adapter, TextAdapter)
    with pytest.raises(AttributeError):
        adapter.max_lines = 10**9  # type: ignore[misc]
    with pytest.raises(TypeError):
        adapter.types["mount"] = "integer"  # type: ignore[index]
    with pytest.raises(TypeError):
        contract.run.exit_statuses[1] = Mapped("NOT_FOUND", True)  # type: ignore[index]
