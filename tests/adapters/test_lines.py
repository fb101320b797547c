"""The strict text adapter: whole lines that match -> one JSON document; anything else rejected."""

from __future__ import annotations

import re
from decimal import Decimal
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from hypothesis import Phase, find, given, settings
from hypothesis import strategies as st

from toolguard import load_contract
from toolguard.adapters.lines import LinePattern, TextAdapter
from toolguard.errors import ContractError, LimitExceeded, ParseError, Rejection
from toolguard.frozen import replace
from toolguard.limits import Limits
from toolguard.number import ExactFloat
from toolguard.pipeline import check

if TYPE_CHECKING:
    from toolguard.adapters.lines import GroupType  # a type alias for type checkers only

ROOT = Path(__file__).resolve().parents[2]
DISK_USAGE = ROOT / "examples" / "disk_usage"
LIMITS = Limits()
INT64_MAX = 2**63 - 1

DF_HEADER = "^Filesystem +1024-blocks +Used +Available +Capacity +Mounted on$"
DF_LINE = (
    "^(?<filesystem>[^ ]+) +(?<size_kb>[0-9]+) +(?<used_kb>[0-9]+) +(?<available_kb>[0-9]+)"
    " +(?<capacity_percent>[0-9]{1,3})% +(?<mount>/.*)$"
)
DF_TYPES: dict[str, GroupType] = {
    "size_kb": "integer",
    "used_kb": "integer",
    "available_kb": "integer",
    "capacity_percent": "integer",
}
DF_TEXT = (
    b"Filesystem     1024-blocks     Used Available Capacity Mounted on\n"
    b"/dev/vda         264212084 23681792  82709120      23% /\n"
    b"tmpfs             24683584        0  24683584       0% /dev/shm\n"
)
DF_RECORDS = [
    {
        "filesystem": "/dev/vda",
        "size_kb": 264212084,
        "used_kb": 23681792,
        "available_kb": 82709120,
        "capacity_percent": 23,
        "mount": "/",
    },
    {
        "filesystem": "tmpfs",
        "size_kb": 24683584,
        "used_kb": 0,
        "available_kb": 24683584,
        "capacity_percent": 0,
        "mount": "/dev/shm",
    },
]


def adapter(
    line: str,
    header: str | None = None,
    types: dict[str, GroupType] | None = None,
    min_lines: int = 1,
    max_lines: int = 1000,
) -> TextAdapter:
    return TextAdapter(
        LinePattern.compile(line, "text.line"),
        LinePattern.compile(header, "text.header") if header else None,
        types,
        min_lines,
        max_lines,
    )


DF = adapter(DF_LINE, DF_HEADER, DF_TYPES)
VALUE = adapter("^(?<key>[a-z]+)=(?<value>.*)$", types=None)


def typed(kind: GroupType, value: str, limits: Limits = LIMITS) -> Any:
    """The one typed value a `key=value` line yields for a `value` group of type `kind`."""
    text = adapter("^(?<key>[a-z]+)=(?<value>.*)$", types={"value": kind})
    return text(f"k={value}\n".encode(), limits)["records"][0]["value"]


def rejection(raw: bytes, text: TextAdapter = DF, limits: Limits = LIMITS) -> Rejection:
    with pytest.raises(Rejection) as info:
        text(raw, limits)
    return info.value


# --- what is accepted --------------------------------------------------------------------


def test_df_output_becomes_typed_records() -> None:
    """Each df -P line becomes one record of its named groups, typed as declared, in order."""
    assert DF(DF_TEXT, LIMITS) == {"records": DF_RECORDS}


def test_header_without_named_groups_adds_no_header_member() -> None:
    """A header pattern without named groups is checked but adds nothing to the document."""
    assert "header" not in DF(DF_TEXT, LIMITS)


def test_header_with_named_groups_becomes_the_header_member() -> None:
    """The named groups of the header line become the document's `header` object, typed."""
    text = adapter(
        "^(?<name>[a-z]+)$",
        header="^total (?<count>[0-9]+) at (?<host>[a-z]+)$",
        types={"count": "integer"},
    )
    document = text(b"total 2 at alpha\none\ntwo\n", LIMITS)
    assert document == {
        "header": {"count": 2, "host": "alpha"},
        "records": [{"name": "one"}, {"name": "two"}],
    }


