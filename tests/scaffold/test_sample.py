"""`init --from`: a sample read strictly, projected whole, with rules suggested, not guessed."""

from __future__ import annotations

import json
import os
import re
import tomllib
from pathlib import Path

import pytest
from conftest import without_waiting

from toolguard.contract.names import MAX_POINTER_LENGTH, MAX_PROJECTED
from toolguard.errors import UsageError
from toolguard.lint.contract_rules import MAX_SANE_BYTES, MAX_SANE_DEPTH
from toolguard.lint.walk import MAX_VIEWS
from toolguard.scaffold.draft import MAX_SUBSCHEMAS
from toolguard.scaffold.near_misses import MAX_BYTES_CEILING
from toolguard.scaffold.sample import SAMPLE_LIMITS, from_sample, read_sample
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


def test_suggested_rules_have_names_of_their_own() -> None:
    """Two long field names cut to one prefix still suggest rules of two names: uncommented,
    the contract loads (a rule name given twice is a contract error)."""
    stem = "a" * 60
    sample = {f"{stem}_id": "TCK-1", f"{stem}_user_id": "TCK-2", f"{stem}_team_id": "TCK-3"}
    draft = from_sample("t", json.dumps(sample).encode(), "s.json")
    names = re.findall(r'^# name = "([^"]+)"', draft.contract, re.MULTILINE)
    assert names == [
        "a" * 48 + "_matches_request",
        "a" * 46 + "_matches_request_2",
        "a" * 46 + "_matches_request_3",
    ]


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
        (
            {"k" * MAX_POINTER_LENGTH: 1},
            r"has a member named 'k{40}\.\.\. \[984 more characters\]': its pointer is over",
        ),
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


def test_a_member_holding_a_hidden_character_is_left_out_commented() -> None:
    """A newline, a tab or a zero-width space: the projection would refuse it, so not projected.

    The line stays, commented out, saying why and what to decide; the schema still holds it.
    """
    raw = (
        b'{"title": "ok", "body": "two\\nlines", "meta": {"a": "x\\u200by"}, "tag": "\\u001b[31m"}'
    )
    draft = from_sample("t", raw, "s.json")
    assert tomllib.loads(draft.contract)["projection"] == {"title": "/title"}
    assert draft.projected == ("title",)
    assert [member.pointer for member in draft.left_out] == ["/body", "/meta", "/tag"]
    lines = draft.contract.splitlines()
    assert (
        '# body = "/body"                  # decide: left out, as no field may hold U+000A at '
        "character 3 of a string; text for a person? [display_text]"
    ) in lines
    assert (
        '# meta = "/meta"                  # decide: left out, as no field may hold U+200B at '
        "character 1 of a string, 1 level in; project what you need inside it"
    ) in lines
    assert (
        '# tag = "/tag"                    # decide: left out, as no field may hold U+001B at '
        "character 0 of a string; an upstream that sends it is suspect"
    ) in lines
    assert set(draft.schema["required"]) == {"title", "body", "meta", "tag"}


def test_a_sample_with_no_member_to_project_is_refused_with_the_first_reason() -> None:
    """Every member holds a hidden character: nothing could reach the agent, so no draft."""
    with pytest.raises(UsageError, match=r"no member can be projected, as each holds") as caught:
        from_sample("t", b'{"a": "x\\ty", "b": ["\\u2028"]}', "s.json")
    assert "(/a: no field may hold U+0009 at character 1 of a string)" in str(caught.value)


def test_a_member_holding_a_number_not_as_written_is_left_out_commented() -> None:
    """A number the agent would receive as another (17 digits, at any depth): not projected.

    The projection would refuse the sample itself; the line says which number, and as what.
    """
    raw = b'{"name": "ok", "price": 0.99999999999999999, "rows": [1, 12345678901234567.0]}'
    draft = from_sample("t", raw, "s.json")
    assert tomllib.loads(draft.contract)["projection"] == {"name": "/name"}
    assert [(member.pointer, member.cause) for member in draft.left_out] == [
        ("/price", "a number the agent would receive as another"),
        ("/rows", "a number the agent would receive as another"),
    ]
    lines = draft.contract.splitlines()
    assert (
        '# price = "/price"                # decide: left out, as 0.99999999999999999 at /price '
        "would reach the agent as 1.0; ask for a string"
    ) in lines
    assert (
        '# rows = "/rows"                  # decide: left out, as 12345678901234567 at /rows/1 '
        "would reach the agent as 1.2345678901234568e+16; project what you need in it but /rows/1"
    ) in lines
    assert draft.schema["properties"]["price"]["type"] == "number"


def test_a_sample_whose_every_member_is_a_number_not_as_written_is_refused() -> None:
    """Nothing could reach the agent as sent: refused (exit 2) with the number and the docs."""
    with pytest.raises(UsageError, match=r"no member can be projected, as each holds") as caught:
        from_sample("t", b'{"a": 0.99999999999999999}', "s.json")
    assert "(/a: 0.99999999999999999 at /a would reach the agent as 1.0)" in str(caught.value)
    assert "docs/schema-engine.md#numbers" in str(caught.value)


