"""The strict parser's offset replay: exact, in document order, and linear in long tokens.

A rejection is located by replaying the chunk it arose in byte by byte; bytes that cannot end
a token (`parse._Replay`) are fed together. The reference here feeds every byte alone,
with no budget: the two must give the same reason, message and offset.
"""

from __future__ import annotations

import contextlib
import itertools
import tracemalloc
from typing import Any
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import mutated_json_texts

import toolguard.parse
from toolguard.errors import Rejection
from toolguard.limits import Limits
from toolguard.parse import _strict_parse

TIGHT = Limits(max_string_length=100, max_depth=20, max_integer_digits=12, max_container_items=50)
LIMITS = [Limits(), TIGHT]
REFERENCE_BUDGET = 10**12


def outcome(raw: bytes, limits: Limits) -> tuple[Any, ...]:
    """('value',) or the strict path's rejection: its class, layer, reason, offset, message."""
    try:
        _strict_parse(raw, limits)
    except Rejection as rejection:
        return (
            type(rejection),
            rejection.layer,
            rejection.reason,
            rejection.offset,
            rejection.message,
        )
    return ("value",)


def byte_by_byte(raw: bytes, limits: Limits) -> tuple[Any, ...]:
    """The reference: the replay feeds every byte alone, whatever it costs."""
    with (
        mock.patch.object(toolguard.parse, "_QUIET", REFERENCE_BUDGET),
        mock.patch.object(toolguard.parse, "REPLAY_BUDGET", REFERENCE_BUDGET),
    ):
        return outcome(raw, limits)


def assert_same_as_byte_by_byte(raw: bytes, limits: Limits) -> None:
    assert outcome(raw, limits) == byte_by_byte(raw, limits), raw[:200]


# Tokens begun, token bodies and what follows them: long ones span the replay's chunks.
HEADS = [b"", b"-", b"0", b"-0", b"00", b"1", b"-1", b"0.", b"1e", b"1e-", b"1E+", b'"', b'"\\']
HEADS += [b'"\\u00', b" ", b"\n", b"tru", b'"\xc3\xa9']
BODIES = [b"", b"0", b"00", b"9", b"123", b"0" * 1100, b"9" * 2500, b" " * 1200, b"a" * 1500]
BODIES += [b"\xc3\xa9" * 700]
TAILS = [b"]", b",1]", b" ]", b"x]", b".5]", b"e5]", b"0]", b'"]', b'\\"]', b"\n]", b"\xc3\xa9]"]
TAILS += [b"-]", b"+1]", b"", b'"x"]', b'\\u12"]', b'\t"]']
# A chunk is 1024 bytes: what comes first puts the token at its start, middle or end.
PREFIXES = [b"[", b'["' + b"a" * 995 + b'",', b'["' + b"a" * 1018 + b'",', b"[" + b" " * 2040]


@pytest.mark.parametrize("prefix", PREFIXES, ids=["start", "mid-chunk", "chunk-end", "gap"])
def test_every_token_shape_is_located_as_byte_by_byte(prefix: bytes) -> None:
    """Each token begun, lengthened and ended every way, at each place in a chunk."""
    for head, body, tail, limits in itertools.product(HEADS, BODIES, TAILS, LIMITS):
        assert_same_as_byte_by_byte(prefix + head + body + tail, limits)


# Fragments to splice into long documents: escapes, numbers, brackets, stray bytes.
FRAGMENTS = [b'"', b"\\", b'\\"', b"\\\\", b"\\u00e9", b"\\ud83d\\ude00", b"\\u12", b"\\x"]
FRAGMENTS += [b"\n", b"\t", b" ", b"0", b"00", b"-", b".", b"e", b"E+", b"[", b"]", b"{", b"}"]
FRAGMENTS += [b",", b":", b"NaN", b"\xc3\xa9", b"x", b"9" * 30, b"0" * 25]


