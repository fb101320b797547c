"""Red-team regressions for the strict parser: problems a fuzzing pass found in `parse`."""

from __future__ import annotations

import _locale
from typing import Any

import pytest

import toolguard.parse
from toolguard.errors import Rejection
from toolguard.limits import Limits
from toolguard.parse import parse


class _CountingParser:
    """Wraps yajl's push parser to count the chunks fed to it."""

    def __init__(self, inner: Any, sends: list[int]) -> None:
        self.inner = inner
        self.sends = sends

    def send(self, chunk: bytes) -> None:
        self.sends.append(len(chunk))
        self.inner.send(chunk)

    def close(self) -> None:
        self.inner.close()


def test_offset_replay_stops_at_its_budget_even_inside_a_long_token(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Once the replay has re-read its budget, not one more byte is fed (each may re-read 1 MB)."""
    sends: list[int] = []
    real = toolguard.parse._YAJL

    class Backend:
        @staticmethod
        def basic_parse_coro(sink: Any, **config: Any) -> _CountingParser:
            return _CountingParser(real.basic_parse_coro(sink, **config), sends)

    monkeypatch.setattr(toolguard.parse, "_YAJL", Backend)
    monkeypatch.setattr(toolguard.parse, "REPLAY_BUDGET", 100)  # 1 + 2 + ... + 14 > 100
    with pytest.raises(Rejection) as caught:
        parse(b"[1." + b"0" * 5_000 + b"x]")
    assert "between bytes" in caught.value.message
    single_bytes_after_first_run = sends[sends.index(1) :] if 1 in sends else []
    assert len(single_bytes_after_first_run) <= 14


def test_comma_decimal_locale_is_never_misread(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under a locale whose decimal point is ',', yajl's strtod would read 1.5 as 1: refuse.

    The fast path reads numbers with Python's parser, which ignores the locale; a document
    that needs the strict path (here a duplicate member) is refused, never misread.
    """
    # NOTE: the strict path imports `localeconv` when it runs (from `_locale`, the C module
    # `locale` wraps), so the module's is replaced.
    monkeypatch.setattr(_locale, "localeconv", lambda: {"decimal_point": ","})
    assert parse(b"[1.5]", Limits()) == [1.5]
    with pytest.raises(RuntimeError, match="decimal point"):
        parse(b'{"a": 1.5, "a": 2.5}', Limits())
    monkeypatch.undo()
    assert _locale.localeconv()["decimal_point"] == "."
