"""Secret context values out of what the operator reads: text in, text with markers out.

The contract's `[audit] secret_context` keys name request context values (an API token passed
to the command, say) that must never be written in clear: not in diagnostics on stderr, not in
an audit record. They leak in many shapes (a rule's message quotes them with `repr`, escaped as
a regular expression, or inside a repr of that; the command echoes them on stderr; JSON or a
URL escapes them), so `Secrets` matches each value in every form toolguard or a common tool
would print it, case-insensitively, and puts `[secret:KEY]` in its place. Redaction runs on the
raw string, before escaping (`text.clean`) and serialising, so no escaped form is missed.

`require_redactable` refuses what cannot be redacted well: a value shorter than
`MIN_SECRET_LENGTH` (it would match ordinary text, and is guessable anyway), and more than
`MAX_SECRET_VALUES` values or `MAX_SECRET_CHARACTERS` characters in all (every string shown is
searched once per form of every value: the work must stay bounded).
"""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Collection, Iterator, Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from toolguard.errors import UsageError
from toolguard.text import clean

MIN_SECRET_LENGTH = 8
MAX_SECRET_VALUES = 64
MAX_SECRET_CHARACTERS = 8192
_MARKER = r"\[secret:[A-Za-z_][A-Za-z0-9_]*\]"  # a CONTEXT_KEY_PATTERN key, marked
_MARKERS = re.compile(_MARKER)
_ENDS_WITH_MARKER = re.compile(f"{_MARKER}$")


def marker(key: str) -> str:
    """What stands where the value of the secret context key `key` was."""
    return f"[secret:{key}]"


def require_redactable(names: Collection[str], context: Mapping[str, Any]) -> None:
    """Refuse (`UsageError`) secret context values too short, or too many, to redact.

    Counted as printed: `True` and `1234` are too short. The message names the key, never
    the value.
    """
    values = characters = 0
    for key in sorted(set(names) & set(context)):
        value = context[key]
        for item in value if isinstance(value, list) else (value,):
            text = _printed(item)
            if text is not None and len(text) < MIN_SECRET_LENGTH:
                raise UsageError(
                    f"secret context {key!r} must be at least {MIN_SECRET_LENGTH} characters "
                    "long (a list: each item), or it cannot be redacted from diagnostics"
                )
            values += 1
            characters += 0 if text is None else len(text)
            if values > MAX_SECRET_VALUES or characters > MAX_SECRET_CHARACTERS:
                raise UsageError(
                    f"secret context holds more than {MAX_SECRET_VALUES} values or "
                    f"{MAX_SECRET_CHARACTERS} characters in all (at {key!r}): too much to "
                    "redact from diagnostics"
                )


@dataclass(frozen=True, slots=True)
class _Form:
    """One way a secret is written, lower-cased; `run` extends it over overlapping repeats."""

    text: str
    key: str
    run: re.Pattern[str] | None  # repeats of its last `period` characters, if it has a period


@dataclass(frozen=True, slots=True)
class Secrets:
    """The secret context values of one request, in every form they may be written in.

    Build with `Secrets.of`; `text` redacts a string, `value` every string in a JSON value.
    Redacting twice is the same as once: markers already in the text are left alone.
    """

    forms: tuple[_Form, ...]  # longest first

    @classmethod
    def of(cls, names: Collection[str], context: Mapping[str, Any]) -> Secrets | None:
        """The secrets among `context` that `names` marks, or None if there are none."""
        secret = tuple(
            (key, tuple(value) if isinstance(value, list) else (value,))
            for key, value in sorted(context.items())
            if key in names
        )
        return _compiled(secret) if secret else None

    def text(self, text: str, *, cut: bool = False) -> str:
        """`text` with every character of every occurrence of a secret under a marker.

        `cut`: the text is an excerpt that may end inside a secret (the first bytes of a
        command's stderr), so a tail that begins one is redacted too.
        """
        spans = self._spans(text)
        if spans:
            parts: list[str] = []
            done = 0
            for start, end, key in spans:
                parts.extend((text[done:start], marker(key)))
                done = end
            text = "".join((*parts, text[done:]))
        if cut and not _ENDS_WITH_MARKER.search(text):
            text = self._tail(text)
        return text

    def value(self, value: Any) -> Any:
        """A copy of a JSON-like value with every string (keys too) redacted.

        A number whose digits hold a secret (a secret number, projected) becomes the marker.
        """
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {self.text(str(key)): self.value(item) for key, item in value.items()}
        if isinstance(value, list | tuple):
            return [self.value(item) for item in value]
        if isinstance(value, int | float) and not isinstance(value, bool):
            printed = _printed(value)
            if printed is not None and self.text(printed) != printed:
                return self.text(printed)
        return value

    def _spans(self, text: str) -> list[tuple[int, int, str]]:
        """Where secrets are, merged where they overlap: (start, end, key of the first).

        NOTE: each form is found with `str.find` (linear in the text, whatever the form), and
        a run of overlapping repeats is covered by one match of `run`, so the work stays
        linear even for a periodic secret in a text built to repeat it. A backtracking regex
        alternation of the forms took seconds on 64 KiB of such text.
        """
        low = _lowered(text)
        found: list[tuple[int, int, str]] = []
        for form in self.forms:
            size = len(form.text)
            start = low.find(form.text)
            while start >= 0:
                end = start + size
                repeats = form.run.match(low, end) if form.run is not None else None
                if repeats is not None:
                    end = repeats.end()
                found.append((start, end, form.key))
                start = low.find(form.text, max(end - size + 1, start + 1))
        if not found:
            return []
        found = _outside(found, [match.span() for match in _MARKERS.finditer(text)])
        found.sort(key=lambda span: (span[0], -span[1]))
        merged: list[tuple[int, int, str]] = []
        for start, end, key in found:
            if merged and start < merged[-1][1]:
                first, last, first_key = merged[-1]
                merged[-1] = (first, max(last, end), first_key)
            else:
                merged.append((start, end, key))
        return merged

    def _tail(self, text: str) -> str:
        low = _lowered(text)
        for form in self.forms:
            for size in range(min(len(form.text) - 1, len(low)), 0, -1):
                if low.endswith(form.text[:size]):
                    return text[:-size] + marker(form.key)
        return text