@pytest.mark.parametrize(
    ("timestamp", "now"),
    [
        ("2026-03-14T09:30:00.9999999Z", "2026-03-14T09:31:01Z"),
        ("2016-12-31T23:59:60Z", "2017-01-01T00:01:01Z"),
        ("2026-03-14T09:30:00+05:30", "2026-03-14T09:31:01+05:30"),
        ("9999-12-31T23:59:00Z", "9999-12-31T23:59:59.999999Z"),
        ("9999-12-31T23:59:59-01:00", "9999-12-31T23:59:59.999999-01:00"),
        ("0001-01-01T00:00:00+01:00", "0001-01-01T00:01:01+01:00"),
    ],
)
def test_the_clock_is_a_minute_after_the_latest_timestamp_in_its_offset(
    timestamp: str, now: str
) -> None:
    """A leap second, a fraction past the microsecond, the edges of what a datetime holds:
    the clock is after the sample's latest instant, never a fixed one its fresh rule refuses."""
    assert from_sample("t", json.dumps({"at": timestamp}).encode(), "s.json").now == now


def test_the_subschema_bound_is_what_lint_walks() -> None:
    """A draft within MAX_SUBSCHEMAS is one lint can walk (one view per subschema)."""
    assert MAX_SUBSCHEMAS == MAX_VIEWS


def test_the_sample_bounds_are_lints_limit_ceilings() -> None:
    """A sample may be as large as TG015 lets a contract read, and one level shallower (the
    drafted limits keep a level to spare), so a drafted contract passes its own lint."""
    assert MAX_BYTES_CEILING == SAMPLE_LIMITS.max_bytes == MAX_SANE_BYTES
    assert SAMPLE_LIMITS.max_depth == MAX_SANE_DEPTH - 1


@pytest.mark.parametrize(
    "sample",
    [
        {"m": {f"k{n}": n for n in range(MAX_SUBSCHEMAS - 1)}},
        {"rows": [{f"k{n}": n} for n in range(MAX_SUBSCHEMAS - 1)]},
    ],
    ids=["a wide object", "objects each with another member"],
)
def test_a_sample_whose_schema_lint_could_not_walk_is_a_usage_error(
    sample: dict[str, object],
) -> None:
    """Over MAX_SUBSCHEMAS subschemas: refused (exit 2) with the count, before any compile."""
    with pytest.raises(UsageError, match=r"^--from s\.json has too many shapes to draft from: "):
        from_sample("t", json.dumps(sample).encode(), "s.json")


def _sample_of(size: int) -> bytes:
    """An array of short strings, `size` bytes long (each string's maxLength drafts as 256)."""
    rows = (size - 20) // 104
    shorter = len(json.dumps({"rows": ["x" * 100] * rows + [""]}))
    return json.dumps({"rows": ["x" * 100] * rows + ["y" * (size - shorter)]}).encode()


def test_limits_at_lints_byte_ceiling_are_drafted_and_one_sample_byte_more_is_refused() -> None:
    """max_bytes at exactly 1 MiB (lint TG015's ceiling) is a draft; over it, exit 2 with why."""
    at_ceiling = from_sample("t", _sample_of(522_752), "s.json")
    assert at_ceiling.limits.max_bytes == MAX_BYTES_CEILING
    with pytest.raises(UsageError, match=r"^--from s\.json is too large to draft from: its "):
        from_sample("t", _sample_of(522_753), "s.json")


def test_a_sample_over_the_byte_budget_is_refused_as_a_dump(tmp_path: Path) -> None:
    """1 MiB is read; one byte more is exit 2, naming the sample and the budget."""
    sample = tmp_path / "dump.json"
    sample.write_bytes(b" " * SAMPLE_LIMITS.max_bytes)
    assert len(read_sample(sample)) == SAMPLE_LIMITS.max_bytes
    sample.write_bytes(b" " * (SAMPLE_LIMITS.max_bytes + 1))
    with pytest.raises(UsageError, match=rf"^--from {re.escape(str(sample))} is over 1048576 "):
        read_sample(sample)


@pytest.mark.parametrize(
    ("member", "suggested"),
    [
        ('"id": "TCK-1"', True),
        ('"ID": 7', True),
        ('"user_id": 7', True),
        ('"ticketId": "TCK-1"', True),
        ('"ticketID": "TCK-1"', True),
        ('"user_id": true', False),  # a boolean names nothing
        ('"user_id": 1.5', False),
        ('"user_id": "two words"', False),  # not identifier-like
        ('"idea": "x"', False),
        ('"paid": 7', False),
    ],
)
def test_a_request_match_is_suggested_only_for_an_identifier_named_as_one(
    member: str, suggested: bool
) -> None:
    """`id`, `*_id`, `*Id`, `*ID` holding an integer or an identifier-like string: a rule."""
    draft = from_sample("t", b'{"title": "x", %s}' % member.encode(), "s.json")
    assert ('# kind = "equals_context"' in draft.contract) is suggested


def test_a_member_whose_name_has_no_letter_or_digit_is_projected_as_field() -> None:
    """A name of punctuation alone still gets a projection name the contract allows."""
    draft = from_sample("t", b'{"***": 1, "---": 2}', "s.json")
    assert tomllib.loads(draft.contract)["projection"] == {"field": "/***", "field_2": "/---"}


def test_long_names_cut_alike_are_numbered_within_the_length_bound() -> None:
    """Two names alike in their first 64 characters: the second is numbered, still 64 long."""
    first, second = "a" * 70 + "_x", "a" * 70 + "_y"
    draft = from_sample("t", json.dumps({first: 1, second: 2}).encode(), "s.json")
    assert tomllib.loads(draft.contract)["projection"] == {
        "a" * 64: f"/{first}",
        "a" * 62 + "_2": f"/{second}",
    }
