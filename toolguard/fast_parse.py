"""Accept or defer: strict-parse a large document at C speed when it is surely acceptable.

`accept(raw, text, limits)` -> the value the strict builder in `parse.py` would build, or `DEFER`
when the document might be rejected or read differently (the strict parser then decides, with
its exact reason and offset). A byte-level screen bounds depth, container sizes and string
lengths first; `json` then builds the value, with hooks that refuse duplicate member names
(below), `NaN` / `Infinity` and, when the screen saw numbers it cannot vouch for, read them one
by one: integers against the budgets, float tokens through `number.float_reader` (as the strict
parser).

Duplicate names: in a small document, each object's pairs are checked as `json` builds it. A
screened document is counted instead: the screen counts the name separators (colons outside
strings), which in valid JSON are its members, one each; `json` builds plain dicts (a third
of its time goes to the pairs otherwise), and a hook adds up their sizes. A dict keeps one
member per name, so the two counts differ exactly when some object repeats a name.
"""

from __future__ import annotations

import gc

from toolguard import collector
from toolguard.allocator import return_large_blocks, trim_heap
from toolguard.errors import ParseError
from toolguard.json_codec import Decoder
from toolguard.limits import INTEGER_DIGITS_CEILING, Limits
from toolguard.number import float_reader, integer_bound
from toolguard.standins import bounded

TYPE_CHECKING = False  # NOTE: not `typing`'s: a one-shot check never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import Any

    _Numbers = tuple[Callable[[str], Any] | None, Callable[[str], Any] | None]

DEFER: Any = object()


class _Defer(ValueError):
    """The document may be one the strict parser rejects: let it decide."""


def _classes() -> bytes:
    r"""Screen classes: `"` `\` `[` `]` `,` `:` `.` `0` (digit) `e` `+` `-`, else `a`."""
    table = bytearray(b"a" * 256)
    for byte in b'"\\[],:.+-':
        table[byte] = byte
    table[ord("{")], table[ord("}")] = ord("["), ord("]")
    for byte in b"0123456789":
        table[byte] = ord("0")
    table[ord("e")] = table[ord("E")] = ord("e")
    return bytes(table)


_CLASSES = _classes()
_POINT_AS_DIGIT = bytes.maketrans(b".", b"0")
_NOT_STRUCTURE = b"a0e+-.\\"
# A float token the screen can vouch for has at most 15 characters of mantissa (digits and its
# point) and an exponent, if any, of at most two digits and negative: its float is then the
# number written, normal, and no integer over the budget. Anything else is read one by one:
# a mantissa of 16 characters or more; a positive exponent; a negative one of three digits.
_LONG_MANTISSA = b"0" * 16
_POINT_BESIDE_EIGHT = (b"0" * 8 + b".", b"." + b"0" * 8)
_MAX_EXPONENTS = 256
_MAX_BLOCKS = 4096
_MAX_FRACTIONS = 256
_NARROW = 1 << 16  # bytes of structure below which every pass is cheap anyway
_CHUNK = 1 << 16  # bytes the screen reads at a time (`_chunks`)
_LARGE = 1 << 20  # a document whose buffers should go back to the system (`allocator`)


def accept(raw: bytes, text: str | None, limits: Limits) -> Any:
    """Parse `raw` (already checked by `parse._check_encoding`; `text` if it was decoded).

    Returns `DEFER` unless the value is certainly the one the strict parser would return.
    """
    if len(raw) >= _LARGE:
        return_large_blocks()
    digits = limits.max_integer_digits
    members = counted = None
    if _small(raw, limits):
        decoder = _decoder(digits)  # per-number hooks cost nothing on it
    else:
        if b"[" * (limits.max_depth + 1) in raw:
            return DEFER  # the usual nesting attack, found by one memory scan before any pass
        screened = _screen(raw, limits)
        if screened is None:
            return DEFER
        careful, members = screened
        decoder, counted = _counting_decoder(_numbers(digits, careful))
    paused = collector.pause()  # NOTE: no cycles to find while the value grows (`collector`)
    try:
        value = decoder.decode(raw.decode() if text is None else text)
    except (ValueError, RecursionError, ParseError):
        return DEFER
    finally:
        collector.resume(paused)
    if counted is not None and counted() != members:
        return DEFER  # a repeated member name (the strict parser says which, and where)
    if len(raw) >= _LARGE:
        _count_as_old()
    return value