def test_pattern_must_match_the_whole_line_even_without_anchors() -> None:
    """A pattern without ^ and $ still has to match the entire line, not a part of it."""
    text = adapter("(?<word>[a-z]+)")
    assert text(b"abc\n", LIMITS) == {"records": [{"word": "abc"}]}
    error = rejection(b"abc def\n", text)
    assert (type(error), error.reason) == (ParseError, "line_mismatch")


def test_unnamed_and_non_participating_groups_are_left_out() -> None:
    """Only named groups that took part in the match become members."""
    text = adapter("^(a|b)(?<x>[0-9])(?:-(?<y>[0-9]))?$", types={"y": "integer"})
    document = text(b"a1\nb2-3\n", LIMITS)
    assert document == {"records": [{"x": "1"}, {"x": "2", "y": 3}]}


def test_a_group_name_written_with_escapes_is_its_decoded_name() -> None:
    r"""`(?<\u0061ge>...)` is the group `age` (ECMA-262's StringValue): its member and its type."""
    text = TextAdapter.load(
        {"line": r"^(?<\u0061ge>[0-9]+) (?<\u{3C0}>[a-z]+)$", "types": {"age": "integer"}}, "c"
    )
    assert text(b"42 pi\n", LIMITS) == {"records": [{"age": 42, "\u03c0": "pi"}]}


def test_overlapping_alternatives_get_the_right_answer_on_a_long_line() -> None:
    """`^(a|a){1,64}$` (hours for a backtracker at 35 bytes) answers at once on RE2: a line
    of 64 `a` matches, a 64 KiB line with a stray byte is a line mismatch."""
    text = adapter("^(?:a|a){1,64}$")
    assert text(b"a" * 64 + b"\n", LIMITS) == {"records": [{}]}
    error = rejection(b"a" * 34 + b"!\n", text)
    assert error.reason == "line_mismatch"
    error = rejection(b"a" * 65536 + b"!\n", adapter("^(?<run>(?:a+)+)$"))
    assert error.reason == "line_mismatch"


@pytest.mark.parametrize(
    ("line", "needle"),
    [
        ("^(?<k>[a-z]+)(?=:)", "lookaround"),
        ("^(?:(?<word>[a-z]+) )+$", "repeats a capturing group"),
        ("^(?<word>[a-z]*)?$", "optional a group that can match empty"),
        ("^[a-z]{1,5000}$", "1000"),
    ],
)
def test_a_line_pattern_re2_cannot_read_as_ecma_does_is_a_contract_error(
    line: str, needle: str
) -> None:
    """Lookaround, groups ECMA-262 and RE2 would fill differently and counts over 1000 are
    refused when the contract loads, naming the `[text]` field."""
    with pytest.raises(ContractError, match=needle) as caught:
        TextAdapter.load({"line": line}, "contract.toml")
    assert caught.value.field == "text.line"


def test_tab_inside_a_line_is_allowed_when_the_pattern_says_so() -> None:
    """A tab is ordinary text (TSV), not a control character to refuse."""
    text = adapter("^(?<a>[a-z]+)\\t(?<b>[a-z]+)$")
    assert text(b"left\tright\n", LIMITS) == {"records": [{"a": "left", "b": "right"}]}


@pytest.mark.parametrize(
    ("lines", "bounds", "accepted"),
    [
        (0, (0, 2), True),
        (1, (1, 2), True),
        (2, (1, 2), True),
        (0, (1, 2), False),
        (3, (1, 2), False),
        (2, (3, 5), False),
    ],
)
def test_record_line_count_must_be_within_bounds(
    lines: int, bounds: tuple[int, int], accepted: bool
) -> None:
    """The number of record lines (the header not counted) must lie in [min_lines, max_lines]."""
    text = adapter("^(?<n>[0-9]+)$", header="^N$", min_lines=bounds[0], max_lines=bounds[1])
    raw = b"N\n" + b"".join(b"%d\n" % index for index in range(lines))
    if accepted:
        assert len(text(raw, LIMITS)["records"]) == lines
    else:
        error = rejection(raw, text)
        assert (type(error), error.reason) == (ParseError, "line_count")


