"""`ErrorCode` is the one list of agent-facing codes: every schema that names codes agrees."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from toolguard import load_contract
from toolguard.errors import ERROR_CODES, LAYERS, ExitStatus, Rejection, ToolguardError
from toolguard.shipped import shipped_schema

REPO = Path(__file__).resolve().parents[1]


def _shipped(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(shipped_schema(name).read_text(encoding="utf-8"))
    return loaded


def test_the_contract_schema_allows_exactly_the_error_codes() -> None:
    """`[run]` mappings and `retry_on` can name every code, and nothing else."""
    assert _shipped("contract.schema.json")["$defs"]["error_code"]["enum"] == list(ERROR_CODES)


def test_the_audit_record_schema_allows_exactly_the_error_codes_and_layers() -> None:
    """A record's code and layer come from the same lists as the envelope's."""
    definitions = _shipped("audit-record.schema.json")["$defs"]
    assert definitions["error_code"]["enum"] == list(ERROR_CODES)
    assert definitions["layer"]["enum"] == list(LAYERS)


@pytest.mark.parametrize("example", sorted(p.name for p in (REPO / "examples").iterdir()))
def test_every_envelope_schema_allows_exactly_the_error_codes(example: str) -> None:
    """The failure branch of each contract's envelope schema lists every code, in order."""
    schema = load_contract(REPO / "examples" / example / "contract.toml").envelope_schema
    failure = next(branch for branch in schema["oneOf"] if branch["title"] == "Failure result")
    assert failure["properties"]["error"]["properties"]["code"]["enum"] == list(ERROR_CODES)


def test_bad_request_is_not_an_agent_facing_code() -> None:
    """serve's BAD_REQUEST belongs to its protocol, never to an envelope."""
    assert "BAD_REQUEST" not in ERROR_CODES


def test_every_rejection_class_names_a_listed_code_and_layer() -> None:
    """A rejection can only ever become a listed code at a listed layer, exiting 1."""
    classes = list(Rejection.__subclasses__())
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        assert cls.code in ERROR_CODES
        assert cls.layer in LAYERS
        assert cls.exit_status == ExitStatus.FAILURE


def test_every_invocation_error_exits_with_a_listed_status() -> None:
    """Usage, contract and internal errors map to statuses in the exit-status table."""
    classes = list(ToolguardError.__subclasses__())
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        assert cls.exit_status in set(ExitStatus)


def test_exit_statuses_read_as_the_enum_they_replace() -> None:
    """Each status is an int with a name; the class lists them in order, each value once.

    (Which statuses, in which order, is the README's table: `test_readme.py` holds them.)
    """
    statuses = list(ExitStatus)
    assert [status.name for status in statuses] == [
        name for name in vars(ExitStatus)["__annotations__"] if name.isupper()
    ]
    assert all(getattr(ExitStatus, status.name) is status for status in statuses)
    assert all(isinstance(status, ExitStatus) and isinstance(status, int) for status in statuses)
    assert len({int(status) for status in statuses}) == len(statuses)
    assert sorted(statuses) == statuses
    assert str(ExitStatus.INTERRUPTED) == f"{ExitStatus.INTERRUPTED}" == "130"
    assert repr(ExitStatus.USAGE) == "<ExitStatus.USAGE: 2>"
    assert hash(ExitStatus.CONTRACT) == hash(3)
