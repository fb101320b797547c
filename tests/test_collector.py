"""Parses pause the cyclic collector and always give it back: across threads and forks."""

from __future__ import annotations

import contextlib
import gc
import os
import signal
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from toolguard import fast_parse
from toolguard import parse as parse_module
from toolguard.errors import ParseError
from toolguard.limits import Limits
from toolguard.parse import parse

LIMITS = Limits()
SMALL = b'{"a": [1, 2, 3]}'  # accepted on the fast path
REPEATED = b'{"a": 1, "a": 2}'  # the fast path defers; the strict path rejects it
WAIT = 10  # seconds: a bound on a handshake that always completes, never a timing


@pytest.fixture(autouse=True)
def collecting() -> Iterator[None]:
    """Each test starts with the collector on and leaves it as it found it."""
    was = gc.isenabled()
    gc.enable()
    fast_parse._decoder.cache_clear()  # decoders hold the hooks patched below
    yield
    fast_parse._decoder.cache_clear()
    if not was:
        gc.disable()


class _Inside:
    """Holds thread A inside its parse (collector paused) until released."""

    def __init__(self) -> None:
        self.thread: threading.Thread | None = None
        self.entered = threading.Event()
        self.release = threading.Event()

    def hold(self) -> None:
        if threading.current_thread() is self.thread:
            self.entered.set()
            assert self.release.wait(WAIT)


def _hold_on_fast_path(inside: _Inside, monkeypatch: pytest.MonkeyPatch) -> bytes:
    real = fast_parse._object

    def pairs(items: list[tuple[str, Any]]) -> dict[str, Any]:
        inside.hold()
        return real(items)

    monkeypatch.setattr(fast_parse, "_object", pairs)
    return SMALL


def _hold_on_strict_path(inside: _Inside, monkeypatch: pytest.MonkeyPatch) -> bytes:
    real = parse_module._events

    def events(*args: Any) -> Iterator[Any]:
        inside.hold()
        yield from real(*args)

    monkeypatch.setattr(parse_module, "_events", events)
    return REPEATED


def _parse(raw: bytes) -> None:
    with contextlib.suppress(ParseError):  # REPEATED: rejected, as it should be
        parse(raw, LIMITS)


Hold = Callable[[_Inside, pytest.MonkeyPatch], bytes]
PATHS = [
    pytest.param(_hold_on_fast_path, id="fast path"),
    pytest.param(_hold_on_strict_path, id="strict path"),
]


@pytest.mark.parametrize("hold", PATHS)
def test_a_parse_overlapping_another_never_leaves_the_collector_off(
    hold: Hold, monkeypatch: pytest.MonkeyPatch
) -> None:
    """B starts while A has paused the collector, and A ends first: the collector is on after."""
    inside = _Inside()
    raw = hold(inside, monkeypatch)
    # B has read the collector's state, or finished without reading it (it was paused).
    b_went_on, a_done = threading.Event(), threading.Event()
    real_isenabled = gc.isenabled

    def isenabled() -> bool:
        # NOTE: the interleaving that lost the collector: B reads "off" (A's pause), A then
        # turns it back on, and only then does B turn it off, with nothing left to resume it.
        enabled = real_isenabled()
        if threading.current_thread() is b:
            b_went_on.set()
            a_done.wait(WAIT)
        return enabled

    def run_a() -> None:
        _parse(raw)
        a_done.set()

    def run_b() -> None:
        _parse(raw)
        b_went_on.set()

    a = inside.thread = threading.Thread(target=run_a)
    b = threading.Thread(target=run_b)
    monkeypatch.setattr(gc, "isenabled", isenabled)
    a.start()
    assert inside.entered.wait(WAIT)
    b.start()
    assert b_went_on.wait(WAIT)
    inside.release.set()
    a.join(WAIT)
    b.join(WAIT)
    monkeypatch.undo()
    assert not a.is_alive()
    assert not b.is_alive()
    assert gc.isenabled()


@pytest.mark.parametrize("hold", PATHS)
def test_a_child_forked_while_a_parse_has_paused_the_collector_gets_it_back(
    hold: Hold, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The parse that paused it is not in the child: its collector is on, and it parses."""
    inside = _Inside()
    raw = hold(inside, monkeypatch)
    a = inside.thread = threading.Thread(target=_parse, args=(raw,))
    a.start()
    try:
        assert inside.entered.wait(WAIT)
        assert not gc.isenabled()  # paused by A
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads
            child = os.fork()
        if child == 0:  # pragma: no cover - the child reports through its exit status
            signal.alarm(WAIT)  # a parse stuck on a lock taken in the parent ends the child
            status = 0 if gc.isenabled() else 1
            parse(SMALL, LIMITS)
            os._exit(status if gc.isenabled() else 2)
        _, status = os.waitpid(child, 0)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        inside.release.set()
        a.join(WAIT)
    assert gc.isenabled()
