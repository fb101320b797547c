"""Requests: ids, context and `now` are validated up front and fail as UsageError."""

from __future__ import annotations

import os
import re
from datetime import UTC, date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from conftest import without_waiting
from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard import UsageError
from toolguard.request import (
    CONTEXT_KEY_PATTERN,
    REQUEST_ID_PATTERN,
    is_context_key,
    is_request_id,
    make_request,
    new_request_id,
    parse_context_json,
    parse_context_pairs,
    read_context_file,
)

VALID_IDS = [
    "a" * 8,
    "Z" * 64,
    "0" + "1" * 7,
    "req.1234",
    "req_2026.03.14_abc",
    "A.b_C.d_E",
]
INVALID_IDS = [
    "a" * 7,
    "a" * 65,
    "",
    ".req1234",
    "_req1234",
    "req-1234",
    "req 1234",
    "req/1234",
    "req.1234\n",
    "\nreq.1234",
    "req.1234 ",
    "r\u00e9q.12345",
    "req.\u0661\u0662\u0663\u0664",
    "req.\uff11234567",
    "req.1234\x00",
]


@pytest.mark.parametrize("request_id", VALID_IDS)
def test_valid_request_ids_are_kept(request_id: str) -> None:
    """An id of 8-64 ASCII letters, digits, '_' and '.' (not leading) is accepted as given."""
    assert make_request(request_id).request_id == request_id


@pytest.mark.parametrize("request_id", INVALID_IDS, ids=repr)
def test_invalid_request_ids_are_usage_errors(request_id: str) -> None:
    """Ids that are too short/long, start with punctuation, or hold other characters are refused."""
    with pytest.raises(UsageError):
        make_request(request_id)


@pytest.mark.parametrize("request_id", [12345678, b"req.12345", ["req.12345"]], ids=repr)
def test_non_string_request_ids_are_usage_errors(request_id: Any) -> None:
    """A request id that is not a str is a UsageError, not a TypeError."""
    with pytest.raises(UsageError):
        make_request(request_id)


def test_generated_ids_match_the_pattern_and_differ() -> None:
    """Generated ids match the envelope's request_id pattern and are not repeated."""
    ids = [new_request_id() for _ in range(200)]
    assert all(re.fullmatch(REQUEST_ID_PATTERN, request_id) for request_id in ids)
    assert len(set(ids)) == len(ids)


def test_missing_request_id_is_generated() -> None:
    """make_request without an id generates a valid one per call."""
    first, second = make_request().request_id, make_request().request_id
    assert re.fullmatch(REQUEST_ID_PATTERN, first)
    assert first != second


# context ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "context",
    [
        {},
        {"project_id": "bluebird"},
        {"_private": 1, "Key9": 2.5, "flag": True, "none": None},
        {"runs": ["a", "b"], "mixed": [1, "x", False]},
        {"k" * 64: "long key"},
    ],
    ids=repr,
)
def test_valid_context_is_kept(context: dict[str, Any]) -> None:
    """Valid names with scalar or list-of-scalar values are kept unchanged."""
    assert dict(make_request(context=context).context) == context


@pytest.mark.parametrize(
    "key", ["", "9lives", "project-id", "project id", "k" * 65, "caf\u00e9", "a\n", 1], ids=repr
)
def test_invalid_context_keys_are_usage_errors(key: Any) -> None:
    """A context key must be an identifier of 1-64 ASCII characters."""
    with pytest.raises(UsageError):
        make_request(context={key: "v"})


@pytest.mark.parametrize(
    "value", [{"nested": "object"}, [["nested"]], [{"a": 1}], ("t", "u"), b"bytes", object()]
)
def test_invalid_context_values_are_usage_errors(value: Any) -> None:
    """A context value must be a scalar or a flat list of scalars."""
    with pytest.raises(UsageError):
        make_request(context={"key": value})


@pytest.mark.parametrize("context", ["project_id=bluebird", [("project_id", "bluebird")]], ids=repr)
def test_context_that_is_not_a_mapping_is_a_usage_error(context: Any) -> None:
    """A context that is not a mapping of names to values is a UsageError."""
    with pytest.raises(UsageError):
        make_request(context=context)


def test_context_is_read_only() -> None:
    """The request context cannot be edited after validation."""
    request = make_request(context={"project_id": "bluebird"})
    with pytest.raises(TypeError):
        request.context["project_id"] = "redwing"  # type: ignore[index]


def test_context_is_decoupled_from_the_caller_dict() -> None:
    """Changing the caller's dict after make_request does not change the request."""
    context = {"project_id": "bluebird"}
    request = make_request(context=context)
    context["project_id"] = "redwing"
    assert request.context["project_id"] == "bluebird"


