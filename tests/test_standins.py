"""The stand-ins for functools' caches and contextlib.suppress behave as those do."""

from __future__ import annotations

import pytest

from toolguard.standins import bounded, cache, suppress


def test_cache_remembers_each_result_by_argument() -> None:
    """One call per distinct argument list, positional and keyword told apart."""
    calls: list[tuple[object, ...]] = []

    @cache
    def square(value: int, *, twice: bool = False) -> int:
        """Doc."""
        calls.append((value, twice))
        return value * value * (2 if twice else 1)

    assert [square(3), square(3), square(3, twice=True), square(3, twice=True)] == [9, 9, 18, 18]
    assert calls == [(3, False), (3, True)]
    assert (square.__name__, square.__doc__, square.__wrapped__(2)) == ("square", "Doc.", 4)
    square.cache_clear()
    square(3)
    assert calls[-1] == (3, False)
    assert len(calls) == 4


def test_an_exception_is_not_remembered() -> None:
    calls = []

    @cache
    def fragile(value: int) -> int:
        calls.append(value)
        raise ValueError(value)

    for _ in range(2):
        with pytest.raises(ValueError, match="1"):
            fragile(1)
    assert calls == [1, 1]


def test_bounded_keeps_the_newest_results() -> None:
    """Past `size` results the oldest goes first; what is kept is never recomputed."""
    calls: list[int] = []

    @bounded(2)
    def double(value: int) -> int:
        calls.append(value)
        return value * 2

    for value in (1, 2, 1, 3, 1):
        double(value)
    assert calls == [1, 2, 3, 1]  # 1 left when 3 came (it was the oldest stored)


def test_suppress_swallows_only_the_kinds_named() -> None:
    """Named kinds and their subclasses end the block quietly; others pass through."""
    with suppress(OSError, KeyError):
        raise FileNotFoundError
    with suppress(KeyError):
        pass
    with pytest.raises(ValueError, match="through"), suppress(OSError):
        raise ValueError("through")
