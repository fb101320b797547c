"""Patterns run on response data, in time linear in the input: RE2 behind one small class.

Python's `re` backtracks: `^(a|a){1,64}$` holds it for seconds on 26 bytes and for hours on
35. RE2 (the `google-re2` package) runs a lazily built DFA, or a Pike VM where the DFA would
outgrow its memory, so a match costs at most (input length x program size) steps whatever the
pattern's ambiguity, and the same bytes always get the same answer (no time budget). Every
pattern toolguard runs on response data goes through `Matcher`: a schema's `pattern` and
`patternProperties`, `[text]` line and header patterns, `matches_context_pattern`. Its source
is RE2 syntax made by a translator (`regex.py` from ECMA-262, `python_regex.py` from Python's
syntax), never text a user wrote; `refusal` says why RE2 cannot run one within our bounds.

`re2` is imported when a pattern is first compiled or matched, never for a contract without one.
"""

from __future__ import annotations

from toolguard.errors import SchemaError
from toolguard.schema.plain_match import plain

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# NOTE: RE2's program (its compiled automaton) bounds the work per input byte: about 2.5 ns
# per instruction alive once a pattern built for it defeats the DFA (benchmarks/patterns.py),
# so 10,000 keeps the worst 64 KiB of ASCII near 2 s. `[a-z0-9-]{1,63}` needs 253, `.{1,255}`
# 5,611, `\p{L}{1,64}` 74,692 (refused: `\p{L}+` with maxLength says the same in 1,169).
MAX_PROGRAM_SIZE = 10_000
# NOTE: RE2's default: the most one pattern's program and DFA cache may use. Past it the DFA
# is flushed, then RE2 falls back to its Pike VM: slower, never wrong, still linear.
_MAX_MEMORY = 8 << 20
# How a match may lie in the text: whole text (True), anywhere (False), or from its start
# ("start"); filled with re2's import.
_ANCHOR: dict[bool | str, Any] = {}


class UnmatchableText(ValueError):
    """Raised for a string holding a lone surrogate: RE2 matches UTF-8, which cannot hold one.

    Parsed JSON and strict UTF-8 text never hold one; a library caller's `str` may. Whoever
    matches answers as for a string that fails (fail closed), never as for one that passes.
    """


class Matcher:
    """One RE2 pattern, compiled on first use; `search`, `fullmatch` and `groups` run it.

    A plain pattern (`plain_match.py`: anchored runs of ASCII sets) answers ASCII text without
    RE2, exactly as RE2 would, so a contract whose patterns are all identifiers never loads it.
    """

    __slots__ = ("_compiled", "_plain", "_searcher", "source")

    def __init__(self, source: str) -> None:
        self.source = source  # RE2 syntax, ASCII (every other code point is escaped)
        self._compiled: Any = None
        self._searcher: tuple[Any, Any] | None = None  # what `search` runs, see `_compile_search`
        self._plain = plain(source)

    def search(self, text: str) -> bool:
        """Whether the pattern matches anywhere in `text` (how JSON Schema applies `pattern`).

        NOTE: it runs once per string of a large document: RE2 is called here directly.
        """
        if self._plain is not None and text.isascii():
            return self._plain.search(text)
        compiled, anchor = self._searcher or self._compile_search()
        try:
            data = text.encode()  # NOTE: `_utf8` inlined: a call costs a tenth of a search
        except UnicodeEncodeError:
            _utf8(text)  # raises `UnmatchableText`
            raise
        return compiled.Match(anchor, data, 0, len(data))[0][0] >= 0  # type: ignore[no-any-return]

    def fullmatch(self, text: str) -> bool:
        """Whether the pattern matches the whole of `text`."""
        if self._plain is not None and text.isascii():
            return self._plain.fullmatch(text)
        return self._match(_utf8(text), anchored=True) is not None

    def groups(self, text: str) -> tuple[str | None, ...] | None:
        """The groups of a match of the whole of `text`, or None if it does not match.

        A group that took no part in the match is None.
        """
        data = _utf8(text)
        spans = self._match(data, anchored=True)
        if spans is None:
            return None
        return tuple(data[start:end].decode() if start >= 0 else None for start, end in spans[1:])

    def _match(self, data: bytes, *, anchored: bool) -> list[tuple[int, int]] | None:
        compiled = self._compiled or self._compile()
        spans: list[tuple[int, int]] = compiled.Match(_ANCHOR[anchored], data, 0, len(data))
        return None if spans[0][0] < 0 else spans

    def _compile(self) -> Any:
        try:
            self._compiled = _compile(self.source)
        except _Refused as exc:  # NOTE: unreachable for a source `refusal` passed
            raise SchemaError(f"pattern {self.source!r} {exc}") from None
        return self._compiled

    def _compile_search(self) -> tuple[Any, Any]:
        r"""The program `search` runs and its anchor: the source unanchored, as a rule.

        NOTE: RE2's unanchored search may start a match at any byte, inside a character's UTF-8
        sequence too, where `\B` holds (two non-word bytes) though ECMA-262 never looks there:
        `\B` alone matched "aé1", which has a word boundary at every character boundary. A
        source with `\B` is searched as `(?s:.)*?(?:source)` anchored at the start instead:
        the prefix consumes whole characters, so every try starts on a character boundary.
        """
        if not _asserts_non_boundary(self.source):
            self._searcher = (self._compiled or self._compile(), _ANCHOR[False])
            return self._searcher
        try:
            compiled = _compile(_aligned(self.source))
        except _Refused as exc:  # NOTE: unreachable for a source `refusal` passed
            raise SchemaError(f"pattern {self.source!r} {exc}") from None
        self._searcher = (compiled, _ANCHOR["start"])
        return self._searcher

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Matcher) and other.source == self.source

    def __hash__(self) -> int:
        return hash(self.source)

    def __repr__(self) -> str:
        return f"Matcher({self.source!r})"


