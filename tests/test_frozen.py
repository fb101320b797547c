"""`@frozen` value classes: `replace` copies as `__init__` would build."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguard.frozen import FrozenInstanceError, fields, replace
from toolguard.limits import Limits
from toolguard.result import Diagnostics

BASE = Diagnostics(tool="t", request_id="req.frozen.01", contract="c.toml", outcome="success")
TEXT = st.none() | st.text(max_size=8)
CHANGES = st.fixed_dictionaries(
    {},
    optional={
        "message": TEXT,
        "rule": TEXT,
        "size": st.none() | st.integers(0, 9),
        "duration_ms": st.floats(0, 9),
        "upstream": st.none() | st.tuples(st.text(max_size=4)),
        "outcome": st.sampled_from(["success", "failure"]),
    },
)


@given(CHANGES)
def test_replace_equals_the_instance_init_builds(changes: dict[str, object]) -> None:
    """A replaced copy has the fields `__init__` would give it, and the same repr and hash."""
    built = Diagnostics(**{**{name: getattr(BASE, name) for name in fields(BASE)}, **changes})
    copy = replace(BASE, **changes)
    assert copy == built
    assert repr(copy) == repr(built)
    assert hash(copy) == hash(built)
    assert list(vars(copy)) == list(fields(BASE))


def test_a_replaced_copy_is_frozen_and_the_original_untouched() -> None:
    """Assigning to the copy fails, and the original keeps its values."""
    copy = replace(BASE, message="changed")
    with pytest.raises(FrozenInstanceError):
        copy.message = "again"  # type: ignore[misc]
    assert BASE.message is None


def test_replace_refuses_an_unknown_field() -> None:
    """An unknown name is a TypeError naming it, as `dataclasses.replace` says."""
    with pytest.raises(TypeError, match="'nothing'"):
        replace(BASE, nothing=1)


def test_replace_runs_post_init_checks_again() -> None:
    """A class with `__post_init__` is rebuilt through it, so its checks still hold."""
    with pytest.raises(ValueError, match="max_depth must be at least 1"):
        replace(Limits(), max_depth=0)
    assert replace(Limits(), max_depth=3).max_depth == 3
