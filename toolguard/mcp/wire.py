"""The newline-delimited framing: lines read within the byte cap, lines written whole.

Reading uses the one bounded line reader (`limits.read_line`, shared with `serve`): an
over-long line is handed on as such (its first bytes, to establish its id) and the rest of it
is dropped unread into memory. Each side's output is written one whole line at a time, under
its own lock, so lines from several threads never interleave.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from typing import IO, TYPE_CHECKING

from toolguard.limits import discard_rest, read_line

if TYPE_CHECKING:
    from toolguard.limits import LineSource


def read_lines(stream: LineSource, cap: int, handle: Callable[[bytes, bool], None]) -> None:
    """Call `handle(line, over_long)` for each non-blank line until end of stream.

    An over-long line is handled first (its call fails at once), then the rest of it is
    dropped: a line that never ends must not hold its call until the timeout.
    """
    while True:
        try:
            line, over_long = read_line(stream, cap)
        except (OSError, ValueError):
            return  # closed under us: the end of the stream
        if not line:
            return
        if over_long or line.strip(b" \t\r\n"):
            handle(line, over_long)
        if over_long:
            try:
                discard_rest(stream)
            except (OSError, ValueError):
                return


class Output:
    """One side's output: whole lines, one writer at a time; `gone` once it cannot be written."""

    def __init__(self, stream: IO[bytes] | None, on_gone: Callable[[], None] | None = None) -> None:
        self._stream = stream
        self._lock = threading.Lock()
        self._on_gone = on_gone
        # Called after each line written: the side written to usually answers soon, and its
        # reader polls for the answer (`PolledInput.expect`).
        self.then: Callable[[], None] | None = None

    @property
    def gone(self) -> bool:
        """Whether nothing more can be written."""
        return self._stream is None

    def write(self, line: bytes) -> None:
        """Write one line; if the other side stopped reading, mark the output gone."""
        with self._lock:
            stream = self._stream
            if stream is None:
                return
            try:
                stream.write(line)
                stream.flush()
            except (OSError, ValueError):
                self._stream = None
                gone = self._on_gone
            else:
                if self.then is not None:
                    self.then()
                return
        if gone is not None:
            gone()

    def close(self) -> None:
        """Close it (the server's stdin: the server sees the end of its input)."""
        with self._lock:
            stream, self._stream = self._stream, None
            if stream is not None:
                with contextlib.suppress(OSError, ValueError):  # the reader is gone already
                    stream.close()