# NOTE: CPython 3.12's collector keeps objects of its own frozen (the immortal built-in types'
# base and MRO tuples: some 375; 3.11 and 3.13 none), so the freeze count is not 0 though
# nobody froze anything. A freeze moves every tracked object, and even a bare interpreter
# tracks some 4,000: a count below this bound is the interpreter's own, whenever it was made.
_OWN_FROZEN = 1024


def _count_as_old() -> None:
    """Count the objects of a large parsed value as old, so no young collection walks them.

    Every container json built while the collector was off is still counted as young: the
    first allocation after `accept` (in validation, usually) would start a collection that
    traverses the whole document, a fifth of json's own time on 10 MB, to find no cycle.
    `gc.freeze()` then `gc.unfreeze()` moves every tracked object to the oldest generation
    and resets the young count, in constant time. NOTE: not when something else froze
    objects (a server before it forks, before or after loading toolguard): unfreezing would
    undo its freeze. The interpreter's own frozen objects (`_OWN_FROZEN`) go to the oldest
    generation with the rest, as any `gc.unfreeze()` moves them.
    """
    if gc.get_freeze_count() < _OWN_FROZEN:
        gc.freeze()
        gc.unfreeze()


def screened_for_size(raw: bytes, limits: Limits) -> bool:
    """Whether `raw` is screened (not `_small`) for its size alone, whatever it holds.

    `parse` asks too: the screen of such a document nearly always imports `re` (`_Patterns`).
    """
    return len(raw) > limits.max_string_length and len(raw) > _NARROW


def _small(raw: bytes, limits: Limits) -> bool:
    """Whether `raw` is too small to break a structural budget, whatever it holds.

    Each count bounds what it stands for (nesting needs an opening bracket per level; items
    need commas; a string has no more characters than the document has bytes), so the screen
    would find nothing: for agent-sized answers, skipping it halves the parse. A document
    longer than the string budget still qualifies when it holds no backslash: each string is
    then exactly the bytes between a pair of quotes, and no longer in characters.
    """
    if screened_for_size(raw, limits):
        return False  # NOTE: first: the three counts cost a 10 MB document 11 ms
    if (
        raw.count(b"[") + raw.count(b"{") > limits.max_depth
        or raw.count(b",") >= limits.max_container_items
    ):
        return False
    if len(raw) <= limits.max_string_length:
        return True
    return len(raw) <= _NARROW and b"\\" not in raw and _strings_fit(raw, limits.max_string_length)


# What `_screen` says numbers need: nothing, their float tokens read, or every number read.
_PLAIN_NUMBERS, _FLOATS, _INTEGERS = "plain", "floats", "integers"


def _screen(raw: bytes, limits: Limits) -> tuple[str, int] | None:
    """None if the budgets may be exceeded, else (which numbers to read, the members).

    Which numbers need reading one by one; how many members the document's objects have in
    all, its name separators (colons outside strings).

    Exact for valid JSON, which is all that matters: invalid JSON fails in `json` and defers.
    An integer run as long as the budget may also be a float's integer part: both are read.
    NOTE: the document is read in chunks of about `_CHUNK` bytes (`_chunks`), so that each
    pass works in the CPU cache, on buffers the allocator reuses, instead of on fresh
    document-sized copies (which the system maps page by page: see `allocator`).
    """
    digits = min(limits.max_integer_digits, INTEGER_DIGITS_CEILING)
    careful = _PLAIN_NUMBERS
    strings = _Strings(limits.max_string_length)
    # NOTE: one growing buffer, not a list of pieces: pieces would be left as holes in the
    # heap, resident beside the value `json` builds next.
    structure = bytearray()
    for start, end in _chunks(raw):
        shape = raw[start:end].translate(_CLASSES)
        if careful != _INTEGERS:
            if _long_digit_run(shape, digits):
                careful = _INTEGERS
            elif careful == _PLAIN_NUMBERS and _floats_unsure(shape):
                careful = _FLOATS
        # NOTE: a backslash is looked for first, by one `memchr` (most chunks of most documents
        # have none); then `\"` from the end, which skips on `\`: `in` would skip on `"`.
        if b"\\" in shape and shape.rfind(b'\\"') >= 0:
            # An escaped backslash or quote becomes two filler bytes: quotes then delimit
            # strings, and no string is shorter in `shape` than its length in characters (an
            # escape counts two, as `\n` does). Without `\"` no quote is escaped: nothing to
            # do; without `\\`, every `\"` is an escaped quote. NOTE: with both, one regex
            # pass (a third of what two `bytes.replace` cost) reads them in order; what it holds
            # per match (the piece before it) is bounded by the chunk.
            if b"\\\\" in shape:
                shape = _patterns().escape.sub(b"aa", shape)
            else:
                shape = shape.replace(b'\\"', b"aa")
        brackets = shape.translate(None, _NOT_STRUCTURE)
        if not strings.fit(shape, start, brackets.count(b'"')):
            return None
        structure += brackets
    brackets = bytes(structure)
    del structure
    if len(raw) >= _LARGE:
        trim_heap()  # NOTE: as `return_large_blocks`: `ctypes` for a large document only
    if b'"' in brackets:
        # Adjacent quotes end one string and open the next (or are an empty string): dropping
        # them merges strings, whose content is dropped next anyway: every other piece
        # between quotes. NOTE: `split`, not a regex, which costs a match each.
        brackets = b"".join(brackets.replace(b'""', b"").split(b'"')[::2])
    members = brackets.count(b":")
    if members:
        brackets = brackets.translate(None, b":")
    if not _containers_fit(brackets, limits):
        return None
    return careful, members


