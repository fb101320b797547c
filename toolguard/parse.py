"""Strict parse: bounded bytes -> one JSON value, or a `ParseError` / `LimitExceeded`.

yajl (through `ijson.basic_parse_coro`) tokenizes; our own builder makes the values, so depth,
string, container and integer budgets are enforced event by event (`ijson.items` would cost
memory quadratic in depth). On top of RFC 8259 the policy rejects duplicate member names (after
unescaping), a byte-order mark, lone or reversed surrogate escapes, and numbers the delivered
value would misrepresent (integers beyond the budget or 64 bits; float tokens that overflow,
underflow to zero or hold more than 17 significant digits: see `number.py`). Floats are
`float` (an `ExactFloat` where the schema engine needs the decimal written), never `Decimal`.
A C-speed path in front (`fast_parse.py`) returns the same value for documents it can prove
acceptable and defers every other one to this parser; ijson is imported only when needed.
"""

from __future__ import annotations

import codecs

from toolguard import collector
from toolguard.errors import BrokenInstall, LimitExceeded, ParseError, Rejection
from toolguard.fast_parse import DEFER, accept, screened_for_size
from toolguard.limits import Limits
from toolguard.number import SHORT_TOKEN, float_reader, short_decimals_are_floats

TYPE_CHECKING = False  # NOTE: not `typing`'s: a one-shot check never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any, NoReturn

# yajl tokenizes a whole chunk before we see its events, so chunks start small to keep an
# abort immediate. NOTE: yajl re-reads a token that spans chunks from its start on every
# chunk, so while a chunk yields no event (we are inside one long token) the next chunk
# doubles: the total work stays linear instead of quadratic in the token's length.
CHUNK = 1024
# The offset replay's budget (`_located`), in bytes yajl re-reads (under 0.1 s here). NOTE: not
# in seconds: the same bytes must always get the same diagnostics, whatever the machine's load.
REPLAY_BUDGET = 16_000_000
_JSON_WHITESPACE = b" \t\n\r"
_BOM = b"\xef\xbb\xbf"
# A cheap test for "any surrogate escape at all" (and a few more): the exact scan below only
# runs when it hits. NOTE: two memory scans, not a regex, unless the document is screened
# (which imports `re`): a check of an agent-sized answer never needs `re` otherwise.
_SURROGATE_HINTS = (b"\\ud", b"\\uD")
_SURROGATE_HINT = rb"\\u[dD]"  # the same, as one pattern
_ESCAPE = rb"\\(?:u([0-9a-fA-F]{4})|[\s\S])"  # compiled on use: a surrogate escape is rare
# The offset replay's runs of inert bytes (`_Replay`), each kind's, looked for once `_QUIET`
# bytes have passed without an event.
_IN_STRING, _IN_WHITESPACE, _IN_DIGITS = 0, 1, 2
# A string's run takes in valid escapes: yajl checks an escape as it reads it, so only an
# invalid one can fail.
_INERT = (
    rb'(?:[^"\\\x00-\x1f]|\\["\\/bfnrt]|\\u[0-9a-fA-F]{4})*+',
    rb"[ \t\n\r]*+",
    rb"[0-9]*+",
)
_QUIET = 16
# `_certain_rejection`: digits as `0`, anything else as `a`; an integer token must end within
# `_CERTAIN_INTEGER_END` bytes, where the replay surely locates it within its budget.
_DIGIT_SHAPES = bytes.maketrans(
    bytes(range(256)), bytes(48 if 48 <= b <= 57 else 97 for b in range(256))
)
_INT64_DIGITS, _INT64_MAX = 19, 2**63 - 1
_CERTAIN_INTEGER_END = 200_000
_FLOAT_MARKS = (b".", b"e", b"E")
_BEYOND_64_BITS = "integer does not fit in 64 bits"
_NON_FINITE = (b"NaN", b"Infinity", b"-Infinity")
# yajl skips form feed and vertical tab as whitespace; JSON allows them nowhere (a raw one inside
# a string is a control character), so any such byte is an error wherever it stands.
_NOT_WHITESPACE = (b"\x0b", b"\x0c")
_DEFAULT_LIMITS = Limits()
_INCOMPLETE: Any = object()
# The next float token (a fraction or an exponent) at or after a position outside any string,
# in a text whose escaped quotes and backslashes are masked (so a string is `"[^"]*"`): strings
# and integer tokens are skipped whole. Possessive throughout, so a match costs time linear in
# what it skips, whatever follows.
_MAX_EXPONENTS = 256
_AS_READ: Any = object()  # `_float_tokens`: every float is as yajl read it
# Characters of number tokens: `0` for a digit, sign or point, `e` for an exponent mark.
_NUMBER_CHARACTERS = bytes.maketrans(
    bytes(range(256)),
    bytes(
        ord("0") if chr(byte) in "0123456789.-+" else ord("e") if chr(byte) in "eE" else ord("a")
        for byte in range(256)
    ),
)
# NOTE: compiled on use (`re` keeps it): the strict path is rare, and this compile costs a
# one-shot check a third of a millisecond at import.
_NEXT_FLOAT_TOKEN = (
    r'(?:[^"\-0-9]++|"[^"]*+"|-?+(?:0|[1-9][0-9]*+)(?![.eE]))*+'
    r"(-?+(?:0|[1-9][0-9]*+)(?:\.[0-9]++(?:[eE][-+]?+[0-9]++)?+|[eE][-+]?+[0-9]++))"
)