@lru_cache(maxsize=64)  # `serve` sees the same token request after request
def _compiled(secret: tuple[tuple[str, tuple[Any, ...]], ...]) -> Secrets | None:
    found: dict[str, str] = {}
    for key, items in secret:
        for item in items:
            for form in _forms(item):
                found.setdefault(_lowered(form), key)
    if not found:
        return None
    ordered = sorted(found.items(), key=lambda entry: (-len(entry[0]), entry[0]))
    return Secrets(tuple(_Form(text, key, _run(text)) for text, key in ordered))


def _run(form: str) -> re.Pattern[str] | None:
    """For a form with a period p (its text repeats after p characters): its last p, repeated.

    An occurrence of the form that overlaps another one ends with whole repeats of them.
    """
    border = [0] * len(form)  # KMP: the longest proper prefix that is also a suffix
    for index in range(1, len(form)):
        size = border[index - 1]
        while size and form[index] != form[size]:
            size = border[size - 1]
        border[index] = size + (form[index] == form[size])
    period = len(form) - border[-1]
    return re.compile(f"(?:{re.escape(form[-period:])})*") if period < len(form) else None


def _lowered(text: str) -> str:
    """`text` in lower case, character for character (so positions still match)."""
    low = text.lower()
    if len(low) == len(text):
        return low
    return "".join(char if len(char.lower()) != 1 else char.lower() for char in text)


def _outside(
    spans: list[tuple[int, int, str]], markers: list[tuple[int, int]]
) -> list[tuple[int, int, str]]:
    """The spans not within one of `markers` (sorted, disjoint): a marker is not a secret."""
    if not markers:
        return spans
    starts = [start for start, _ in markers]
    kept = []
    for span in spans:
        index = bisect.bisect_right(starts, span[0]) - 1
        if index < 0 or span[1] > markers[index][1]:
            kept.append(span)
    return kept


def _printed(item: object) -> str | None:
    """How a context value is written as text; None for one too large to print at all."""
    try:
        return item if isinstance(item, str) else str(item)
    except ValueError:  # an integer of more than 4300 digits: nothing can print it
        return None


def _forms(item: object) -> Iterator[str]:
    """The ways `item` may be quoted: as itself, and escaped as text, regex, JSON or a URL."""
    from urllib.parse import quote, quote_plus  # noqa: PLC0415 - only a request with secrets

    text = _printed(item)
    if text is None:
        return
    plain = {
        text,
        repr(text)[1:-1],
        re.escape(text),
        json.dumps(text)[1:-1],
        json.dumps(text, ensure_ascii=False)[1:-1],
        clean(text, len(text)),
        quote(text, safe="", errors="surrogatepass"),
        quote_plus(text, safe="", errors="surrogatepass"),
    }
    # NOTE: a rule quotes with repr what may already be escaped (`{pattern!r}` holds the
    # regex-escaped value), and a JSON document may quote a repr: one more level of each.
    nested = {repr(form)[1:-1] for form in plain} | {json.dumps(form)[1:-1] for form in plain}
    yield from (form for form in plain | nested if form)