def _chunks(raw: bytes) -> Iterator[tuple[int, int]]:
    """Spans of `raw`, about `_CHUNK` bytes each, that end just after a comma (or at the end).

    No number token and no escape (a backslash and what follows) spans two chunks, so each
    chunk's checks see exactly what they would in the whole document; a string may.
    """
    start = 0
    while start < len(raw):
        end = raw.find(b",", start + _CHUNK) + 1 or len(raw)
        yield start, end
        start = end


class _Strings:
    """Whether every string fits, over a document whose shape is seen chunk by chunk."""

    __slots__ = ("max_length", "opened")

    def __init__(self, max_length: int) -> None:
        self.max_length = max_length
        self.opened = -1  # where the string still open at the last chunk's end starts (its quote)

    def fit(self, shape: bytes, at: int, quotes: int) -> bool:
        """Whether no string in the chunk `shape` (at `at`, `quotes` quotes) is too long."""
        start = 0
        if self.opened >= 0:
            close = shape.find(b'"')
            end = at + (len(shape) if close < 0 else close)
            if end - self.opened - 1 > self.max_length:
                return False
            if close < 0:
                return True
            self.opened, start, quotes = -1, close + 1, quotes - 1
        if not _strings_fit(shape[start:] if start else shape, self.max_length):
            return False
        if quotes % 2:
            self.opened = at + shape.rfind(b'"')
        return True


def _floats_unsure(shape: bytes) -> bool:
    """Whether a float token may be one the screen cannot vouch for (see `_LONG_MANTISSA`).

    Strings are not told apart from numbers here: a false alarm only costs the reading.
    NOTE: every search here runs from the end (`rfind`), which skips on a needle's first
    byte: a digit, rare in text, where `find` skips on its last (`e`, `.`), which is not.
    """
    if shape.rfind(_LONG_MANTISSA) >= 0 or _exponent_unsure(shape):
        return True
    # A point splitting 15 digits or more has 8 of them on one side: only then is a second
    # translation, with the point as a digit, worth its time.
    if all(shape.rfind(side) < 0 for side in _POINT_BESIDE_EIGHT):
        return False
    return shape.translate(_POINT_AS_DIGIT).rfind(_LONG_MANTISSA) >= 0


def _exponent_unsure(shape: bytes) -> bool:
    """Whether an exponent may be positive or have three digits or more.

    An exponent follows a digit: each `0e` is looked at, from the end (in strings too: a false
    alarm only costs the reading), up to `_MAX_EXPONENTS` of them. NOTE: searching for `e0` or
    `e+` instead costs several times more, letters being common.
    """
    at = shape.rfind(b"0e")
    for _ in range(_MAX_EXPONENTS):
        if at < 0:
            return False
        after = shape[at + 2 : at + 6]
        if after[:1] in (b"0", b"+") or after == b"-000":
            return True
        at = shape.rfind(b"0e", 0, at)
    return True


def _long_digit_run(shape: bytes, digits: int) -> bool:
    """Whether a run of `digits` digits may be an integer's (a fraction's cannot overflow).

    Runs after a decimal point are skipped, up to `_MAX_FRACTIONS` of them.
    """
    run = b"0" * digits
    if shape.rfind(run) < 0:
        return False  # NOTE: the usual answer, from the end (see `_floats_unsure`)
    at = shape.find(run)
    for _ in range(_MAX_FRACTIONS):
        if at < 0:
            return False
        if at == 0 or shape[at - 1] not in b".0":
            return True
        at = shape.find(run, at + digits)
    return True