class _LazyBackend:
    """ijson's yajl2_c backend, imported on first use: ijson's import costs start-up time."""

    def __getattr__(self, name: str) -> Any:
        import ijson  # noqa: PLC0415 - deferred: most documents never reach the strict path

        try:
            backend = ijson.get_backend("yajl2_c")
        except ImportError:
            raise BrokenInstall(_missing_yajl(ijson.__version__)) from None
        return getattr(backend, name)


def _missing_yajl(version: str) -> str:
    """What to do when ijson `version` came without its C extension.

    NOTE: pip installs ijson without it where it has no wheel for the Python and no compiler
    builds one (ijson 3.2.3 on Python 3.13: hence the floors in pyproject.toml).
    """
    return (
        f"ijson {version} has no yajl2_c backend (its C extension), which toolguard's strict "
        "parser needs: reinstall ijson from a wheel: "
        "pip install --force-reinstall --only-binary ijson 'ijson>=3.4'"
    )


# NOTE: the workarounds below are for yajl's behaviour (and its error messages); the pure
# Python backend differs (it accepts -2**63, names overflow otherwise), so yajl is required.
_YAJL: Any = _LazyBackend()


def parse(raw: bytes, limits: Limits = _DEFAULT_LIMITS) -> Any:
    """Parse `raw` as exactly one strict JSON document within `limits`.

    Raises `ParseError` or `LimitExceeded` whose `offset` is the byte at which the problem was
    seen (for a token, the byte that ended it).
    """
    text = _admit(raw, limits)
    value = accept(raw, text, limits)
    if value is not DEFER:
        return value
    if (certain := _certain_rejection(raw, limits)) is not None:
        raise certain
    return _strict(raw, limits)


def _strict_parse(raw: bytes, limits: Limits = _DEFAULT_LIMITS) -> Any:
    """`parse` without the fast path: the reference the differential tests compare it with."""
    _admit(raw, limits)
    return _strict(raw, limits)


def _admit(raw: bytes, limits: Limits) -> str | None:
    """The checks before any parse; returns the decoded text if decoding was needed."""
    if len(raw) > limits.max_bytes:
        raise LimitExceeded(
            "too_large",
            f"response is larger than max_bytes={limits.max_bytes}",
            offset=limits.max_bytes,
        )
    return _check_encoding(raw, screened=screened_for_size(raw, limits))


def _certain_rejection(raw: bytes, limits: Limits) -> Rejection | None:
    """The usual two attacks, rejected as the strict parser would, without importing ijson.

    A container opened deeper than `max_depth`, or an integer beyond 64 bits, that starts in
    the first chunk: the strict parser names it, with its offset, when everything before it
    is acceptable, and the fast path vouches for that part once it is closed with a value and
    the brackets left open. Any other document, or doubt, is None: the strict parser decides.
    NOTE: ijson's import is 13 ms of a one-shot check, as much as all the rest of it.
    """
    head = raw[:CHUNK]
    if head.count(b"[") + head.count(b"{") <= limits.max_depth and (
        b"0" * _INT64_DIGITS not in raw[: CHUNK + _INT64_DIGITS].translate(_DIGIT_SHAPES)
    ):
        return None
    found = _first_certain(raw, limits.max_depth)
    if found is None:
        return None
    start, closers, rejection = found
    if accept(raw[:start] + b" 0" + closers, None, limits) is DEFER:
        return None
    return rejection


