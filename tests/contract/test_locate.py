"""JSON Pointer -> line (and column) in TOML contracts and JSON schemas."""

from __future__ import annotations

import tomllib

from hypothesis import given, settings
from hypothesis import strategies as st

from toolguard.contract.locate import json_lines, line_of, position_of, toml_lines, toml_positions

# What TOML lets a comment or a string hold that `str.splitlines` takes for a line break.
NOT_NEWLINES = ("\x85", "\u2028", "\u2029")


def test_json_lines_place_members_on_their_name() -> None:
    """Each member's pointer maps to the line of its name, array items to their own line."""
    text = '{\n  "a": {\n    "b~/": [\n      1,\n      "x"\n    ]\n  }\n}\n'
    lines = json_lines(text)
    assert lines["/a"] == 2
    assert lines["/a/b~0~1"] == 3
    assert lines["/a/b~0~1/1"] == 5
    assert line_of(lines, "/a/missing/deeper") == 2


def test_toml_lines_count_arrays_of_tables() -> None:
    """Tables, keys and [[arrays]] (numbered from 0) map to their lines."""
    text = 'tool = "x"\n[limits]\nmax_bytes = 1\n[[rules]]\nname = "a"\n[[rules]]\nname = "b"\n'
    lines = toml_lines(text)
    assert (lines["/tool"], lines["/limits/max_bytes"]) == (1, 3)
    assert (lines["/rules/0"], lines["/rules/1/name"]) == (4, 7)
    assert line_of(lines, "/limits/max_depth") == 2


def test_toml_lines_place_a_subtable_of_an_array_of_tables() -> None:
    """`[rules.claims]` after the second `[[rules]]` is /rules/1/claims, on its own lines."""
    lines = toml_lines('[[rules]]\nname = "a"\n[[rules]]\nname = "b"\n[rules.claims]\nsub = "/x"\n')
    assert (lines["/rules/1/claims"], lines["/rules/1/claims/sub"]) == (5, 6)


def test_toml_positions_give_the_column_of_each_key_and_header() -> None:
    """A key indented by two spaces is at column 3; a header at the column of its bracket."""
    positions = toml_positions('tool = "x"\n  [[rules]]\n  pointr = "/a"\n')
    assert positions["/tool"] == (1, 1)
    assert positions["/rules/0"] == (2, 3)
    assert positions["/rules/0/pointr"] == (3, 3)
    assert position_of(positions, "/rules/0/pointr/deeper") == (3, 3)
    assert position_of(positions, "/absent") == (1, 1)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.text(st.sampled_from([*NOT_NEWLINES, "x", " "]), max_size=4),
            st.sampled_from(["\n", "\r\n"]),
            st.booleans(),
        ),
        min_size=1,
        max_size=8,
    )
)
def test_toml_lines_count_only_what_toml_counts(lines: list[tuple[str, str, bool]]) -> None:
    """Lines end at LF (or CRLF) alone: no other character in a comment or string moves a key."""
    text = "".join(
        f'k{number} = "{odd}"{end}' if quoted else f"k{number} = 1 # {odd}{end}"
        for number, (odd, end, quoted) in enumerate(lines)
    )
    assert len(tomllib.loads(text)) == len(lines)
    positions = toml_positions(text)
    assert [positions[f"/k{number}"] for number in range(len(lines))] == [
        (number, 1) for number in range(1, len(lines) + 1)
    ]
