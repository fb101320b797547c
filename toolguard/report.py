"""Operator diagnostics of `check`, `run` and `serve` on stderr (and `validate`'s report).

Decides nothing. (`explain` and `audit summary` render through `explain/render.py`,
`toolguard test` through `fixtures/report.py`, `lint` and `diff` through their `render.py`;
they take their rich console from `console` and their progress bar from `progress`, here.)

Everything quoted from a response or a schema is hostile until shown otherwise: control
characters (ANSI escapes included) and bidirectional overrides are escaped, rich markup is
never interpreted, and long values are truncated.
"""

from __future__ import annotations

import io
import sys

from toolguard import operator_line
from toolguard.frozen import fields
from toolguard.json_codec import encoder
from toolguard.result import AttemptRecord, Diagnostics
from toolguard.standins import suppress
from toolguard.text import MAX_TEXT, clean, clean_message, cleaned

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from contextlib import AbstractContextManager
    from typing import IO, Any

    from rich.console import Console

    from toolguard.validate import InstanceResult

# Wide enough that no table cell or line is ever folded: a pipe or a file has no width.
_UNBOUNDED = 1 << 16


def render(diagnostics: Diagnostics, mode: str, stream: IO[str] | None = None) -> None:
    """Write one diagnostics record to stderr as text for people or one line of JSON.

    A closed or missing stderr loses the diagnostics, never redirects them: they must not
    reach stdout, and they must not change the outcome the envelope already announced.
    """
    stream = stream if stream is not None else sys.stderr
    if stream is None:
        return
    with suppress(OSError, ValueError):
        _render(diagnostics, mode, stream)


def _render(diagnostics: Diagnostics, mode: str, stream: IO[str]) -> None:
    if mode != "json" and _is_terminal(stream):
        _rich(_lines(diagnostics), stream)
        return
    stream.write(as_text(diagnostics, mode))
    stream.flush()


def as_text(diagnostics: Diagnostics, mode: str) -> str:
    """The diagnostics as written anywhere but a terminal: one JSON line, or lines for people.

    NOTE: the text form is what rich would print to a pipe, without importing it (~20 ms of
    start-up). `serve` and `mcp` pay this once per answer, so both forms are built directly.
    """
    if mode == "json":
        return _json_text(diagnostics)
    return _plain_text(diagnostics)


def render_to(
    diagnostics: Diagnostics, mode: str, stream: IO[str], send: Callable[[str], None]
) -> None:
    """`render` for an operator channel, as `serve` and `mcp` report each answer.

    The text goes to `send` whole, past `stream`'s buffer; on a terminal, rich still writes
    to `stream`.
    """
    if mode != "json" and _is_terminal(stream):
        render(diagnostics, mode, stream)
    else:
        send(as_text(diagnostics, mode))


_DIAGNOSTICS = fields(Diagnostics)
_KEYS = tuple((name, f'"{name}":') for name in _DIAGNOSTICS)  # the names are plain ASCII
_ATTEMPT = fields(AttemptRecord)
_ENCODE = encoder()
_BOUND = 4 * MAX_TEXT  # what `cleaned` bounds a string to


def _json_text(diagnostics: Diagnostics) -> str:
    r"""`json_line(cleaned(asdict(diagnostics)))`, field by field: no deep copy, no walk.

    The fields are strings, numbers and None, but for the argv and the attempts, which go
    through `cleaned` as before. NOTE: `serve` and `mcp` write one per answer, while the
    caller's next request waits: the usual values are written as they are, without the
    encoder (a third of the time). A string within the bound, ASCII, printable and without
    `"` or `\` is its own JSON text (and `clean` leaves it as it is); an `int` is its repr, a
    finite `float` too, as `json` writes them. Anything else goes through `clean` or
    `cleaned`, and the encoder.
    """
    state = vars(diagnostics)
    parts = []
    for name, key in _KEYS:
        value = state[name]
        if value is None:
            continue
        kind = type(value)
        if kind is str:
            if (
                len(value) <= _BOUND
                and value.isascii()
                and value.isprintable()
                and '"' not in value
                and "\\" not in value
            ):
                parts.append(f'{key}"{value}"')
                continue
            text = _ENCODE(clean_message(value, _BOUND))
        elif kind is int or (kind is float and value - value == 0.0):
            text = repr(value)
        elif name == "attempts":
            records = [{field: getattr(one, field) for field in _ATTEMPT} for one in value]
            text = _ENCODE(cleaned(records, drop_none=True)) if records else "[]"
        elif isinstance(value, str):
            text = _ENCODE(clean_message(value, _BOUND))
        elif isinstance(value, int | float):
            text = _ENCODE(value)
        else:
            text = _ENCODE(cleaned(value, drop_none=True))
        parts.append(key + text)
    return "{" + ",".join(parts) + "}\n"