def _first_certain(raw: bytes, max_depth: int) -> tuple[int, bytes, Rejection] | None:
    """The first container too deep or integer beyond 64 bits that starts in the first chunk.

    Where it starts, the brackets open there (closing ones, innermost first), its rejection;
    None if a float token or anything unexpected comes first.
    """
    closers = bytearray()
    shapes = b""
    in_string = escaped = False
    at = 0
    while at < min(len(raw), CHUNK):
        byte = raw[at]
        if in_string:
            if escaped:
                escaped = False
            elif byte == 0x5C:  # a backslash
                escaped = True
            elif byte == 0x22:
                in_string = False
        elif byte == 0x22:
            in_string = True
        elif byte in b"[{":
            if len(closers) == max_depth:
                return at, bytes(reversed(closers)), _too_deep(max_depth, at)
            closers.append(0x5D if byte == 0x5B else 0x7D)
        elif byte in b"]}":
            if not closers:
                return None
            closers.pop()
        elif byte in b"-0123456789":
            shapes = shapes or raw[:_CERTAIN_INTEGER_END].translate(_DIGIT_SHAPES)
            first = at + (byte == 0x2D)
            end = shapes.find(b"a", first)
            if end < 0 and len(raw) > len(shapes):
                return None  # NOTE: beyond what the replay locates within its budget
            end = len(raw) if end < 0 else end
            digits = raw[first:end]
            if not digits or raw[end : end + 1] in _FLOAT_MARKS:
                return None  # a float, or no number: the strict parser reads it
            if len(digits) > 1 and digits[0] == 0x30:
                return None  # a leading zero: two tokens
            if len(digits) > _INT64_DIGITS or (
                len(digits) == _INT64_DIGITS and int(digits) > _INT64_MAX
            ):
                rejection = LimitExceeded("integer_too_long", _BEYOND_64_BITS, offset=end)
                return at, bytes(reversed(closers)), rejection
            at = end
            continue
        at += 1
    return None


def _too_deep(max_depth: int, offset: int | None = None) -> LimitExceeded:
    return LimitExceeded("too_deep", f"nesting deeper than max_depth={max_depth}", offset=offset)


def _strict(raw: bytes, limits: Limits) -> Any:
    """The strict path: yajl events, our builder; a rejection gets its exact offset by replay."""
    try:  # NOTE: `locale` wraps this and imports `re` (with `enum`, `functools`): 7 ms
        from _locale import localeconv  # noqa: PLC0415 - the strict path only
    except ImportError:  # pragma: no cover - an interpreter without `_locale`
        from locale import localeconv  # noqa: PLC0415

    if localeconv()["decimal_point"] != ".":
        # NOTE: yajl reads floats with C strtod, which follows LC_NUMERIC: under a comma
        # locale "1.5" would silently become 1.0. Refuse to parse rather than guess. (The
        # fast path reads numbers with Python's own parser, which ignores the locale.)
        raise RuntimeError("LC_NUMERIC must use '.' as decimal point for yajl to read floats")
    window = [0, 0]
    # NOTE: as on the fast path, no collection while the value grows: it holds no cycle, and
    # each pass would walk all of it again (a third of the time of a late rejection).
    paused = collector.pause()
    try:
        return _build(_events(raw, window), limits, raw)
    except Rejection as rejection:
        if rejection.offset is None:
            # NOTE: its traceback holds the first run's frames, and so all that run built:
            # let it go before the replay builds again.
            rejection.__traceback__ = None
            raise _located(rejection, raw, window, limits) from None
        raise
    finally:
        collector.resume(paused)


