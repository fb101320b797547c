"""What the check path takes from `functools` and `contextlib`, without importing them.

`functools` imports `collections` (for the named tuple its caches report with), `contextlib`
imports both, and together they cost a one-shot check about a fifth of what starting Python
costs: for a few remembered results (tables built once, decoders by budget) and a context
manager that swallows an error. These stand in for `functools.cache`, `functools.lru_cache`
(as `bounded`: the oldest result goes first) and `contextlib.suppress`, for functions of
hashable arguments. NOTE: like `frozen.py` for `dataclasses`; `tests/test_startup.py` keeps
`functools` and `contextlib` off the check path.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from types import TracebackType
    from typing import Generic, ParamSpec, Protocol, TypeVar

    P = ParamSpec("P")
    R = TypeVar("R")

    class Remembered(Protocol, Generic[P, R]):
        """A function whose results are remembered by argument."""

        __wrapped__: Callable[P, R]

        def __call__(self, *args: P.args, **kwargs: P.kwargs) -> R:
            """What the function returned for these arguments, the first time."""

        def cache_clear(self) -> None:
            """Forget every result."""


_KEYWORDS = object()  # separates positional from keyword arguments in a key, as functools does


class _Remembered:
    """The wrapper: the function's name and docstring, its results by argument."""

    def __init__(self, function: Callable[..., object], size: int | None) -> None:
        self.__wrapped__ = function
        self.__doc__ = function.__doc__
        self.__module__ = function.__module__
        self.__name__ = function.__name__
        self.__qualname__ = function.__qualname__
        self._results: dict[object, object] = {}
        self._size = size

    def __call__(self, *args: object, **kwargs: object) -> object:
        key = (*args, _KEYWORDS, *kwargs.items()) if kwargs else args
        results = self._results
        try:
            return results[key]
        except KeyError:
            pass
        # NOTE: no lock, and no step that fails when another thread got here first (threads
        # that call a remembered function at once all compute; the first result kept wins).
        # One dict operation each, atomic; `list` takes the keys at once: iterating the dict
        # would fail if another thread changed its size meanwhile, and `del` if it evicted.
        value = results.setdefault(key, self.__wrapped__(*args, **kwargs))
        if self._size is not None and len(results) > self._size:
            keys = list(results)
            for oldest in keys[: len(keys) - self._size]:
                results.pop(oldest, None)
        return value

    def cache_clear(self) -> None:
        self._results.clear()


def cache(function: Callable[P, R]) -> Remembered[P, R]:
    """`functools.cache`: every result kept, by argument."""
    return _Remembered(function, None)  # type: ignore[return-value]


def bounded(size: int) -> Callable[[Callable[P, R]], Remembered[P, R]]:
    """`functools.lru_cache(maxsize=size)`, keeping the `size` newest results."""

    def remember(function: Callable[P, R]) -> Remembered[P, R]:
        return _Remembered(function, size)  # type: ignore[return-value]

    return remember


class suppress:  # noqa: N801 - named as the `contextlib` function it stands in for
    """`contextlib.suppress`: an exception of one of `kinds` ends the block quietly."""

    __slots__ = ("_kinds",)

    def __init__(self, *kinds: type[BaseException]) -> None:
        self._kinds = kinds

    def __enter__(self) -> None:
        return None

    def __exit__(
        self,
        kind: type[BaseException] | None,
        value: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool:
        return kind is not None and issubclass(kind, self._kinds)
