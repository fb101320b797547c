"""The stand-ins for functools' caches and contextlib.suppress behave as those do."""

from __future__ import annotations

import threading
from collections.abc import Iterator

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


def test_threads_calling_at_once_get_one_result() -> None:
    """Two threads that both miss one argument get the same object: the first one kept."""
    both_inside = threading.Barrier(2)

    @cache
    def made(value: int) -> object:
        both_inside.wait(timeout=10)  # both compute before either stores
        return object()

    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(made(1))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(results) == 2
    assert results[0] is results[1] is made(1)


class _EvictingTogether(dict[object, object]):
    """Results whose keys two threads read at once, before either evicts one.

    As they may between two bytecodes (or at any moment without the GIL); both then find
    the same oldest key.
    """

    def __init__(self, *args: object) -> None:
        super().__init__(*args)
        self.together = threading.Barrier(2)

    def __iter__(self) -> Iterator[object]:
        keys = list(super().__iter__())
        self.together.wait(timeout=10)
        return iter(keys)


def test_threads_evicting_at_once_both_get_their_result() -> None:
    """Two threads past the size at once: neither fails evicting what the other evicted."""

    @bounded(1)
    def double(value: int) -> int:
        return value * 2

    double._results = _EvictingTogether({(0,): 0})  # type: ignore[attr-defined]
    results: dict[int, int] = {}
    errors: list[BaseException] = []

    def call(value: int) -> None:
        try:
            results[value] = double(value)
        except Exception as exc:  # noqa: BLE001 - reported below, not lost in the thread
            errors.append(exc)

    threads = [threading.Thread(target=call, args=(value,)) for value in (1, 2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert results == {1: 2, 2: 4}
    assert len(double._results) <= 1  # type: ignore[attr-defined]


def test_suppress_swallows_only_the_kinds_named() -> None:
    """Named kinds and their subclasses end the block quietly; others pass through."""
    with suppress(OSError, KeyError):
        raise FileNotFoundError
    with suppress(KeyError):
        pass
    with pytest.raises(ValueError, match="through"), suppress(OSError):
        raise ValueError("through")