# --- types -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("0", 0),
        ("42", 42),
        ("-7", -7),
        ("-0", 0),
        (str(INT64_MAX), INT64_MAX),
        (str(-INT64_MAX - 1), -INT64_MAX - 1),
    ],
    ids=["zero", "positive", "negative", "minus-zero", "int64-max", "int64-min"],
)
def test_integer_groups_become_ints(value: str, expected: int) -> None:
    """An integer group in JSON integer syntax within 64 bits becomes a Python int."""
    result = typed("integer", value)
    assert type(result) is int
    assert result == expected


@pytest.mark.parametrize(
    "value", ["", "007", "+1", "1.5", "1e3", "1_000", " 1", "0x10", "\u0663", "\uff11", "-"]
)
def test_non_json_integers_are_parse_errors(value: str) -> None:
    """Anything but ASCII JSON integer syntax (Unicode digits, `_`, `+`, 0-prefix) is refused."""
    with pytest.raises(ParseError) as info:
        typed("integer", value)
    assert info.value.reason == "bad_integer"


@pytest.mark.parametrize(
    "value",
    [str(INT64_MAX + 1), str(-INT64_MAX - 2), "9" * 19, "1" + "0" * 25, "7" * 5000],
    ids=["int64-max+1", "below-int64", "19-nines", "26-digits", "5000-digits"],
)
def test_integers_past_the_budget_are_limit_rejections(value: str) -> None:
    """An integer over 64 bits or the digit budget is a limits rejection, never a huge int."""
    with pytest.raises(LimitExceeded) as info:
        typed("integer", value)
    assert info.value.reason == "integer_too_long"


def test_huge_digit_string_is_a_limits_rejection_not_a_crash() -> None:
    """A 100 000-digit group is refused by the limits layer before int() is ever called."""
    roomy = Limits(max_bytes=1 << 20, max_string_length=1 << 20)
    with pytest.raises(LimitExceeded):
        typed("integer", "9" * 100_000, roomy)


def test_integer_digit_budget_is_the_contracts() -> None:
    """max_integer_digits from the contract's limits bounds integer groups too."""
    tight = Limits(max_integer_digits=3)
    assert typed("integer", "999", tight) == 999
    with pytest.raises(LimitExceeded):
        typed("integer", "1000", tight)


def test_group_longer_than_max_string_length_is_a_limits_rejection() -> None:
    """A captured value longer than max_string_length is refused, whatever its type."""
    tight = Limits(max_string_length=8)
    assert typed("string", "a" * 8, tight) == "a" * 8
    for kind in ("string", "integer", "number"):
        with pytest.raises(LimitExceeded) as info:
            typed(kind, "1" * 9, tight)  # type: ignore[arg-type]
        assert info.value.reason == "string_too_long"


@pytest.mark.parametrize(
    ("value", "expected"),
    [("1.5", 1.5), ("3", 3.0), ("-0.25", -0.25), ("1e3", 1000.0), ("2E-2", 0.02)],
)
def test_number_groups_become_finite_floats(value: str, expected: float) -> None:
    """A number group in JSON number syntax becomes a float."""
    result = typed("number", value)
    assert type(result) is float
    assert result == expected


@pytest.mark.parametrize(
    "value", ["1e999", "-1e400", "inf", "nan", "Infinity", "1_000", ".5", "5.", "+1", "", "\u0661"]
)
def test_non_finite_or_non_json_numbers_are_parse_errors(value: str) -> None:
    """Overflowing, infinite, NaN or non-JSON spellings of a number are refused."""
    with pytest.raises(ParseError) as info:
        typed("number", value)
    assert info.value.reason == "bad_number"


@pytest.mark.parametrize(
    ("value", "reason"),
    [("0.123456789012345678", "number_too_precise"), ("1e-400", "number_underflow")],
)
def test_number_group_its_float_would_misrepresent_is_refused_as_json_would(
    value: str, reason: str
) -> None:
    """A number group is read as the JSON parser reads a float token: the same refusals."""
    with pytest.raises(ParseError) as info:
        typed("number", value)
    assert info.value.reason == reason


