"""What `init --from` leaves out of `[projection]`: the reason names where, cut to be read."""

from __future__ import annotations

from toolguard.parse import parse
from toolguard.scaffold.left_out import NOT_AS_WRITTEN, left_out
from toolguard.scaffold.sample import SAMPLE_LIMITS


def test_a_long_pointer_is_cut_to_40_characters_in_the_reason_and_the_advice() -> None:
    """A member named with 50 characters: its number's place is shown cut, with the count."""
    key = "k" * 50
    sample = parse(b'{"%s": [1, 0.99999999999999999]}' % key.encode(), SAMPLE_LIMITS)
    found = left_out(key, sample[key])
    assert found is not None
    where = f"/{'k' * 39}... [13 more characters]"  # `/` and 39 of the 53 of `/kkk.../1`
    assert (found.pointer, found.cause) == (f"/{key}", NOT_AS_WRITTEN)
    assert found.reason == f"0.99999999999999999 at {where} would reach the agent as 1.0"
    assert found.advice == f"project what you need in it but {where}"