def _strings_fit(shape: bytes, max_length: int) -> bool:
    """No string in `shape` (quotes delimit strings) is longer than `max_length` bytes.

    A longer string covers a whole aligned block of `(max_length + 1) // 2` bytes, and a block
    without any quote is inside a string exactly when an odd number of quotes precede it.
    """
    if len(shape) <= max_length:
        return True
    block = (max_length + 1) // 2
    if len(shape) // block > _MAX_BLOCKS:  # tiny budgets: one split costs less than the loop
        return max(map(len, shape.split(b'"')[1::2]), default=0) <= max_length
    quotes = counted = 0
    for start in range(0, len(shape), block):
        if shape.find(b'"', start, start + block) >= 0:
            continue
        quotes += shape.count(b'"', counted, start)
        counted = start
        if quotes % 2 and shape.find(b'"', start) - shape.rfind(b'"', 0, start) > max_length + 1:
            return False
    return True


def _containers_fit(brackets: bytes, limits: Limits) -> bool:
    """Nesting within `max_depth` and no container over `max_container_items`.

    `brackets` holds only `[`, `]` and `,`: each pass deletes the innermost containers, so
    pass n deletes exactly those n deep; a container's commas are adjacent once its children
    are gone, and `max_container_items` of them mean one item too many.
    """
    too_many = b"," * limits.max_container_items
    too_deep = b"[" * (limits.max_depth + 1)
    passes = 0
    while brackets:
        if passes == limits.max_depth or too_many in brackets or too_deep in brackets:
            return False
        shorter = _patterns().innermost.sub(b"", brackets)
        if len(brackets) > _NARROW and len(brackets) - len(shorter) < len(brackets) >> 4:
            # NOTE: a deep, narrow document (`[0,[0,[0,...`) would cost a pass per level
            # over nearly all of it; the strict parser stops at its depth at once.
            return False
        brackets = shorter
        passes += 1
    return True


class _Patterns:
    """The screen's patterns, compiled on the first document large enough to screen."""

    def __init__(self) -> None:
        import re  # noqa: PLC0415 - a one-shot check of an agent-sized answer never needs `re`

        self.innermost = re.compile(rb"\[,*\]")
        self.escape = re.compile(rb'\\[\\"]')


@bounded(1)
def _patterns() -> _Patterns:
    return _Patterns()


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    value = dict(pairs)
    if len(value) < len(pairs):
        raise _Defer("duplicate member name")
    return value


def _non_finite(name: str) -> Any:
    raise _Defer(name)


@bounded(64)
def _decoder(max_integer_digits: int) -> Decoder:
    """The decoder of a small document: each object's pairs checked, every number read."""
    parse_int, parse_float = _numbers(max_integer_digits, _INTEGERS)
    return Decoder(
        object_pairs_hook=_object,
        parse_constant=_non_finite,
        parse_int=parse_int,
        parse_float=parse_float,
    )


def _counting_decoder(numbers: _Numbers) -> tuple[Decoder, Callable[[], int]]:
    """A decoder building plain dicts, and the number of members they hold so far."""
    members = 0

    def count(value: dict[str, Any]) -> dict[str, Any]:
        nonlocal members
        members += len(value)
        return value

    parse_int, parse_float = numbers
    decoder = Decoder(
        object_hook=count, parse_constant=_non_finite, parse_int=parse_int, parse_float=parse_float
    )
    return decoder, lambda: members


@bounded(64)
def _numbers(max_integer_digits: int, careful: str) -> _Numbers:
    """`parse_int` and `parse_float` for the numbers `careful` says need reading (`_screen`).

    Float tokens go through `number.float_reader`; with `_INTEGERS`, integers over the budgets
    are refused too.
    """
    if careful == _PLAIN_NUMBERS:
        return None, None
    # NOTE: the reader's `ParseError` defers too (see `accept`): no wrapper, one call per float.
    parse_float = float_reader(max_integer_digits)
    if careful == _INTEGERS:
        bound = integer_bound(max_integer_digits)

        def integer(digits: str) -> int:
            # NOTE: the length test comes first so that no big-integer conversion ever runs.
            if (
                len(digits) > INTEGER_DIGITS_CEILING + 1
                or not -bound <= (value := int(digits)) <= bound
            ):
                raise _Defer("integer over budget")
            return value

        return integer, parse_float
    return None, parse_float
