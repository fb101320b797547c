"""JSON in and out on CPython's `_json` accelerator, without importing the `json` package.

`json` imports `re` and compiles five patterns as it loads, and `re` brings `enum`, `functools`
and `collections`: together about half of what starting Python costs, on every one-shot check.
The work itself is `_json`'s either way: `json.JSONDecoder` and `json.JSONEncoder` are thin
shells around `_json.make_scanner` and `_json.make_encoder`, rebuilt here with the same
arguments, so the values read and the text written are the same (a differential test holds
them to it). Where `_json` lacks them (another interpreter), `json`'s own classes do the work.

Errors: `Decoder.decode` raises `ValueError` for anything that is not one JSON text: the
accelerator's `JSONDecodeError` (CPython 3.12 on imports `json.decoder` to build it, on that
path only), or a plain one where CPython 3.11's accelerator cannot build it (see `decode`).
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Any

try:
    import _json
except ImportError:  # pragma: no cover - CPython always has it
    _json = None  # type: ignore[assignment]
# NOTE: typed as what they are called with here (typeshed's stubs name them as classes).
_make_scanner: Any = getattr(_json, "make_scanner", None)
_make_encoder: Any = getattr(_json, "make_encoder", None)
_ascii_strings: Any = getattr(_json, "encode_basestring_ascii", None)

_WHITESPACE = " \t\n\r"  # JSON's, as `json.decoder.WHITESPACE` reads it


class Decoder:
    """`json.JSONDecoder(...).decode` with the same hooks; `strict` (no raw control character)."""

    __slots__ = (
        "_scan",
        "memo",
        "object_hook",
        "object_pairs_hook",
        "parse_constant",
        "parse_float",
        "parse_int",
        "strict",
    )

    def __init__(
        self,
        *,
        object_hook: Callable[[dict[str, Any]], Any] | None = None,
        object_pairs_hook: Callable[[list[tuple[str, Any]]], Any] | None = None,
        parse_constant: Callable[[str], Any] | None = None,
        parse_int: Callable[[str], Any] | None = None,
        parse_float: Callable[[str], Any] | None = None,
    ) -> None:
        # NOTE: the attributes `_json.make_scanner` reads from its context, as JSONDecoder's.
        self.strict = True
        self.object_hook = object_hook
        self.object_pairs_hook = object_pairs_hook
        self.parse_constant = parse_constant or _CONSTANTS.__getitem__
        self.parse_int = parse_int or int
        self.parse_float = parse_float or float
        self.memo: dict[str, str] = {}
        if _make_scanner is None:  # pragma: no cover
            from json.scanner import make_scanner  # noqa: PLC0415 - only where `_json` is not

            self._scan = make_scanner(self)  # type: ignore[arg-type]  # JSONDecoder's context
        else:
            self._scan = _make_scanner(self)

    def decode(self, text: str) -> Any:
        """The one value `text` holds, white space around it allowed; else `ValueError`."""
        start = len(text) - len(text.lstrip(_WHITESPACE))
        try:
            value, end = self._scan(text, start)
        except StopIteration:
            raise ValueError("no JSON value") from None
        except SystemError:
            # NOTE: CPython 3.11's scanner raises its syntax errors as `json.decoder`'s
            # exception, looked up in `sys.modules` only: where `json` was never imported (a
            # one-shot check), it fails with a SystemError instead, every message lost.
            raise ValueError("not JSON") from None
        if end < len(text) and text[end:].lstrip(_WHITESPACE):
            raise ValueError("extra data after the JSON value")
        return value


_CONSTANTS = {"NaN": float("nan"), "Infinity": float("inf"), "-Infinity": float("-inf")}


def encoder() -> Callable[[Any], str]:
    """`json.JSONEncoder(separators=(",", ":")).encode`: compact ASCII JSON text of a value."""
    if _make_encoder is None:  # pragma: no cover
        import json  # noqa: PLC0415 - only where `_json` is missing

        return json.JSONEncoder(separators=(",", ":")).encode
    strings = _ascii_strings

    def encode(value: Any) -> str:
        if isinstance(value, str):
            return strings(value)  # type: ignore[no-any-return]
        # NOTE: a fresh encoder, and so a fresh circular-reference record, per value, as
        # `JSONEncoder.iterencode` builds one per call: one left by a failed call never lingers.
        # no indent, compact separators; sort_keys, skipkeys, allow_nan as json's defaults
        chunks = _make_encoder({}, _unserialisable, strings, None, ":", ",", False, False, True)
        return "".join(chunks(value, 0))

    return encode


def _unserialisable(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


loads = Decoder().decode
dumps = encoder()