@st.composite
def long_token(draw: st.DrawFn) -> bytes:
    """A string, number or gap of up to 3,000 bytes (so the replay meets it mid-token)."""
    size = draw(st.sampled_from([3, 60, 1100, 3000]))
    kind = draw(st.sampled_from(["string", "integer", "fraction", "exponent", "gap"]))
    if kind == "string":
        units = [b"a", b"\\n", b'\\"', b"\\\\", b" ", b"\xc3\xa9", b"\\u00e9", b"0"]
        return b'"' + b"".join(draw(st.lists(st.sampled_from(units), min_size=size // 2))) + b'"'
    if kind == "gap":
        return b" " * size
    digits = draw(st.sampled_from([b"0", b"1", b"9", b"10"])) + b"0123456789" * (size // 10)
    sign = draw(st.sampled_from([b"", b"-"]))
    return {
        "integer": sign + digits,
        "fraction": sign + b"0." + digits,
        "exponent": sign + b"1e" + draw(st.sampled_from([b"", b"-", b"+"])) + digits,
    }[kind]


@st.composite
def long_documents(draw: st.DrawFn) -> bytes:
    """An array of long tokens, nesting and short values, then a few fragments spliced in."""
    items = draw(
        st.lists(
            long_token() | st.sampled_from([b"[" * 25, b'{"k":1}', b'"s"', b"12"]),
            min_size=1,
            max_size=6,
        )
    )
    raw = b"[" + b",".join(items) + b"]"
    for fragment, at in draw(
        st.lists(st.tuples(st.sampled_from(FRAGMENTS), st.floats(0, 1)), max_size=3)
    ):
        cut = int(at * len(raw))
        raw = raw[:cut] + fragment + raw[cut:]
    return raw


@settings(max_examples=300, deadline=None)
@given(raw=long_documents(), limits=st.sampled_from(LIMITS))
def test_long_documents_are_located_as_byte_by_byte(raw: bytes, limits: Limits) -> None:
    assert_same_as_byte_by_byte(raw, limits)


@settings(max_examples=300, deadline=None)
@given(raw=mutated_json_texts(), limits=st.sampled_from(LIMITS))
def test_mutated_documents_are_located_as_byte_by_byte(raw: bytes, limits: Limits) -> None:
    assert_same_as_byte_by_byte(raw, limits)


class _Counted:
    """yajl's push parser, counting the bytes fed to it after the replay's first send."""

    def __init__(self, inner: Any, fed: list[int]) -> None:
        self.inner, self.fed = inner, fed

    def send(self, chunk: bytes) -> None:
        self.fed.append(len(chunk))
        self.inner.send(chunk)

    def close(self) -> None:
        self.inner.close()


def replay_sends(raw: bytes, limits: Limits, monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The sizes of the replay's sends from its start (the first run's failing chunk) on.

    Before it, the replay feeds the bytes exactly as the first run fed them, chunk by chunk
    (fed at once, their events would all be held together).
    """
    runs: list[list[int]] = []
    real = toolguard.parse._YAJL

    class Backend:
        @staticmethod
        def basic_parse_coro(sink: Any, **config: Any) -> _Counted:
            runs.append([])
            return _Counted(real.basic_parse_coro(sink, **config), runs[-1])

    monkeypatch.setattr(toolguard.parse, "_YAJL", Backend)
    with pytest.raises(Rejection):
        _strict_parse(raw, limits)
    assert len(runs) == 2  # the first run, then the replay
    first, replay = runs
    before = len(first) - 1  # the sends before the failing one
    assert replay[:before] == first[:before]
    return replay[before:]


@pytest.mark.parametrize(
    ("raw", "reason", "ended_by"),
    [
        pytest.param(b"[" + b"9" * 600_000 + b"]", "integer_too_long", b"]", id="integer"),
        pytest.param(b"[0." + b"9" * 600_000 + b"]", "number_too_precise", b"]", id="fraction"),
        pytest.param(b'["' + b"a" * 600_000 + b'"]', "string_too_long", b'"]', id="string"),
        pytest.param(b"[1," + b" " * 600_000 + b"NaN]", "non_finite_number", b"NaN", id="gap"),
        pytest.param(b"[1" + b"5" * 600_000 + b".5e+5]", "non_finite_number", b"]", id="marks"),
    ],
)
def test_a_long_token_is_replayed_in_a_few_sends_to_its_exact_end(
    raw: bytes, reason: str, ended_by: bytes, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A 600 KB token: each byte fed alone would re-read it (12 s for 1 MB); a few sends do."""
    sends = replay_sends(raw, Limits(), monkeypatch)
    assert len(sends) <= 2 * toolguard.parse._QUIET  # a few bytes alone, then the run
    with pytest.raises(Rejection) as caught:
        _strict_parse(raw, Limits())
    assert caught.value.reason == reason
    assert "between bytes" not in caught.value.message
    assert caught.value.offset == raw.rindex(ended_by)


def test_the_budget_counts_what_the_replay_re_reads_of_a_token_begun_before_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A token begun chunks before the failing one is re-read whole by each send of the replay."""
    raw = b"[" + b"9" * 300_000 + b"]"  # the failing chunk starts at byte 262,144
    monkeypatch.setattr(toolguard.parse, "REPLAY_BUDGET", 100_000)
    assert replay_sends(raw, Limits(), monkeypatch) == []  # not one byte past its start
    with pytest.raises(Rejection) as caught:
        _strict_parse(raw, Limits())
    assert caught.value.offset == 262_144
    assert caught.value.message.endswith("(between bytes 262144 and 300002)")


@pytest.mark.parametrize("gap", [10, 100], ids=["bytes-alone", "a-run"])
def test_whitespace_is_not_counted_as_re_read(gap: int) -> None:
    """yajl keeps no whitespace between tokens: after a gap, nothing is open to re-read."""
    raw = b"[1," + b" " * gap + b'"abc"]'
    replay = toolguard.parse._Replay(raw, 3, REFERENCE_BUDGET)
    at = 3
    while at < 3 + gap:
        at = replay.piece(at, 0)
    assert at == 3 + gap
    assert replay.pending == 0
    assert replay.work == gap


@pytest.mark.parametrize(
    ("raw", "limits", "reason", "offset"),
    [
        pytest.param(b"[" * 40 + b"x", Limits(), "too_deep", 32, id="deep-then-garbage"),
        pytest.param(b'["' + b"a" * 200 + b'", x]', TIGHT, "string_too_long", 202, id="long"),
        pytest.param(b"[1, 1234567890123, x]", TIGHT, "integer_too_long", 17, id="integer"),
    ],
)
def test_the_first_problem_in_the_document_is_the_one_reported(
    raw: bytes, limits: Limits, reason: str, offset: int
) -> None:
    """A limit broken before a syntax error in the same chunk is what the rejection names.

    yajl reads a whole chunk before its events are built, so its syntax error comes first;
    the replay, byte by byte, meets the broken limit first.
    """
    with pytest.raises(Rejection) as caught:
        _strict_parse(raw, limits)
    assert (caught.value.reason, caught.value.offset) == (reason, offset)
    assert caught.value.layer == "limits"


@pytest.mark.parametrize(
    "raw",
    [
        pytest.param(b'["\xc3\xa9", \xc3\xa9]', id="after-a-character"),
        pytest.param(b'["' + b"a" * 1020 + b'",\xc3\xa9]', id="split-by-a-chunk"),
    ],
)
def test_a_syntax_error_message_never_quotes_the_document(raw: bytes) -> None:
    """yajl quotes the bytes around its error; fed a character in two, ijson gives its repr."""
    with pytest.raises(Rejection) as caught:
        _strict_parse(raw, Limits())
    assert caught.value.message == "not JSON: lexical error: invalid char in json text."


@pytest.mark.parametrize("ending", [b',{"a":1,"a":2}]', b","], ids=["duplicate", "truncated"])
def test_a_late_rejection_holds_no_more_memory_than_the_value(ending: bytes) -> None:
    """A problem at the very end of a document: the replay that locates it neither keeps the
    first run's value, nor holds the events before it all at once, nor builds the value
    again. Its peak (Python's allocations, counted exactly) is the accepted parse's."""
    body = b"[" + b",".join([b'{"a":[1,2,3]}'] * 20_000)
    limits = Limits(max_bytes=1 << 22, max_container_items=100_000)

    def peak(raw: bytes) -> int:
        tracemalloc.start()
        with contextlib.suppress(Rejection):
            _strict_parse(raw, limits)
        _, highest = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        return highest

    with pytest.raises(Rejection):
        _strict_parse(body + ending, limits)
    assert peak(body + ending) < 1.3 * peak(body + b"]")
