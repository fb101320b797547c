"""Fuzz target: the strict parser against the strict reference, and its fast path against it.

For each input and each of three `Limits` (tight, medium, default):

- `toolguard.parse.parse` and `reference.reference_parse` agree on accept or reject, and on the
  value when they accept (types, key order and the sign of zero included);
- a rejection is a `ParseError` or `LimitExceeded` whose offset lies within the input, never
  another exception;
- the accept-or-defer fast path (`toolguard.fast_parse.accept`) either defers or returns
  exactly the value of the strict parser without its fast path (`parse._strict_parse`).

    python fuzz/strict_parse.py -max_total_time=60
"""

from __future__ import annotations

from typing import Any

import harness
import seeds
from reference import Refused, reference_parse, same

with harness.instrumented():
    from toolguard.errors import Rejection
    from toolguard.fast_parse import DEFER, accept
    from toolguard.limits import Limits
    from toolguard.parse import _admit, _strict_parse, parse

LIMITS = (
    Limits(
        max_bytes=4096,
        max_depth=3,
        max_string_length=5,
        max_container_items=3,
        max_integer_digits=4,
    ),
    Limits(max_bytes=65_536, max_depth=6, max_string_length=12, max_container_items=6),
    Limits(),
)


def test_one_input(data: bytes) -> None:
    """Check one input under every `Limits`; an `AssertionError` is a finding."""
    for limits in LIMITS:
        check(data, limits)


def check(data: bytes, limits: Limits) -> None:
    """The three agreements of this target, for one input and one `Limits`."""
    got = _outcome(parse, data, limits)
    try:
        expected: Any = reference_parse(data, limits)
    except Refused as refused:
        assert isinstance(got, Rejection), (
            f"parse accepted what the reference refuses ({refused.why}) under {limits}: {got!r}"
        )
    else:
        assert not isinstance(got, Rejection), (
            f"parse rejected ({got.reason}: {got.message}) what the reference accepts"
            f" under {limits}: {expected!r}"
        )
        assert same(got, expected), f"parse read {got!r}, the reference {expected!r}"
    strict = _outcome(_strict_parse, data, limits)
    fast = _fast(data, limits)
    if fast is not DEFER:
        assert not isinstance(strict, Rejection), (
            f"the fast path accepted {fast!r}; the strict parser rejects it ({strict.reason})"
        )
        assert same(fast, strict), f"the fast path read {fast!r}, the strict parser {strict!r}"


def _outcome(function: Any, data: bytes, limits: Limits) -> Any:
    """The parsed value, or the `Rejection` (its offset checked); anything else propagates."""
    try:
        return function(data, limits)
    except Rejection as rejection:
        offset = rejection.offset
        assert offset is not None, f"{rejection.reason} has no offset"
        assert 0 <= offset <= max(len(data), limits.max_bytes), f"offset {offset} is outside"
        return rejection


def _fast(data: bytes, limits: Limits) -> Any:
    """What the fast path makes of `data`, given the checks `parse` runs before it."""
    try:
        text = _admit(data, limits)
    except Rejection:
        return DEFER
    return accept(data, text, limits)


def main() -> None:
    """Fuzz, with the JSON fixtures and the JSON test suite as seeds."""
    harness.run(
        "strict_parse", test_one_input, seeds=seeds.json_documents, dictionary=seeds.JSON_TOKENS
    )


if __name__ == "__main__":
    main()