def json_line(values: dict[str, Any], stream: IO[str], *, drop_none: bool = True) -> None:
    """One line of ASCII JSON, every string escaped and bounded, empty fields left out.

    `drop_none=False` keeps them: an audit reader's documents say `null` where nothing was.
    """
    stream.write(_ENCODE(cleaned(values, drop_none=drop_none)) + "\n")
    stream.flush()


def instance(result: InstanceResult, mode: str) -> None:
    """One line for one validated instance file (`toolguard validate`), escaped and bounded."""
    stream = sys.stdout
    if mode == "json":
        from dataclasses import asdict  # noqa: PLC0415 - `validate` only

        json_line(asdict(result), stream)
        return
    if result.valid:
        stream.write(f"{clean(result.instance)}: valid\n")
        return
    # NOTE: every part but the layer is quoted from the instance or the schema: escaped.
    where = result.schema_path or (f"byte {result.offset}" if result.offset is not None else "")
    at = f" at {result.instance_path or '(root)'}" if result.layer == "schema" else ""
    stream.write(
        f"{clean(result.instance)}: invalid ({result.layer}: {clean(result.reason or '')}"
        f"{clean(at)}{', ' + clean(where) if where else ''}): {clean(result.message or '')}\n"
    )


def error(
    message: str, exit_status: int, mode: str | None = None, stream: IO[str] | None = None
) -> None:
    """Report an invocation error (usage, contract, schema, internal) without a traceback.

    `mode` None: the form the command line chose (`operator_line`).
    """
    operator_line.write(operator_line.error(message, exit_status, mode), stream)


def dropped(count: int, mode: str, stream: IO[str], *, gap: bool = False) -> None:
    """Say that `count` diagnostics were dropped because stderr was not being read.

    `gap`: said in the middle of the session, where they were dropped (outcome "gap"); else
    the closing line, with the session's count (outcome "dropped").
    """
    message = f"{count} diagnostics line(s) dropped: stderr was not being read"
    if gap:
        message = f"{count} diagnostics line(s) dropped here: stderr was not read fast enough"
    with suppress(OSError, ValueError):
        if mode == "json":
            outcome = "gap" if gap else "dropped"
            record = {"outcome": outcome, "count": count, "message": message}
            stream.write(_ENCODE(record) + "\n")
        else:
            stream.write(operator_line.warning(message, mode))
        stream.flush()


Line = list[tuple[str, str | None]]  # (text, rich style) segments


_STATUS = {"success": ("accepted", "green"), "failure": ("rejected", "red")}


def _lines(diagnostics: Diagnostics) -> list[Line]:
    word, style = _STATUS.get(diagnostics.outcome, ("internal error", "bold red"))
    head: Line = [(f"toolguard: {word}", style)]
    head.append((f" {diagnostics.tool} {diagnostics.request_id}", None))
    if diagnostics.layer:
        head.append((f" at layer {diagnostics.layer}", "bold"))
        head.append((f" ({clean(str(diagnostics.reason))}, {diagnostics.error_code})", None))
    rows: list[Line] = [
        [("  ", None), (f"{label}: ", "dim"), (clean_message(str(value)), None)]
        for label, value in _details(diagnostics)
    ]
    return [head, *rows]


def _plain_text(diagnostics: Diagnostics) -> str:
    """`_lines` as a pipe reads them, their segments joined: built without the segments."""
    word = _STATUS.get(diagnostics.outcome, ("internal error", ""))[0]
    head = f"toolguard: {word} {diagnostics.tool} {diagnostics.request_id}"
    if diagnostics.layer:
        reason = clean(str(diagnostics.reason))
        head += f" at layer {diagnostics.layer} ({reason}, {diagnostics.error_code})"
    rows = [f"  {label}: {clean_message(str(value))}\n" for label, value in _details(diagnostics)]
    return head + "\n" + "".join(rows)


def console(stream: IO[str], **options: Any) -> Console:
    """A rich console for a report on `stream`: on a terminal, its width and colours.

    Anywhere else (a pipe, a file, CI's log) nothing is wrapped, folded or cut to a width,
    and no colour code unless asked for (`FORCE_COLOR`): `grep` sees each row whole.
    """
    from rich.console import Console  # noqa: PLC0415 - rich only costs start-up when used

    if _is_terminal(stream):
        return Console(file=stream, highlight=False, **options)
    unpadded: IO[str] = _Unpadded(stream)  # type: ignore[assignment]  # a text stream
    return Console(file=unpadded, highlight=False, width=_UNBOUNDED, **options)


