"""`@frozen` value classes: `__init__` as `dataclass(frozen=True)` builds, and `replace`."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from toolguard.frozen import FrozenInstanceError, field, fields, frozen, replace
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


# --- __init__ against dataclasses: the same fields, or the same refusal --------------------------

NAMES = ("a", "b", "c", "d", "e", "f")


@st.composite
def classes_and_calls(draw: st.DrawFn) -> tuple[list[str], tuple[Any, ...], dict[str, Any]]:
    """Field kinds (required first, then plain defaults and factories mixed), and a call."""
    count = draw(st.integers(0, len(NAMES)))
    required = draw(st.integers(0, count))
    optional = st.sampled_from(["default", "factory", "hidden"])
    kinds = ["required"] * required
    kinds += draw(st.lists(optional, min_size=count - required, max_size=count - required))
    positional = draw(st.lists(st.integers(), max_size=count + 1))
    keywords = draw(
        st.dictionaries(st.sampled_from([*NAMES, "zz"]), st.integers(), max_size=count + 1)
    )
    return kinds, tuple(positional), keywords


def _build(kinds: list[str], decorate: Any, make_field: Any) -> type:
    namespace: dict[str, Any] = {"__annotations__": {}}
    for name, kind in zip(NAMES, kinds, strict=False):
        namespace["__annotations__"][name] = "int"
        if kind == "default":
            namespace[name] = 7
        elif kind == "factory":
            namespace[name] = make_field(default_factory=list)
        elif kind == "hidden":
            namespace[name] = make_field(default=9, repr=False)
    return decorate(type("Value", (), namespace))


@given(classes_and_calls())
def test_init_builds_what_a_frozen_dataclass_builds(
    case: tuple[list[str], tuple[Any, ...], dict[str, Any]],
) -> None:
    """Every field as `dataclass(frozen=True)` sets it, in field order, or a TypeError where
    it refuses the call (too many, repeated, unknown or missing arguments)."""
    kinds, args, kwargs = case
    ours = _build(kinds, frozen, field)
    theirs = _build(kinds, dataclasses.dataclass(frozen=True), dataclasses.field)
    try:
        expected = theirs(*args, **kwargs)
    except TypeError:
        with pytest.raises(TypeError):
            ours(*args, **kwargs)
        return
    built = ours(*args, **kwargs)
    assert vars(built) == vars(expected)
    assert list(vars(built)) == list(fields(built))
    with pytest.raises(FrozenInstanceError):
        built.a = 1


def test_a_default_factory_runs_for_each_instance_a_plain_default_is_shared() -> None:
    """`default_factory` makes a new value per instance; `field(default=...)` is one value."""
    value = _build(["factory", "hidden"], frozen, field)
    first, second = value(), value()
    assert first.a == []
    assert first.a is not second.a
    assert first.b == 9
    assert "b" not in repr(first)


def test_post_init_runs_after_every_field_is_set() -> None:
    """`__post_init__` sees each field set, whichever way it was given."""
    seen: list[dict[str, Any]] = []

    @frozen
    class Checked:
        low: int
        high: int = 5

        def __post_init__(self) -> None:
            seen.append(dict(vars(self)))

    Checked(1)
    Checked(high=2, low=0)
    Checked(3, 4)  # every field by position: the shortcut that fills nothing in
    assert seen == [{"low": 1, "high": 5}, {"low": 0, "high": 2}, {"low": 3, "high": 4}]


def test_a_frozen_subclass_of_a_frozen_class_is_refused() -> None:
    """`@frozen` on a subclass of a frozen class is a TypeError at decoration: it would keep
    the subclass's own fields alone (dataclasses puts the base's first), and drop the rest."""

    @frozen
    class Base:
        a: int

    with pytest.raises(TypeError, match="cannot extend"):

        @frozen
        class Child(Base):
            b: int = 2

    class Plain(Base):  # undecorated: the base's fields, as `dataclasses` gives them
        pass

    assert vars(Plain(1)) == {"a": 1}