def _check_encoding(raw: bytes, *, screened: bool) -> str | None:
    """Reject what yajl would accept or mangle: BOM, bad UTF-8, unpaired surrogate escapes.

    Returns the decoded text of non-ASCII input (so that it is decoded once), else None.
    `screened`: the fast path will screen `raw` (`fast_parse.screened_for_size`).
    """
    text = None
    if not raw.strip(_JSON_WHITESPACE):
        raise ParseError("empty", "response is empty", offset=0)
    if raw.startswith(_BOM):
        raise ParseError("bom", "response starts with a UTF-8 byte-order mark", offset=0)
    if not raw.isascii():
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(
                "invalid_utf8", "response is not valid UTF-8", offset=exc.start
            ) from None
    for stray in _NOT_WHITESPACE:
        # NOTE: bytes.find is a memchr; a regex class search is ~100x slower on large input.
        if (offset := raw.find(stray)) >= 0:
            raise ParseError("syntax", "raw form feed or vertical tab (not JSON)", offset=offset)
    if _surrogate_hint(raw, screened):
        _check_surrogate_escapes(raw)
    return text


def _surrogate_hint(raw: bytes, screened: bool) -> bool:
    """Whether `raw` may hold a surrogate escape (`_SURROGATE_HINTS`).

    NOTE: a document the fast path screens is searched with one pattern, whose scan skips
    from backslash to backslash: the two substring searches took 14 ms of 10 MB, the pattern
    3 ms. Only there: the screen imports `re` anyway, and importing it costs a one-shot check
    8 ms, what the pattern saves on several MB.
    """
    if b"\\" not in raw:
        return False  # NOTE: one memchr (most answers hold no escape; nor does a nesting attack)
    if not screened:
        # NOTE: no generator, and `\\u` first (escaped quotes are commoner): every parse
        # runs this, twice per `serve` request.
        low, upper = _SURROGATE_HINTS
        return b"\\u" in raw and (low in raw or upper in raw)
    import re  # noqa: PLC0415 - screened documents only

    return re.search(_SURROGATE_HINT, raw) is not None


def _check_surrogate_escapes(raw: bytes) -> None:
    r"""Every `\uD800`-`\uDBFF` escape must be followed at once by a `\uDC00`-`\uDFFF` one.

    NOTE: yajl turns a lone high surrogate into "?" and fails oddly on a reversed pair, so the
    check runs on the raw bytes. Escapes are matched left to right, so `\\ud800` (an escaped
    backslash, then text) is not mistaken for an escape.
    """
    import re  # noqa: PLC0415 - only for a document with a surrogate escape

    pending_start = pending_end = -1
    for match in re.finditer(_ESCAPE, raw):
        digits = match.group(1)
        unit = int(digits, 16) if digits else -1
        if pending_end >= 0:
            if match.start() == pending_end and 0xDC00 <= unit <= 0xDFFF:
                pending_start = pending_end = -1
                continue
            _lone_surrogate(pending_start)
        if 0xD800 <= unit <= 0xDBFF:
            pending_start, pending_end = match.start(), match.end()
        elif 0xDC00 <= unit <= 0xDFFF:
            _lone_surrogate(match.start())
    if pending_end >= 0:
        _lone_surrogate(pending_start)


def _lone_surrogate(offset: int) -> NoReturn:
    raise ParseError("lone_surrogate", "string holds an unpaired surrogate escape", offset=offset)


class _OverBudget(Exception):
    """The byte-by-byte replay would re-read more than `REPLAY_BUDGET` bytes."""


def _events(
    raw: bytes, window: list[int], replay: _Replay | None = None
) -> Iterator[tuple[str, Any]]:
    """Yield yajl events for `raw`, recording in `window` the chunk being fed (start, planned end).

    With a `replay`, everything before its start is fed at once and the rest byte by byte
    (but for runs of inert bytes), so `window[0]` is then the exact offset of the byte that
    produced each event or error.
    """
    import ijson  # noqa: PLC0415 - deferred: most documents never reach the strict path

    sink = ijson.sendable_list()
    parser = _YAJL.basic_parse_coro(sink, use_float=True)
    size = end = 0
    total = len(raw)
    # NOTE: a replay's bytes before its start are fed in chunks, as the first run fed them:
    # fed at once, all their events would be held together (millions, for a few megabytes).
    chunked = total if replay is None else replay.start
    try:
        while end < total:
            start = end
            if start < chunked:
                size = size * 2 if size and not sink else CHUNK
                end = min(start + size, chunked)
                # NOTE: the planned size, not what is left: a large one means long-token mode.
                window[1] = start + size
            else:
                assert replay is not None  # `chunked` is the total otherwise
                end = replay.piece(start, len(sink) if start > chunked else 0)
            window[0] = start
            del sink[:]
            parser.send(raw[start:end])
            yield from sink
        window[0] = window[1] = total
        del sink[:]
        try:
            # NOTE: yajl drops an unterminated string at the end (`{}"` parses as `{}`); a
            # final newline, whitespace anywhere else, is a raw control character inside one.
            parser.send(b"\n")
        except ijson.JSONError as exc:
            if "inside string" in str(exc):
                raise ParseError("truncated", "response ends inside a string") from None
            raise
        parser.close()
        yield from sink
    except ijson.JSONError as exc:
        _yajl_error(str(exc))
    except (UnicodeError, ValueError, ArithmeticError, SystemError) as exc:
        # NOTE: the yajl backend reports some malformed strings and numbers as these.
        raise ParseError("syntax", f"not JSON: {type(exc).__name__}") from None


