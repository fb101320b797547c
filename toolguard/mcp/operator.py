"""The operator's channel: stderr that never blocks the relay, and the server's stderr on it.

MCP clients often never read a server's stderr. A blocking write there would stall the relay
once the pipe fills, so diagnostics go to a bounded queue that one thread drains into stderr;
what does not fit is dropped and counted, and the count is reported at exit. The server's own
stderr is read line by line within a bound and relayed through the same channel, escaped.
"""

from __future__ import annotations

import collections
import contextlib
import json
import threading
from typing import IO, cast

from toolguard import report
from toolguard.limits import discard_rest, read_line
from toolguard.result import Diagnostics
from toolguard.text import clean

CAPACITY = 1024  # queued lines before new ones are dropped
SERVER_LINE = 4096  # bytes of one server stderr line kept; the rest is dropped
FLUSH_INTERVAL = 0.05  # seconds between the writer's rounds
_SHOWN = 1024
_CLOSE_WAIT = 1.0  # seconds to let queued diagnostics out at exit


class OperatorChannel:
    """A file-like stderr for `report`: writes are queued, never block, and may be dropped.

    NOTE: the seam for "Trust boundaries" (serve's operator channel): swap in the shared
    non-blocking writer when it lands; this one is the minimal version `mcp` needs now. The
    writer thread is not woken per line (a thread switch per guarded call would cost more
    than the line): it writes what has queued every `FLUSH_INTERVAL`.
    """

    def __init__(self, stream: IO[str] | None, mode: str, capacity: int = CAPACITY) -> None:
        self.mode = mode
        self.dropped = 0
        self._stream = stream
        self._capacity = capacity
        self._queue: collections.deque[str] = collections.deque()
        self._closing = threading.Event()
        self._thread = threading.Thread(target=self._drain, name="operator", daemon=True)
        self._thread.start()

    def write(self, text: str) -> int:
        """Queue `text`; drop it (and count it) if the queue is full."""
        self._put(text)
        return len(text)

    def render(self, diagnostics: Diagnostics) -> None:
        """Queue one check's diagnostics, rendered as `check` renders them.

        NOTE: rendered by the caller (the relay, once the answer is written), not by the
        writer thread: rendering a batch there holds the GIL while calls wait.
        """
        report.render(diagnostics, self.mode, cast("IO[str]", self))

    def _put(self, item: str) -> None:
        if len(self._queue) >= self._capacity:
            self.dropped += 1
        else:
            self._queue.append(item)  # NOTE: deque.append is atomic: no lock needed

    def flush(self) -> None:
        """Nothing to do: the writer thread flushes."""

    def isatty(self) -> bool:
        """Never a terminal: diagnostics are written as plain lines."""
        return False

    def notice(self, event: str, message: str) -> None:
        """One line about the relay itself (a dropped line, a removed tool), escaped."""
        if self.mode == "json":
            record = {"outcome": "notice", "event": event, "message": clean(message)}
            self.write(json.dumps(record, ensure_ascii=True, separators=(",", ":")) + "\n")
        else:
            self.write(f"toolguard: mcp: {clean(message)}\n")

    def close(self) -> None:
        """Let queued lines out for a moment, then say how many were dropped."""
        self._closing.set()
        self._thread.join(_CLOSE_WAIT)
        if self.dropped and self._stream is not None and not self._thread.is_alive():
            with contextlib.suppress(OSError, ValueError):
                self._stream.write(
                    f"toolguard: mcp: {self.dropped} diagnostic lines were dropped: "
                    "nobody read stderr fast enough\n"
                )
                self._stream.flush()

    def _drain(self) -> None:
        while True:
            closing = self._closing.wait(FLUSH_INTERVAL)
            # NOTE: what was queued when the round began, no more: under a steady stream of
            # calls, "until the queue is empty" might never end, nor ever write.
            lines = [self._queue.popleft() for _ in range(len(self._queue))]
            if lines and self._stream is not None:
                try:
                    self._stream.write("".join(lines))
                    self._stream.flush()
                except (OSError, ValueError):
                    self._stream = None  # stderr is gone: keep draining, write nothing
            if closing:
                return


def relay_server_stderr(stream: IO[bytes], channel: OperatorChannel) -> None:
    """Copy the server's stderr to the channel, line by line, escaped and bounded."""
    with contextlib.suppress(OSError, ValueError):
        while True:
            line, over_long = read_line(stream, SERVER_LINE)
            if not line:
                return
            if over_long:
                discard_rest(stream)
            text = line.decode("utf-8", "replace").rstrip("\r\n")
            if over_long:
                text += " [rest of the line dropped]"
            if channel.mode == "json":
                channel.notice("server_stderr", text[:_SHOWN])
            else:
                channel.write(f"toolguard: server: {clean(text, _SHOWN)}\n")
