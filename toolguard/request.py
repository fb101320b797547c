"""The request a response must answer: its id, the caller's context, and the clock.

Built from flags by the CLI or from arguments by the library; everything here is checked up
front so a bad call is a usage error before any response byte is read.
"""

from __future__ import annotations

import os

# NOTE: `_collections_abc`, loaded with the interpreter, not `collections.abc`, whose package
# `collections` costs a one-shot check start-up time (the standard library's `os` does the same).
from _collections_abc import Mapping
from types import MappingProxyType

from toolguard import rfc3339
from toolguard.errors import Rejection, UsageError
from toolguard.files import is_stdin, open_data, open_regular, path_text
from toolguard.frozen import field, frozen
from toolguard.limits import Limits, read_bounded
from toolguard.parse import parse
from toolguard.rfc3339 import datetime

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

# What `is_request_id` and `is_context_key` accept, as regular expressions (for the envelope
# schema and the reader; a test holds the functions to them).
REQUEST_ID_PATTERN = r"[A-Za-z0-9][A-Za-z0-9_.]{7,63}"
CONTEXT_KEY_PATTERN = r"[A-Za-z_][A-Za-z0-9_]{0,63}"
_SCALARS = (str, int, float, bool, type(None))
CONTEXT_LIMITS = Limits(max_bytes=1 << 20, max_depth=4)


def is_request_id(text: str) -> bool:
    """Whether `text` is a request id: the whole of it matches `REQUEST_ID_PATTERN`."""
    # NOTE: by string methods, not a compiled pattern: no regex compile on a check's path.
    # An ASCII string `isalnum` exactly when every character is in [A-Za-z0-9].
    return (
        8 <= len(text) <= 64
        and text.isascii()
        and text[0].isalnum()
        and text.replace("_", "").replace(".", "").isalnum()
    )


def is_context_key(text: str) -> bool:
    """Whether `text` is a context key: the whole of it matches `CONTEXT_KEY_PATTERN`."""
    return (
        1 <= len(text) <= 64
        and text.isascii()
        and (text[0] == "_" or text[0].isalpha())
        and text.replace("_", "a").isalnum()
    )


@frozen
class Request:
    """One call: the id the envelope echoes, context values for rules, and `now` for freshness."""

    request_id: str
    context: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    now: datetime | None = None

    def clock(self) -> datetime:
        """The instant freshness is measured against: `now` if given, else the real clock."""
        return self.now if self.now is not None else rfc3339.now()


def new_request_id() -> str:
    """A random id that matches the envelope's request_id pattern."""
    return f"req.{os.urandom(12).hex()}"  # not `secrets`: 6 ms of start-up for this


def make_request(
    request_id: str | None = None,
    context: Mapping[str, Any] | None = None,
    now: datetime | str | None = None,
) -> Request:
    """Validate the parts of a request, raising `UsageError` for anything malformed."""
    if request_id is None:
        request_id = new_request_id()
    elif not isinstance(request_id, str) or not is_request_id(request_id):
        raise UsageError("request id must match ^[A-Za-z0-9][A-Za-z0-9_.]{7,63}$ (8-64 characters)")
    if context is not None and not isinstance(context, Mapping):
        raise UsageError("context must be a mapping of names to values")
    checked: dict[str, Any] = {}
    for key, value in (context or {}).items():
        if not isinstance(key, str) or not is_context_key(key):
            raise UsageError(f"context key {key!r} is not a valid name")
        if not _context_value(value):
            raise UsageError(
                f"context {key!r} must be a string, number, boolean, null or list of them"
            )
        checked[key] = value
    return Request(request_id, MappingProxyType(checked), _instant(now))


def parse_context_pairs(pairs: tuple[str, ...], file_context: Mapping[str, Any]) -> dict[str, Any]:
    """Merge `K=V` flags (string values, always) into values read from a context file."""
    merged = dict(file_context)
    for pair in pairs:
        key, value = _pair(pair, "--context", "KEY=VALUE")
        if key in merged:
            raise UsageError(f"context {key!r} is given twice")
        merged[key] = value
    return merged


def parse_context_json(pairs: tuple[str, ...], file_context: Mapping[str, Any]) -> dict[str, Any]:
    """Merge `K=JSON` flags (typed values: `n=42`, `ok=true`, `ids=[1,2]`) into file values.

    Each value is read by the same strict parser as responses; a bare word is not JSON
    (`--context-json id=CR-1` is refused: that is `--context id=CR-1`).
    """
    merged = dict(file_context)
    for pair in pairs:
        key, text = _pair(pair, "--context-json", "KEY=JSON")
        try:
            value = parse(text.encode("utf-8", "surrogateescape"), CONTEXT_LIMITS)
        except Rejection as exc:
            raise UsageError(f"--context-json {key}: not strict JSON: {exc.message}") from None
        if key in merged:
            raise UsageError(f"context {key!r} is given twice")
        merged[key] = value
    return merged


def _pair(pair: str, flag: str, shape: str) -> tuple[str, str]:
    key, sep, value = pair.partition("=")
    if not sep:
        raise UsageError(f"{flag} expects {shape}, got {pair!r}")
    return key, value


def read_context_file(path: Path | str, *, regular: bool = False) -> dict[str, Any]:
    """Read a JSON object of context values with the same strict parser as responses.

    `-` reads it from standard input. With `regular` (a fixture's, part of a tree of files
    like a contract's), anything but a regular file is refused, as `open_regular` refuses.
    """
    shown = "standard input" if is_stdin(path) and not regular else path_text(path)
    try:
        with open_regular(path) if regular else open_data(path) as stream:
            raw = read_bounded(stream, CONTEXT_LIMITS.max_bytes)
        value = parse(raw, CONTEXT_LIMITS)
    except OSError as exc:
        raise UsageError(f"{shown}: cannot read context file: {exc.strerror}") from None
    except Rejection as exc:
        # NOTE: imported here, off the check path: only a refused context file needs it.
        from toolguard.file_encoding import encoding_problem  # noqa: PLC0415

        if exc.reason in {"bom", "invalid_utf8"} and (why := encoding_problem(raw)):
            raise UsageError(f"{shown}: context file {why}") from None
        raise UsageError(f"{shown}: context file is not strict JSON: {exc.message}") from None
    if not isinstance(value, dict):
        raise UsageError(f"{shown}: context file must hold a JSON object")
    return value


def _context_value(value: Any) -> bool:
    if isinstance(value, list):
        return all(isinstance(item, _SCALARS) for item in value)
    return isinstance(value, _SCALARS)


def _instant(now: datetime | str | None) -> datetime | None:
    if now is None or isinstance(now, datetime):
        if isinstance(now, datetime) and now.tzinfo is None:
            raise UsageError("now must carry a UTC offset")
        return now
    if not isinstance(now, str):
        raise UsageError("now must be an aware datetime or an RFC 3339 string")
    bounds = rfc3339.instant_bounds(now)
    if bounds is None:
        raise UsageError(f"--now must be an RFC 3339 date-time with an offset, not {now!r}")
    earliest, latest = bounds
    if earliest != latest:  # a clock is read to the microsecond: a finer `now` is not rounded
        raise UsageError(f"now (--now) must not be finer than a microsecond, not {now!r}")
    return earliest