# parse_context_pairs ----------------------------------------------------------------------


def test_parse_context_pairs_reads_key_value() -> None:
    """K=V flags become string values; only the first '=' separates."""
    assert parse_context_pairs(("project_id=bluebird", "query=a=b", "empty="), {}) == {
        "project_id": "bluebird",
        "query": "a=b",
        "empty": "",
    }


def test_parse_context_pairs_merges_with_the_file() -> None:
    """Flags are added to the file's values, which keep their JSON types."""
    merged = parse_context_pairs(("env=staging",), {"runs": ["a"]})
    assert merged == {"runs": ["a"], "env": "staging"}


@pytest.mark.parametrize("pair", ["project_id", "", "project_id:bluebird"])
def test_parse_context_pairs_requires_an_equals_sign(pair: str) -> None:
    """A flag without '=' is a UsageError."""
    with pytest.raises(UsageError):
        parse_context_pairs((pair,), {})


def test_parse_context_pairs_rejects_repeated_flags() -> None:
    """The same key given twice on the command line is a UsageError, not last-wins."""
    with pytest.raises(UsageError):
        parse_context_pairs(("env=staging", "env=production"), {})


def test_parse_context_pairs_rejects_a_flag_shadowing_the_file() -> None:
    """A flag repeating a key from the context file is a UsageError, not an override."""
    with pytest.raises(UsageError):
        parse_context_pairs(("env=production",), {"env": "staging"})


def test_parse_context_pairs_does_not_mutate_the_file_context() -> None:
    """Merging returns a new dict and leaves the file's dict as it was."""
    file_context = {"env": "staging"}
    parse_context_pairs(("project=x",), file_context)
    assert file_context == {"env": "staging"}


# parse_context_json -----------------------------------------------------------------------


def test_parse_context_json_keeps_json_types() -> None:
    """K=JSON flags become typed values: numbers, booleans, null, lists, strings."""
    pairs = ("n=42", "ok=true", "none=null", "ids=[1, 2]", 'name="CR-1"', "x=1.5")
    assert parse_context_json(pairs, {}) == {
        "n": 42,
        "ok": True,
        "none": None,
        "ids": [1, 2],
        "name": "CR-1",
        "x": 1.5,
    }


@pytest.mark.parametrize("pair", ["n=CR-1", "n=", "n=01", "n=[1,]", 'n={"a": 1, "a": 2}', "n"])
def test_parse_context_json_refuses_what_is_not_strict_json(pair: str) -> None:
    """A bare word, nothing, a leading zero, a trailing comma or a duplicate key: UsageError."""
    with pytest.raises(UsageError):
        parse_context_json((pair,), {})


def test_parse_context_json_refuses_a_key_the_file_gave() -> None:
    """A typed flag repeating a context-file key is a UsageError, like `--context`."""
    with pytest.raises(UsageError):
        parse_context_json(("n=1",), {"n": 2})


# read_context_file ------------------------------------------------------------------------


def test_read_context_file_reads_an_object(tmp_path: Path) -> None:
    """A strict JSON object is returned as a dict."""
    path = tmp_path / "context.json"
    path.write_bytes(b'{"project_id": "bluebird", "runs": ["a", "b"], "n": 1.5}')
    assert read_context_file(path) == {"project_id": "bluebird", "runs": ["a", "b"], "n": 1.5}


@pytest.mark.parametrize(
    "content",
    [
        b'{"env": "staging", "env": "production"}',
        b'{"env": "staging"} {"env": "production"}',
        b'{"env": "staging",}',
        b'\xef\xbb\xbf{"env": "staging"}',
        b'{"env": NaN}',
        b"",
        b'["env", "staging"]',
        b'"staging"',
        b"null",
    ],
    ids=[
        "duplicate-key",
        "two-documents",
        "trailing-comma",
        "bom",
        "nan",
        "empty",
        "array",
        "string",
        "null",
    ],
)
def test_read_context_file_is_strict(tmp_path: Path, content: bytes) -> None:
    """Duplicates, non-JSON and non-objects are UsageErrors naming the file."""
    path = tmp_path / "context.json"
    path.write_bytes(content)
    with pytest.raises(UsageError, match=r"context\.json"):
        read_context_file(path)


def test_read_context_file_missing_is_a_usage_error(tmp_path: Path) -> None:
    """An unreadable context file is a UsageError, not an OSError."""
    with pytest.raises(UsageError):
        read_context_file(tmp_path / "absent.json")


