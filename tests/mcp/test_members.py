"""members.py: byte spans in a strictly parsed line, and an unreadable line's leading members."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from strategies import escape_every_character, json_strings, json_values

from toolguard.limits import Limits
from toolguard.mcp.members import AMBIGUOUS, CONTAINER, leading_members, span, without
from toolguard.parse import parse

LIMITS = Limits(max_depth=128)
SPACES = st.sampled_from(["", " ", "\n", "\t ", " \r\n "])


@st.composite
def spaced_objects(draw: st.DrawFn) -> tuple[bytes, dict[str, Any]]:
    """A JSON object written with arbitrary whitespace and escaped names: its text and value."""
    value = draw(st.dictionaries(json_strings(), json_values(max_depth=3), max_size=5))
    parts = []
    for name, item in value.items():
        key = draw(st.sampled_from([escape_every_character, json.dumps, _as_utf8]))(name)
        gap = [draw(SPACES) for _ in range(3)]
        text = draw(st.sampled_from([json.dumps, _as_utf8]))(item)
        parts.append(f"{gap[0]}{key}{gap[1]}:{gap[2]}{text}{draw(SPACES)}")
    return ("{" + ",".join(parts) + "}").encode("utf-8", "surrogatepass"), value


def _as_utf8(value: Any) -> str:
    """JSON text with characters beyond ASCII as themselves (UTF-8 in the line), where valid."""
    text = json.dumps(value, ensure_ascii=False)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate: only an escape can carry it
        return json.dumps(value)
    return text


@given(spaced_objects())
def test_every_member_span_holds_exactly_its_value(case: tuple[bytes, dict[str, Any]]) -> None:
    """Whatever the spacing, escaping or raw UTF-8, each span parses back to the member's value."""
    line, value = case
    assert parse(line, LIMITS) == value
    for name, item in value.items():
        where = span(line, (name,))
        assert where is not None
        assert parse(line[where[0] : where[1]], LIMITS) == item


@given(spaced_objects(), st.data())
def test_without_drops_the_named_members_and_keeps_every_other_byte(
    case: tuple[bytes, dict[str, Any]], data: st.DataObject
) -> None:
    """The object at the path loses exactly the named members; the bytes around it stay."""
    inner, value = case
    names = frozenset(data.draw(st.sets(st.sampled_from([*value, "absent"]))))
    line = b'{"id" : -0,"params":{"capabilities":' + inner + b' ,"z":1}}'
    got = without(line, ("params", "capabilities"), names)
    start, end = span(got, ("params", "capabilities")) or (0, 0)
    assert got[:start] == b'{"id" : -0,"params":{"capabilities":'
    assert got[end:] == b' ,"z":1}}'
    kept = {name: item for name, item in value.items() if name not in names}
    assert parse(got[start:end], LIMITS) == kept


def test_without_leaves_a_line_with_no_object_at_the_path_as_it_is() -> None:
    """No such member, or not an object there: the line as it came."""
    for line in (b'{"params":{}}', b'{"params":{"capabilities":[{"sampling":{}}]}}'):
        assert without(line, ("params", "capabilities"), frozenset({"sampling"})) == line


def test_span_finds_a_nested_member_past_strings_that_look_like_structure() -> None:
    """Brackets, quotes and braces inside strings do not end a value early."""
    line = (
        b'{"jsonrpc":"2.0","id":3,"result":{"content":'
        b'[{"text":"{\\"a\\": [1, \\"]\\"]}","type":"text"}],'
        b'"structuredContent" : {"a" : [1, "]}\\\\"]} ,"isError":false}}'
    )
    start, end = span(line, ("result", "structuredContent")) or (0, 0)
    assert line[start:end] == b'{"a" : [1, "]}\\\\"]}'


def test_span_is_none_for_a_missing_member() -> None:
    """No such member: None."""
    assert span(b'{"result":{"content":[]}}', ("result", "structuredContent")) is None


def test_leading_members_reads_the_members_before_the_failure() -> None:
    """The id before a NaN is established; members after the failure are not."""
    line = b'{"jsonrpc":"2.0","id":7,"result":{"structuredContent":{"n":NaN}},"x":1}'
    assert leading_members(line, LIMITS) == {"jsonrpc": "2.0", "id": 7}
    complete = b'{"jsonrpc":"2.0","id":7,"result":{"n":1},"x":NaN}'
    assert leading_members(complete, LIMITS) == {"jsonrpc": "2.0", "id": 7, "result": CONTAINER}


def test_an_id_after_the_failure_is_not_established() -> None:
    """The id is written after the result: nothing is known of it."""
    assert "id" not in leading_members(b'{"result":{"n":NaN},"jsonrpc":"2.0","id":7}', LIMITS)


def test_a_value_cut_off_by_the_failure_is_not_established() -> None:
    """`"id":12` then garbage: 12 might have gone on (`123`), so the id is unknown."""
    assert "id" not in leading_members(b'{"id":12x}', LIMITS)
    assert "id" not in leading_members(b'{"id":12', LIMITS)


def test_a_value_not_followed_by_a_comma_or_brace_is_not_established() -> None:
    """A complete string the failure (or the cut) follows: a member counts only once ended."""
    assert "id" not in leading_members(b'{"id":"abc" x}', LIMITS)
    assert "id" not in leading_members(b'{"id":"abc"', LIMITS)
    assert leading_members(b'{"id":"abc" ,x}', LIMITS) == {"id": "abc"}


def test_a_name_read_twice_is_ambiguous() -> None:
    """Two top-level ids: neither is believed."""
    assert leading_members(b'{"id":1,"id":2,"result":{}}', LIMITS)["id"] is AMBIGUOUS


def test_a_duplicate_deeper_down_leaves_the_id_established() -> None:
    """A duplicate inside the result is not the id's business."""
    line = b'{"jsonrpc":"2.0","id":"a\\u0041","result":{"n":1,"n":2}}'
    assert leading_members(line, LIMITS)["id"] == "aA"


def test_an_over_long_prefix_still_gives_its_id() -> None:
    """The first bytes of a line cut at the byte cap establish the id read before the cut."""
    line = b'{"jsonrpc":"2.0","id":5,"result":{"structuredContent":"' + b"x" * 100
    assert leading_members(line, LIMITS)["id"] == 5


def test_not_an_object_has_no_members() -> None:
    """A banner, an empty line, an array: nothing."""
    for line in (b"Server ready", b"", b"[1,2]", b"  "):
        assert leading_members(line, LIMITS) == {}