def refusal(source: str) -> str | None:
    """Why RE2 cannot run `source` within toolguard's bounds, or None if it can.

    Deterministic: the same source, options and re2 always give the same answer.
    """
    try:
        compiled = _compile(_aligned(source) if _asserts_non_boundary(source) else source)
    except _Refused as exc:
        return str(exc)
    size: int = compiled.ProgramSize()
    if size > MAX_PROGRAM_SIZE:
        return (
            f"compiles to {size:,} RE2 instructions, over the {MAX_PROGRAM_SIZE:,} toolguard runs "
            "(matching time grows with both the input and the program: a large class or a long "
            "counted repetition; bound the length with minLength/maxLength instead)"
        )
    return None


class _Refused(Exception):
    """RE2 refused the pattern; the message is RE2's reason, with a hint where it helps."""


def _compile(source: str) -> Any:
    """The RE2 object for `source`, or `_Refused`.

    NOTE: `re2._re2` is the binding the public `re2` module itself wraps: its generator-based
    `search` costs ~5.7 us a call against ~0.8 us here, and its module-wide cache would keep
    up to 128 patterns (8 MiB each) alive in `serve`; ours live as long as their contract.
    """
    import re2  # noqa: PLC0415 - only when a pattern is compiled (see the module docstring)
    from re2 import _re2  # noqa: PLC0415

    _ANCHOR[True], _ANCHOR[False] = _re2.RE2.Anchor.ANCHOR_BOTH, _re2.RE2.Anchor.UNANCHORED
    _ANCHOR["start"] = _re2.RE2.Anchor.ANCHOR_START
    options = re2.Options()
    options.log_errors = False  # RE2 would print its own message on stderr
    options.max_mem = _MAX_MEMORY
    compiled = _re2.RE2(source.encode("ascii"), options)
    if not compiled.ok():
        reason = compiled.error()
        reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
        if reason.startswith(("invalid repetition size", "bad repetition operator: {")):
            reason += (
                " (RE2 repeats at most 1000 times, nested counted repetitions 1000 in all:"
                " bound the length with minLength/maxLength instead)"
            )
        raise _Refused(f"cannot be run by RE2: {reason}")
    return compiled


def _asserts_non_boundary(source: str) -> bool:
    r"""Whether the RE2 `source` holds the assertion `\B` (not an escaped backslash, then B)."""
    at = source.find("\\")
    while at >= 0:
        if source.startswith("B", at + 1):
            return True
        at = source.find("\\", at + 2)  # NOTE: skip the escaped character, a backslash too
    return False


def _aligned(source: str) -> str:
    """`source` behind a lazy prefix of whole characters (see `Matcher._compile_search`).

    Run anchored at the start, it is a search whose every try starts on a character boundary.
    """
    return f"(?s:.)*?(?:{source})"


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        raise UnmatchableText(
            "the string holds a lone surrogate, which no pattern matches"
        ) from None