def _yajl_error(text: str) -> NoReturn:
    if text.startswith(("b'", 'b"')):
        # NOTE: ijson gives its message's repr when the context yajl quotes is not UTF-8 (a
        # character split between two chunks): its first line only, never the document.
        text = codecs.escape_decode(text[2:].split("\\n", 1)[0])[0].decode("latin-1")
    first = text.splitlines()[0] if text else "parse error"
    if "integer overflow" in first:
        raise LimitExceeded("integer_too_long", _BEYOND_64_BITS)
    if "floating point) overflow" in first:
        raise ParseError("non_finite_number", "number overflows to infinity")
    if "trailing garbage" in first:
        raise ParseError("trailing_data", "data follows the JSON value")
    if "premature EOF" in first:
        raise ParseError("truncated", "response ends inside the JSON value")
    if "invalid character inside string" in first:
        raise ParseError("control_character", "string holds a raw control character")
    if "invalid bytes in UTF8" in first:
        raise ParseError("invalid_utf8", "string is not valid UTF-8")
    raise ParseError("syntax", f"not JSON: {first}")


def _refine(rejection: Rejection, raw: bytes) -> None:
    """Name the usual suspect of a yajl 'invalid char' error: NaN or Infinity."""
    if rejection.reason == "syntax" and rejection.offset is not None:
        around = raw[max(rejection.offset - 1, 0) : rejection.offset + 9]
        if any(word in around for word in _NON_FINITE):
            rejection.reason = "non_finite_number"
            rejection.message = "NaN and Infinity are not JSON"


def _located(rejection: Rejection, raw: bytes, window: list[int], limits: Limits) -> Rejection:
    """The first problem the parser meets, with its offset, found by replaying the failing chunk.

    That may not be `rejection`: yajl reads a whole chunk before we build its events, so its
    own error comes first even when an event before it breaks a budget. Byte by byte, the
    replay meets the first. Past the replay's budget (`_Replay`), `rejection` is returned
    with the chunk's start as its offset and the byte range the problem lies in.
    """
    start, end = window
    replay = [start, start]
    try:
        _build(_events(raw, replay, _Replay(raw, start, REPLAY_BUDGET)), limits, raw, lean=True)
    except Rejection as first:
        first.offset = replay[0]
        _refine(first, raw)
        return first
    except _OverBudget:
        rejection.message += f" (between bytes {start} and {min(end, len(raw))})"
    # NOTE: also if the replay found nothing, which it cannot: it fails as the first run did.
    rejection.offset = start
    return rejection


