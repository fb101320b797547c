"""`init --from`: a sample read strictly, projected whole, with rules suggested, not guessed."""

from __future__ import annotations

import json
import os
import tomllib
from pathlib import Path

import pytest
from conftest import without_waiting

from toolguard.contract.names import MAX_POINTER_LENGTH, MAX_PROJECTED
from toolguard.errors import UsageError
from toolguard.scaffold.sample import from_sample, read_sample
from toolguard.shipped import shipped_schema


def test_every_member_is_projected_under_a_name_the_contract_allows() -> None:
    """camelCase, spaces, accents, digits and the reserved name all become snake_case names."""
    raw = (
        b'{"ticketId": 1, "due date": 2, "caf\\u00e9": 3, "9lives": 4, "a b": 5, "a-b": 6, '
        b'"untrusted_display_text": 7}'
    )
    draft = from_sample("t", raw, "s.json")
    projection = tomllib.loads(draft.contract)["projection"]
    assert projection == {
        "ticket_id": "/ticketId",
        "due_date": "/due date",
        "cafe": "/café",
        "field_9lives": "/9lives",
        "a_b": "/a b",
        "a_b_2": "/a-b",
        "display_text_field": "/untrusted_display_text",
    }


def test_rules_are_suggested_commented_out() -> None:
    """A timestamp gets a `fresh` rule, an identifier a request match: both to decide."""
    draft = from_sample("t", b'{"id": "TCK-1", "at": "2026-03-14T09:30:00Z"}', "s.json")
    assert "rules" not in tomllib.loads(draft.contract)
    assert '# kind = "equals_context"' in draft.contract
    assert '# kind = "fresh"' in draft.contract
    assert draft.now == "2026-03-14T09:31:01Z"


def test_the_clock_is_fixed_without_a_timestamp() -> None:
    """No timestamp in the sample: fixtures still never depend on the day they run."""
    assert from_sample("t", b'{"a": 1}', "s.json").now == "2026-01-01T00:00:00Z"


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b'{"a": 1} {"b": 2}', r"is not an answer toolguard could accept \(parse, trailing_data\)"),
        (b'{"a": NaN}', r"\(parse, non_finite_number\)"),
        (b"[1, 2]", "is an array: a contract projects named members"),
        (b"{}", "is an empty object"),
        (b"null", "is a null"),
        (b'{"": 1}', 'its only member is named ""'),
    ],
)
def test_a_sample_toolguard_would_refuse_is_refused(raw: bytes, message: str) -> None:
    """A sample is a response like any other: never repaired, never guessed around."""
    with pytest.raises(UsageError, match=message):
        from_sample("t", raw, "s.json")


def test_the_bounds_checked_are_the_contract_schemas() -> None:
    """MAX_PROJECTED and MAX_POINTER_LENGTH are what contract.schema.json says."""
    schema = json.loads(shipped_schema("contract.schema.json").read_text(encoding="utf-8"))
    assert schema["properties"]["projection"]["maxProperties"] == MAX_PROJECTED
    assert schema["$defs"]["pointer"]["maxLength"] == MAX_POINTER_LENGTH


@pytest.mark.parametrize(
    ("sample", "message"),
    [
        (
            {f"m{n}": n for n in range(MAX_PROJECTED + 1)},
            rf"has {MAX_PROJECTED + 1} members, and a contract projects at most {MAX_PROJECTED}",
        ),
        ({"k" * MAX_POINTER_LENGTH: 1}, r"has a member named .kkk.*: its pointer is over the 1024"),
        (
            {"~" * 600: 1},
            r"has a member named .~~~.*: its pointer is over",
        ),  # each ~ is escaped as ~0
    ],
    ids=["too many members", "too long a name", "too long once escaped"],
)
def test_a_sample_the_contract_schema_cannot_project_is_a_usage_error(
    sample: dict[str, int], message: str
) -> None:
    """Each bound the drafted projection would break is named, with the sample, before drafting."""
    with pytest.raises(UsageError, match=rf"^--from s\.json {message}") as caught:
        from_sample("t", json.dumps(sample).encode(), "s.json")
    assert "toolguard-init-" not in str(caught.value)


def test_a_sample_at_the_bounds_is_drafted() -> None:
    """256 members, and a pointer of exactly 1024 characters, are still projected."""
    names = [f"m{n}" for n in range(MAX_PROJECTED - 1)] + ["k" * (MAX_POINTER_LENGTH - 1)]
    draft = from_sample("t", json.dumps(dict.fromkeys(names, 1)).encode(), "s.json")
    assert len(tomllib.loads(draft.contract)["projection"]) == MAX_PROJECTED


def test_a_sample_that_is_a_named_pipe_nobody_writes_to_is_read_at_once(tmp_path: Path) -> None:
    """`--from FIFO` is a data file: with no writer it reads as empty, never waited on."""
    fifo = tmp_path / "sample.fifo"
    os.mkfifo(fifo, 0o600)
    assert without_waiting(lambda: read_sample(fifo)) == b""
