"""framing.py: lines cut within the cap from any chunks, as the rules say, whatever the cuts."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from toolguard.framing import Lines

Seen = list[tuple[bytes, bool]]


def reference(data: bytes, cap: int) -> Seen:
    """The framing's rules, written plainly over the whole data at once (no chunks, no state).

    Every newline ends a line; the end of the data ends the last one, which gains a newline.
    A line longer than `cap` bytes (its newline not counted) is over long: its first
    `cap + 1` bytes stand for it. Blank lines are skipped; an over-long one is not.
    """
    pieces = data.split(b"\n")
    if not pieces[-1]:
        pieces.pop()  # the data ended with a newline (or was empty): no last line
    seen: Seen = []
    for piece in pieces:
        if len(piece) > cap:
            seen.append((piece[: cap + 1], True))
        elif piece.strip(b" \t\r"):
            seen.append((piece + b"\n", False))
    return seen


def fed(data: bytes, cap: int, cuts: list[int]) -> Seen:
    seen: Seen = []
    lines = Lines(cap, lambda line, over: seen.append((line, over)))
    at = 0
    for cut in sorted(cuts):
        lines.feed(data[at:cut])
        at = cut
    lines.feed(data[at:])
    lines.end()
    return seen


@given(
    st.lists(
        st.one_of(
            st.sampled_from([b"\n", b"\r\n", b" ", b"\t", b"{}", b"x" * 7, b"y" * 70, b"z" * 9]),
            st.binary(max_size=20),
        ),
        max_size=30,
    ),
    st.integers(1, 40),
    st.lists(st.integers(0, 2_000), max_size=12),
)
def test_lines_follow_the_rules_whatever_the_chunks(
    pieces: list[bytes], cap: int, cuts: list[int]
) -> None:
    """Every cut, every cap: the lines, the over-long flags and the cut bytes of the reference."""
    data = b"".join(pieces)
    assert fed(data, cap, [cut % (len(data) + 1) for cut in cuts]) == reference(data, cap)


def test_lines_at_the_cap() -> None:
    """`cap` bytes and a newline is a line; one byte more is over long, cut to `cap + 1`."""
    cap = 8
    for data in (b"a" * 8 + b"\n", b"a" * 9 + b"\n", b"a" * 9, b"a" * 8, b"\n \r\n\t"):
        for cut in range(len(data) + 1):
            assert fed(data, cap, [cut]) == reference(data, cap), (data, cut)


def test_an_over_long_line_is_handed_on_before_its_rest_comes() -> None:
    """A line that never ends fails its call at once; its rest is dropped as it comes."""
    seen: Seen = []
    lines = Lines(64, lambda line, over: seen.append((line, over)))
    lines.feed(b"x" * 65)
    assert seen == [(b"x" * 65, True)]
    lines.feed(b"x" * 10_000)
    lines.feed(b"xx\n{}\n")
    assert seen == [(b"x" * 65, True), (b"{}\n", False)]


def test_the_last_line_ends_with_the_stream() -> None:
    """Handed on with a newline, it cannot run into the next line written to the same side."""
    seen: Seen = []
    lines = Lines(64, lambda line, over: seen.append((line, over)))
    lines.feed(b'{"id":1}\n{"id":2}')
    lines.end()
    assert seen == [(b'{"id":1}\n', False), (b'{"id":2}\n', False)]