class _Unpadded(io.TextIOBase):
    """A pipe's view of rich's output: table cells are padded to their column, lines are not.

    rich pads every cell to its column's width; unbounded, a long value would pad every
    other row with spaces to match. Each line is written without its trailing spaces.
    """

    def __init__(self, stream: IO[str]) -> None:
        super().__init__()
        self._stream = stream
        self._pending = ""

    @property
    def encoding(self) -> str:  # type: ignore[override]  # what rich reads to pick glyphs
        return getattr(self._stream, "encoding", None) or "utf-8"

    def isatty(self) -> bool:
        return False

    def write(self, text: str) -> int:
        *lines, self._pending = (self._pending + text).split("\n")
        self._stream.write("".join(line.rstrip(" ") + "\n" for line in lines))
        return len(text)

    def flush(self) -> None:
        if self._pending:
            self._stream.write(self._pending)
            self._pending = ""
        self._stream.flush()


def progress(
    total: int | None, label: str, stream: IO[str] | None = None
) -> AbstractContextManager[Callable[[int], None]]:
    """A transient progress bar on stderr, only if stderr is a terminal that can redraw a line.

    Never on a pipe or a file, nor on a terminal whose TERM is `dumb` or `unknown`.

    Gives `advance(amount)`; `total` None is a count with no end known (standard input).
    """
    import contextlib  # noqa: PLC0415 - commands that show progress only: never a check

    return contextlib.contextmanager(_progress)(total, label, stream)


def _progress(
    total: int | None, label: str, stream: IO[str] | None
) -> Iterator[Callable[[int], None]]:
    stream = stream if stream is not None else sys.stderr
    if stream is None or not _is_terminal(stream) or total == 0:
        yield lambda _amount: None
        return
    from rich.console import Console  # noqa: PLC0415 - rich only costs start-up when used
    from rich.progress import Progress  # noqa: PLC0415

    console = Console(file=stream)
    # NOTE: a terminal that cannot move the cursor (TERM=dumb or unknown, as in Emacs' shell)
    # cannot redraw a bar; rich would still end it with a stray blank line.
    if not console.is_interactive:
        yield lambda _amount: None
        return
    with Progress(console=console, transient=True) as bar:
        task = bar.add_task(label, total=total)
        yield lambda amount: bar.advance(task, amount)


def _is_terminal(stream: IO[str]) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _rich(lines: list[Line], stream: IO[str]) -> None:
    from rich.console import Console  # noqa: PLC0415 - rich only costs start-up when used
    from rich.text import Text  # noqa: PLC0415

    console = Console(file=stream, highlight=False, soft_wrap=True)
    for line in lines:
        text = Text()
        for segment, style in line:
            text.append(segment, style=style or "")
        console.print(text)


def _details(diagnostics: Diagnostics) -> list[tuple[str, Any]]:
    where = diagnostics.instance_path
    fields = (
        ("message", diagnostics.message),
        ("rule", diagnostics.rule),
        ("schema path", diagnostics.schema_path),
        ("instance path", "(root)" if where == "" else where),
        ("byte offset", diagnostics.offset),
        ("size", None if diagnostics.size is None else f"{diagnostics.size} bytes"),
        ("sha256", diagnostics.sha256),
        ("contract", diagnostics.contract),
        ("time", f"{diagnostics.duration_ms} ms"),
        ("command", " ".join(diagnostics.upstream) if diagnostics.upstream else None),
    )
    rows = [(label, value) for label, value in fields if value is not None]
    rows.extend((f"attempt {record.number}", _attempt(record)) for record in diagnostics.attempts)
    return rows


def _attempt(record: AttemptRecord) -> str:
    if record.spawn_error is not None:
        how = f"not started ({record.spawn_error})"
    elif record.timed_out:
        how = "timed out, process group killed"
    elif record.over_limit:
        how = "output over max_bytes, process group killed"
    elif record.signal is not None:
        how = f"killed by signal {record.signal}"
    else:
        how = f"exit status {record.exit_status}"
    verdict = record.outcome if record.error_code is None else f"{record.layer}: {record.reason}"
    text = f"{how}; {record.stdout_size} bytes out; {verdict}; {record.duration_ms} ms"
    if record.stderr_size:
        text += f"; stderr ({record.stderr_size} bytes): {record.stderr}"
    return text