# now --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("now", "expected"),
    [
        ("2026-03-14T09:30:00Z", datetime(2026, 3, 14, 9, 30, tzinfo=UTC)),
        ("2026-03-14T10:30:00+01:00", datetime(2026, 3, 14, 9, 30, tzinfo=UTC)),
        ("2026-03-14T09:30:00.5Z", datetime(2026, 3, 14, 9, 30, 0, 500_000, tzinfo=UTC)),
        (
            datetime(2026, 3, 14, 9, 30, tzinfo=timezone(timedelta(hours=-5))),
            datetime(2026, 3, 14, 14, 30, tzinfo=UTC),
        ),
    ],
    ids=repr,
)
def test_now_is_parsed_to_an_aware_instant(now: Any, expected: datetime) -> None:
    """`now` as RFC 3339 text or an aware datetime becomes that instant, used by the clock."""
    request = make_request(now=now)
    assert request.now == expected
    assert request.clock() == expected


def test_without_now_the_clock_is_real_and_aware() -> None:
    """Without `now`, the request's clock is an aware current time."""
    instant = make_request().clock()
    assert instant.tzinfo is not None
    assert instant.utcoffset() == timedelta(0)


def test_naive_datetime_now_is_a_usage_error() -> None:
    """A naive datetime for `now` is refused: freshness needs a real instant."""
    with pytest.raises(UsageError):
        make_request(now=datetime(2026, 3, 14, 9, 30))


@pytest.mark.parametrize(
    "now",
    [
        "2026-03-14T09:30:00",
        "2026-03-14",
        "2026-02-30T09:30:00Z",
        "now",
        "",
        "1773480600",
        "2026-03-14T09:30:00Z\n",
    ],
    ids=repr,
)
def test_invalid_now_string_is_a_usage_error(now: str) -> None:
    """`now` text that is not an RFC 3339 date-time with an offset is refused."""
    with pytest.raises(UsageError):
        make_request(now=now)


@pytest.mark.parametrize("now", [1773480600, 1773480600.0, date(2026, 3, 14)], ids=repr)
def test_now_of_another_type_is_a_usage_error(now: Any) -> None:
    """`now` that is neither text nor a datetime is a UsageError, not a TypeError."""
    with pytest.raises(UsageError):
        make_request(now=now)


_ID_TEXT = st.text(
    st.sampled_from("aZ09_.-é\u0661\uff21 ") | st.characters(), min_size=0, max_size=70
) | st.from_regex(re.compile(REQUEST_ID_PATTERN), fullmatch=True)
_KEY_TEXT = st.text(
    st.sampled_from("aZ09_.-é\u0661\uff21 ") | st.characters(), min_size=0, max_size=70
) | st.from_regex(re.compile(CONTEXT_KEY_PATTERN), fullmatch=True)


@settings(max_examples=500, deadline=None)
@given(_ID_TEXT, _KEY_TEXT)
def test_names_are_read_exactly_as_their_patterns_say(request_id: str, key: str) -> None:
    """`is_request_id` and `is_context_key` (string methods) accept exactly their patterns."""
    assert is_request_id(request_id) is bool(re.fullmatch(REQUEST_ID_PATTERN, request_id))
    assert is_context_key(key) is bool(re.fullmatch(CONTEXT_KEY_PATTERN, key))
    for text in ("a" * 7, "a" * 8, "a" * 64, "a" * 65, "_" + "a" * 7, "a.b_c.d0"):
        assert is_request_id(text) is bool(re.fullmatch(REQUEST_ID_PATTERN, text))
        assert is_context_key(text) is bool(re.fullmatch(CONTEXT_KEY_PATTERN, text))


@pytest.mark.parametrize(
    "now", ["2026-03-14T09:28:00.0000001Z", "2026-03-14T09:28:00.1234569+01:00"]
)
def test_a_now_finer_than_a_microsecond_is_a_usage_error(now: str) -> None:
    """Truncated, it could let an answer a fraction of a microsecond too old pass: refused."""
    with pytest.raises(UsageError, match="finer than a microsecond"):
        make_request(now=now)


@pytest.mark.parametrize(
    ("now", "micro"),
    [("2026-03-14T09:28:00.123456Z", 123456), ("2026-03-14T09:28:00.1234560000Z", 123456)],
)
def test_a_now_to_the_microsecond_is_kept_exactly(now: str, micro: int) -> None:
    request = make_request(now=now)
    assert request.now is not None
    assert request.now.microsecond == micro


def test_a_context_file_that_is_a_named_pipe_nobody_writes_to_is_refused_at_once(
    tmp_path: Path,
) -> None:
    """A FIFO context file is opened without waiting for a writer: with none, it is empty."""
    fifo = tmp_path / "context.fifo"
    os.mkfifo(fifo, 0o600)
    refused = without_waiting(lambda: read_context_file(fifo))
    assert isinstance(refused, UsageError)
    assert "context.fifo" in str(refused)