@pytest.mark.parametrize(
    ("written", "exact"),
    [
        ("9007199254740992.9", "9007199254740992.9"),
        # 16 digits in an integer spelling (no fraction, no exponent): the short path for
        # float tokens, which always have one, took its float, and the schema saw 2**53
        ("9007199254740993", "9007199254740993"),
        ("-9007199254740993", "-9007199254740993"),
        ("12345678901234567", "12345678901234567"),
    ],
)
def test_number_group_carries_the_number_written_for_the_schema(written: str, exact: str) -> None:
    """A 16- or 17-digit group whose float is another number keeps the decimal written."""
    value = typed("number", written)
    assert type(value) is ExactFloat
    assert value.exact == Decimal(exact)


# --- fail closed -------------------------------------------------------------------------

DF_BODY = DF_TEXT.split(b"\n", 1)[1]
DF_HEAD = DF_TEXT.split(b"\n", 1)[0] + b"\n"
HOSTILE = {
    "banner": (b"Welcome to build-host.\n" + DF_TEXT, "line_mismatch"),
    "warning-after": (DF_TEXT + b"df: /mnt/x: Permission denied\n", "line_mismatch"),
    "blank-line": (DF_HEAD + b"\n" + DF_BODY, "line_mismatch"),
    "trailing-blank-line": (DF_TEXT + b"\n", "line_mismatch"),
    "crlf": (DF_TEXT.replace(b"\n", b"\r\n"), "control_character"),
    "lone-cr": (DF_TEXT.replace(b"23%", b"23%\r"), "control_character"),
    "no-final-newline": (DF_TEXT[:-1], "unterminated_line"),
    "truncated": (DF_TEXT[:-20], "unterminated_line"),
    "ansi-escape": (DF_TEXT.replace(b"tmpfs", b"\x1b[31mtmpfs\x1b[0m"), "control_character"),
    "bidi-override": (DF_TEXT.replace(b"/dev/shm", "/dev/\u202emhs".encode()), "control_character"),
    "zero-width-space": (DF_TEXT.replace(b"tmpfs", "tmp\u200bfs".encode()), "control_character"),
    "line-separator": (
        DF_TEXT.replace(b"/dev/shm", "/dev\u2028/shm".encode()),
        "control_character",
    ),
    "tag-characters": (
        DF_TEXT.replace(b"/dev/shm", "/dev/shm\U000e0041".encode()),
        "control_character",
    ),
    "bom": (b"\xef\xbb\xbf" + DF_TEXT, "control_character"),
    "variation-selectors": (
        DF_TEXT.replace(b"tmpfs", "tmpfs\U000e0100\ufe01".encode()),
        "control_character",
    ),
    "hangul-filler": (DF_TEXT.replace(b"tmpfs", "tmp\u3164fs".encode()), "control_character"),
    "braille-blank": (DF_TEXT.replace(b"tmpfs", "tmp\u2800fs".encode()), "control_character"),
    "nul": (DF_TEXT.replace(b"tmpfs", b"tmp\x00fs"), "control_character"),
    "delete": (DF_TEXT.replace(b"tmpfs", b"tmp\x7ffs"), "control_character"),
    "form-feed": (DF_TEXT.replace(b"tmpfs", b"tmp\x0cfs"), "control_character"),
    "invalid-utf8": (DF_TEXT.replace(b"tmpfs", b"tmp\xfffs"), "bad_utf8"),
    "overlong-utf8": (DF_TEXT.replace(b"/dev/shm", b"/dev\xc0\xafshm"), "bad_utf8"),
    "utf8-surrogate": (DF_TEXT.replace(b"tmpfs", b"tmp\xed\xa0\x80fs"), "bad_utf8"),
    "empty-output": (b"", "missing_header"),
    "header-only": (DF_HEAD, "line_count"),
    "capacity-not-a-number": (DF_TEXT.replace(b"23%", b"-%"), "line_mismatch"),
}