class _Replay:
    """The offset replay's pieces: one byte each, but bytes that cannot end a token together.

    Inert bytes, where yajl has read everything before without an event or error pending:
    inside a string, every byte up to the next quote, control character or invalid escape;
    between tokens after whitespace, the whitespace that follows; inside a number past its
    first digits, the digits that follow. Runs are looked for once `_QUIET` bytes have passed
    without an event (before, bytes go one by one: cheaper than looking). The differential
    test feeds every byte alone and compares.

    NOTE: yajl re-reads the token still open from its start on every chunk, so the replay has
    a budget of bytes re-read (`pending`, the open token, per piece); past it, `_OverBudget`.
    """

    __slots__ = (
        "budget",
        "counted",
        "inside",
        "masked",
        "patterns",
        "pending",
        "quiet",
        "quotes",
        "raw",
        "start",
        "work",
    )

    def __init__(self, raw: bytes, start: int, budget: int) -> None:
        import re  # noqa: PLC0415 - the strict path's replay only

        # NOTE: same length, so positions hold: an escaped backslash or quote is no quote (to
        # tell strings apart, in what yajl has read without an error; not to tell escapes).
        self.raw = raw
        self.masked = raw.replace(b"\\\\", b"aa").replace(b'\\"', b"aa") if b"\\" in raw else raw
        self.patterns = tuple(re.compile(pattern) for pattern in _INERT)
        self.quotes = self.counted = 0  # quotes in masked[:counted]
        self.inside = False  # whether the last position looked at is inside a string
        self.start, self.budget, self.work = start, budget, 0
        self.pending = self.quiet = self._open_token(start)

    def piece(self, at: int, events: int) -> int:
        """Where the piece fed from `at` ends; `events`: how many yajl gave for the last one."""
        if events:  # NOTE: yajl then holds no token, and is in no string
            self.pending = self.quiet = 0
            self.inside = False
        kind = self._kind(at) if self.quiet >= _QUIET else -1
        if kind < 0:  # NOTE: the usual case, kept short: it runs once per byte
            self.work += self.pending + 1
            if self.work > self.budget:
                raise _OverBudget
            self.quiet += 1
            if self.masked[at] in _JSON_WHITESPACE and not self.inside:
                self.pending = 0  # yajl keeps no whitespace between tokens
            else:
                self.pending += 1
            return at + 1
        if kind == _IN_STRING:
            # NOTE: matched from the string's start, so that `at` may be inside an escape.
            text, begin = self.raw, self.masked.rfind(b'"', 0, at) + 1
        else:
            text, begin = self.masked, at
        end = max(self.patterns[kind].match(text, begin).end(), at + 1)  # type: ignore[union-attr]
        self.work += self.pending + end - at
        if self.work > self.budget:
            raise _OverBudget
        self.quiet += end - at
        self.pending = 0 if kind == _IN_WHITESPACE else self.pending + end - at
        return end

    def _kind(self, at: int) -> int:
        """The kind of inert run that starts at `at`, or -1."""
        masked = self.masked
        self.quotes += masked.count(b'"', self.counted, at)
        self.counted = at
        self.inside = self.quotes % 2 == 1
        if self.inside:
            return _IN_STRING
        if at and masked[at - 1] in _JSON_WHITESPACE:
            return _IN_WHITESPACE
        return _IN_DIGITS if _digits_go_on(masked, at) else -1

    def _open_token(self, at: int) -> int:
        """How much of a token is open at `at`: what yajl re-reads on the next piece."""
        self._kind(at)
        if self.inside:
            return at - self.masked.rfind(b'"', 0, at)
        head = self.masked[:at]
        return len(head) - len(head.rstrip(b"-+.eE0123456789"))


def _digits_go_on(raw: bytes, at: int) -> bool:
    """Whether the digit at `at`, after a digit, only lengthens the number token before it.

    Only a leading zero ends an integer token at a digit: `01` is `0`, then `1`, and `001`
    fails at its second zero. Past three digits, or in a fraction or an exponent, digits
    only ever lengthen the token.
    """
    if not (_is_digit(raw, at) and _is_digit(raw, at - 1)):
        return False
    first = at - 1  # where the run of digits before `at` starts, looked for 3 bytes back
    while first > max(at - 3, 0) and _is_digit(raw, first - 1):
        first -= 1
    if at - first >= 3:
        return True
    before = raw[first - 1 : first] if first else b""
    if before in (b".", b"e", b"E", b"+") or (
        before == b"-" and raw[first - 2 : first - 1] in (b"e", b"E")
    ):
        return True
    return raw[first] != ord("0") or (at - first == 2 and raw[first + 1] != ord("0"))


def _is_digit(raw: bytes, at: int) -> bool:
    return 0 <= at < len(raw) and 0x30 <= raw[at] <= 0x39


