"""`init --from`: a sample read strictly, projected whole, with rules suggested, not guessed."""

from __future__ import annotations

import tomllib

import pytest

from toolguard.errors import UsageError
from toolguard.scaffold.sample import from_sample


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