@pytest.mark.parametrize(("raw", "reason"), HOSTILE.values(), ids=HOSTILE.keys())
def test_hostile_output_is_rejected_whole(raw: bytes, reason: str) -> None:
    """Banners, blank lines, CR, truncation, control or invisible characters, bad UTF-8: refused."""
    error = rejection(raw)
    assert type(error) is ParseError
    assert error.layer == "parse"
    assert error.reason == reason
    assert error.code == "INVALID_RESPONSE"


DF_BLOCK = replace(DF, block=True)


@pytest.mark.parametrize("raw", [DF_TEXT, DF_TEXT[:-1]], ids=["final-newline", "none"])
def test_a_text_block_may_end_without_a_newline(raw: bytes) -> None:
    """An MCP text block is a whole string: its last line reads the same with or without one."""
    assert DF_BLOCK(raw, LIMITS)["records"] == DF_RECORDS


@pytest.mark.parametrize(
    ("raw", "reason"),
    [
        (DF_TEXT + b"\n", "line_mismatch"),
        (DF_TEXT[:-1] + b"\r\n", "control_character"),
        (DF_TEXT[:-1] + b"\nwarning", "line_mismatch"),
        (DF_HEAD, "line_count"),
    ],
    ids=["trailing-blank-line", "crlf", "a-line-after", "header-only"],
)
def test_a_text_block_is_held_to_the_rest_of_the_rules(raw: bytes, reason: str) -> None:
    """Only the final newline is optional: a blank line, CR or a stray line is still refused."""
    assert rejection(raw, DF_BLOCK).reason == reason


def test_empty_output_without_header_is_a_line_count_rejection() -> None:
    """No output at all is refused when at least one record line is required."""
    error = rejection(b"", VALUE)
    assert (type(error), error.reason) == (ParseError, "line_count")


def test_joiners_in_place_pass_as_in_any_string_the_agent_receives() -> None:
    """A ZWNJ inside a Persian word and a ZWJ in an emoji sequence: kept, as by the projection."""
    words = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \U0001f468\u200d\U0001f469"
    assert adapter("^(?<w>.+)$")(f"{words}\n".encode(), LIMITS) == {"records": [{"w": words}]}


def test_empty_output_is_an_empty_document_only_when_zero_lines_are_allowed() -> None:
    """With min_lines = 0 and no header, empty output is the document with no records."""
    assert adapter("^(?<x>a)$", min_lines=0)(b"", LIMITS) == {"records": []}


def test_output_over_max_bytes_is_a_limits_rejection() -> None:
    """Output longer than max_bytes is refused by the limits layer before any line is read."""
    error = rejection(DF_TEXT, DF, Limits(max_bytes=len(DF_TEXT) - 1))
    assert (type(error), error.reason) == (LimitExceeded, "too_large")
    assert error.layer == "limits"
    assert DF(DF_TEXT, Limits(max_bytes=len(DF_TEXT)))["records"] == DF_RECORDS


def test_more_record_lines_than_max_container_items_is_a_limits_rejection() -> None:
    """The records array is held to max_container_items, like any JSON array."""
    text = adapter("^(?<n>[0-9]+)$", max_lines=1000)
    raw = b"".join(b"%d\n" % index for index in range(4))
    assert len(text(raw, Limits(max_container_items=4))["records"]) == 4
    error = rejection(raw, text, Limits(max_container_items=3))
    assert (type(error), error.reason) == (LimitExceeded, "container_too_large")