def _float_tokens(raw: bytes, limits: Limits) -> Callable[[float], float]:
    """`read(value)`: what to deliver for the next float token, which yajl read as `value`.

    yajl's events carry a float, not its text; the text is found here, in order, and read by
    `number.float_reader`. Only valid JSON up to a float event has been read when its text is
    asked for, so every string before it is closed and the n-th float event is the n-th float
    token. On the first float event the document is looked at once: if every float token in
    it is short, with no exponent but a short negative one, yajl's float is what the reader
    would return and no text is looked for; else the document is masked and decoded, once.
    """
    import re  # noqa: PLC0415 - the strict parser's float tokens only

    reader = float_reader(limits.max_integer_digits)
    match = re.compile(_NEXT_FLOAT_TOKEN).match
    state: list[Any] = [0, None]  # where the next token is looked for; the masked text

    def read(value: float) -> float:
        at, text = state
        if text is None:
            if short_decimals_are_floats(limits.max_integer_digits) and not _long_or_exponent(raw):
                text = state[1] = _AS_READ
            else:
                # NOTE: same length, so positions hold: `\\` and `\"` are two bytes; latin-1
                # decodes one character per byte.
                masked = raw.replace(b"\\\\", b"aa").replace(b'\\"', b"aa") if b"\\" in raw else raw
                text = state[1] = masked.decode("latin-1")
        if text is _AS_READ:
            return value
        found = match(text, at)
        if found is None:  # NOTE: unreachable, as below, unless yajl and the pattern disagree
            raise RuntimeError(f"no float token where the parser read one, at byte {at}")
        state[0] = found.end()
        delivered = reader(found.group(1))
        if delivered != value:
            raise RuntimeError(f"float token out of step with the parser at byte {at}")
        return delivered

    return read


def _long_or_exponent(raw: bytes) -> bool:
    """Whether a float token may be long, or have an exponent other than a short negative one.

    A token of at most `SHORT_TOKEN` characters whose exponent is negative and of one or two
    digits is normal and far within any budget `short_decimals_are_floats` allows. Strings are
    not told apart: a false alarm only costs reading every float token's text.
    """
    shape = raw.translate(_NUMBER_CHARACTERS)
    if b"0" * (SHORT_TOKEN + 1) in shape:
        return True
    at = shape.find(b"0e")
    for _ in range(_MAX_EXPONENTS):
        if at < 0:
            return False
        if raw[at + 2 : at + 3] != b"-" or shape[at + 3 : at + 6] == b"000":
            return True
        at = shape.find(b"0e", at + 2)
    return True


def _build(
    events: Iterator[tuple[str, Any]], limits: Limits, raw: bytes, *, lean: bool = False
) -> Any:
    """Build Python values from events, enforcing every budget as each event arrives.

    `lean`: for the offset replay, which only looks for the first problem: a container keeps
    its names and its count of items, not its values (a closed one is let go at once).
    """
    max_depth = limits.max_depth
    max_string = limits.max_string_length
    max_items = limits.max_container_items
    bound = 10**limits.max_integer_digits
    read_float = _float_tokens(raw, limits)
    parents: list[tuple[Any, Any]] = []
    current: Any = None
    key: Any = None
    root: Any = _INCOMPLETE
    try:
        for event, value in events:
            if event == "map_key":
                if len(value) > max_string:
                    raise LimitExceeded("string_too_long", f"member name longer than {max_string}")
                if value in current:
                    raise ParseError("duplicate_member", f"duplicate member name {value!r}")
                if len(current) >= max_items:
                    raise LimitExceeded(
                        "container_too_large", f"object has over {max_items} members"
                    )
                key = value
                continue
            if event in ("end_map", "end_array"):
                current, key = parents.pop()
                continue
            if event in ("start_map", "start_array"):
                if len(parents) >= max_depth:
                    raise _too_deep(max_depth)
                value = {} if event == "start_map" else []  # noqa: PLW2901 - the value is the container
            elif event == "string":
                if len(value) > max_string:
                    raise LimitExceeded("string_too_long", f"string longer than {max_string}")
            elif event == "number":
                if type(value) is float:
                    value = read_float(value)  # noqa: PLW2901 - the value as delivered
                elif not -bound < value < bound:
                    raise LimitExceeded(
                        "integer_too_long", f"integer over {limits.max_integer_digits} digits"
                    )
            if current is None:
                root = value
            elif type(current) is list:
                if len(current) >= max_items:
                    raise LimitExceeded("container_too_large", f"array has over {max_items} items")
                current.append(None if lean else value)
            else:
                current[key] = None if lean else value
            if event in ("start_map", "start_array"):
                parents.append((current, key))
                current = value
    except ParseError as error:
        # yajl calls `{} "` a premature end; once the value is complete it is trailing data.
        if error.reason == "truncated" and root is not _INCOMPLETE and not parents:
            error.reason, error.message = "trailing_data", "data follows the JSON value"
        raise
    return root