def test_disk_usage_contract_reads_text_through_the_whole_pipeline() -> None:
    """The disk_usage example accepts its df -P sample and rejects a banner at the parse layer."""
    contract = load_contract(DISK_USAGE / "contract.toml")
    raw = (DISK_USAGE / "response.txt").read_bytes()
    envelope, diagnostics = check(contract, raw, request_id="req.lines.0001")
    assert diagnostics.outcome == "success", diagnostics
    assert [fs["mount"] for fs in envelope["data"]["file_systems"]][-1] == "/mnt/build cache"
    envelope, diagnostics = check(
        contract, b"Last login: today\n" + raw, request_id="req.lines.0001"
    )
    assert envelope["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert (diagnostics.layer, diagnostics.reason) == ("parse", "line_mismatch")


# --- property: arbitrary bytes -----------------------------------------------------------

PROPERTY = adapter(
    "^(?<word>[a-z]{1,8}) +(?<n>-?[0-9]+)$", types={"n": "integer"}, min_lines=0, max_lines=5
)
# The oracle: Python's own regex, written independently of the ECMA-262 translation.
ORACLE = re.compile(r"([a-z]{1,8}) +(-?[0-9]+)")
FRAGMENTS = ["\r", "\x1b[0m", "\u202e", "\x00", "\u200b", "\t", " ", "-", "0", "\ufeff", "\u0663"]
good_lines = st.builds(
    "{} {}".format,
    st.from_regex(r"[a-z]{1,8}", fullmatch=True),
    st.integers(min_value=-(2**63), max_value=2**63),  # one past int64 at either end
)
noise_lines = st.one_of(
    st.text(max_size=12),
    st.builds("".join, st.lists(st.sampled_from(FRAGMENTS) | good_lines, max_size=4)),
)


@st.composite
def outputs(draw: st.DrawFn) -> bytes:
    """Well-formed lines (often accepted, so the property has teeth), mangled lines, or noise."""
    kind = draw(st.sampled_from(["clean", "clean", "mangled", "noise"]))
    if kind == "noise":
        return draw(st.binary(max_size=64))
    if kind == "clean":
        return "".join(line + "\n" for line in draw(st.lists(good_lines, max_size=6))).encode()
    lines = draw(st.lists(st.one_of(good_lines, noise_lines), max_size=7))
    text = draw(st.sampled_from(["\n", "\r\n"])).join(lines)
    raw = bytearray((text + draw(st.sampled_from(["\n", "", "\n\n"]))).encode("utf-8"))
    if raw and draw(st.booleans()):
        at = draw(st.integers(min_value=0, max_value=len(raw) - 1))
        raw[at] = draw(st.integers(min_value=0, max_value=255))
    return bytes(raw)


@settings(max_examples=200, deadline=None)
@given(outputs())
def test_any_bytes_give_a_document_of_matched_lines_or_a_rejection(raw: bytes) -> None:
    """For any bytes: a document whose every record is a fully matched line, or a Rejection."""
    try:
        document = PROPERTY(raw, LIMITS)
    except Rejection:
        return
    text = raw.decode("utf-8")  # accepted output is strict UTF-8 ...
    assert text == "" or text.endswith("\n")  # ... made of whole lines
    lines = text[:-1].split("\n") if text else []
    assert set(document) == {"records"}
    assert len(document["records"]) == len(lines) <= 5
    for line, record in zip(lines, document["records"], strict=True):
        match = ORACLE.fullmatch(line)
        assert match is not None, line
        assert record == {"word": match[1], "n": int(match[2])}
        assert -INT64_MAX - 1 <= record["n"] <= INT64_MAX


def accepted_records(raw: bytes) -> int:
    try:
        return len(PROPERTY(raw, LIMITS)["records"])
    except Rejection:
        return -1


def test_property_inputs_reach_accepted_documents() -> None:
    """The property's generator does produce accepted multi-line output, so the property bites."""
    found = find(
        outputs(),
        lambda raw: accepted_records(raw) >= 2,
        settings=settings(max_examples=1000, database=None, phases=[Phase.generate]),
    )
    assert accepted_records(found) >= 2


# --- where a rejection is: what the operator reads --------------------------------------

REAL = ROOT / "tests" / "data" / "real_outputs"  # captured from real commands on Debian 12


def test_a_record_line_that_does_not_match_is_named_by_its_number_and_offset() -> None:
    """The operator is told which line (counted as an editor does) and where it starts."""
    raw = DF_TEXT + b"map auto_home 0 0 0 100% /System/Volumes/Data/home\n"
    error = rejection(raw)
    assert (type(error), error.reason) == (ParseError, "line_mismatch")
    assert error.message.startswith("line 4: does not match text.line '^(?<filesystem>")
    assert error.message.endswith("'map auto_home 0 0 0 100% /System/Volumes/Data/home'")
    assert error.offset == len(DF_TEXT)


def test_the_offset_of_a_line_after_non_ascii_text_counts_bytes() -> None:
    """The offset is a byte offset, as the raw copy is stored: a 2-byte character counts 2."""
    raw = DF_TEXT.replace(b"/dev/shm", "/dev/sh\u00e9".encode()) + b"not a df line\n"
    error = rejection(raw)
    assert (type(error), error.reason) == (ParseError, "line_mismatch")
    assert error.message.startswith("line 4: ")
    assert error.offset == len(raw) - len(b"not a df line\n")


def test_a_header_that_does_not_match_names_the_header_pattern() -> None:
    """Real `df` without -P: line 1 is named, and so is text.header, the key to fix."""
    error = rejection((REAL / "df_without_p.txt").read_bytes())
    assert (type(error), error.reason) == (ParseError, "line_mismatch")
    assert error.message.startswith("line 1: does not match text.header '^Filesystem +1024-")
    assert error.offset == 0


def test_a_typed_group_that_fails_names_its_line() -> None:
    """A group refused by its type, or by a budget, names the line it is on."""
    error = rejection(DF_TEXT.replace(b"24683584        0", b"24683584 99999999999999999999"))
    assert (type(error), error.reason) == (LimitExceeded, "integer_too_long")
    assert error.message == "line 3: group 'used_kb' is over the integer budget"
    assert error.offset == DF_TEXT.index(b"tmpfs")


def test_crlf_from_a_pseudo_terminal_is_refused_with_what_to_change() -> None:
    """Real `ssh -tt host df -P`: refused (nothing is stripped), and the message says why."""
    raw = (REAL / "df_p_over_ssh_tt.txt").read_bytes()
    error = rejection(raw)
    assert (type(error), error.reason) == (ParseError, "control_character")
    assert error.message.startswith("a carriage return (U+000D) ends line 1: CRLF line endings")
    assert "ssh -t" in error.message
    assert error.offset == raw.index(b"\r\n")


def test_a_hidden_character_is_named_with_its_line_and_column() -> None:
    """Real `ls -l` of names holding ESC and U+202E: the first is placed by line and column."""
    raw = (REAL / "ls_l_hostile_names.txt").read_bytes()
    error = rejection(raw, adapter("^(?<line>.*)$"))
    assert (type(error), error.reason) == (ParseError, "control_character")
    column = raw.split(b"\n")[2].index(b"\x1b") + 1
    assert error.message == f"character U+001B at line 3, column {column}"
    assert error.offset == raw.index(b"\x1b")
    after = raw.replace(b"\x1b", b"")
    message = rejection(after, adapter("^(?<line>.*)$")).message
    assert message.startswith("character U+202E RIGHT-TO-LEFT OVERRIDE at line 4, column ")


def test_invalid_utf8_and_a_missing_final_newline_name_their_line() -> None:
    """Byte offsets for bad UTF-8 and truncation, with the line they fall on."""
    error = rejection(DF_TEXT.replace(b"tmpfs", b"tmp\xfffs"))
    assert error.message == f"output is not UTF-8 at byte {DF_TEXT.index(b'tmpfs') + 3} (line 3)"
    assert error.offset == DF_TEXT.index(b"tmpfs") + 3
    error = rejection(DF_TEXT[:-1])
    assert error.message == "line 3, the last, has no final newline (truncated?)"
    assert error.offset == len(DF_TEXT) - 1


def test_a_line_count_out_of_bounds_names_the_keys_to_change() -> None:
    """Too many or too few record lines: the message names min_lines and max_lines."""
    error = rejection(DF_TEXT, adapter(DF_LINE, DF_HEADER, DF_TYPES, max_lines=1))
    assert error.message == "2 record lines, expected 1 to 1 ([text] min_lines to max_lines)"
    raw = b"".join(b"%d\n" % index for index in range(4))
    error = rejection(raw, adapter("^(?<n>[0-9]+)$"), Limits(max_container_items=3))
    assert error.message == "4 record lines: over max_container_items=3"
