"""The newline-delimited framing of `serve` and `mcp`: lines cut within a byte cap, from any chunks.

A caller's line is a request; a line that never ends must not hold memory or an answer. So
the framing is pushed whatever bytes a stream holds, and hands on each line as it completes:
an over-long line is handed on at once as such (its first `cap + 1` bytes, enough to refuse
it, or for `mcp` to find its id) and the rest of it is dropped as it comes. Blank lines are
skipped. The end of the stream ends the last line. One framing for every newline-delimited
input: `serve`'s stdin, both of `mcp`'s sides and its server's stderr.
"""

from __future__ import annotations

from collections.abc import Callable


class Lines:
    """Lines of at most `cap` bytes (the newline not counted) from chunks, to `handle`.

    `handle(line, over_long)`: an over-long line comes as its first `cap + 1` bytes, before
    the rest of it is read, which is then dropped as it comes.
    """

    def __init__(self, cap: int, handle: Callable[[bytes, bool], None]) -> None:
        self._cap = cap
        self._handle = handle
        self._start = bytearray()  # the line being read, up to `cap` bytes
        self._dropping = False  # the rest of an over-long line, until its newline

    def feed(self, chunk: bytes) -> None:
        """Hand on every line `chunk` completes; keep the start of the next."""
        at = 0
        if self._dropping:
            at = chunk.find(b"\n") + 1
            if not at:
                return
            self._dropping = False
        while (end := chunk.find(b"\n", at)) >= 0:
            if self._start:
                line = bytes(self._start) + chunk[at : end + 1]
                self._start.clear()
            else:
                line = chunk if at == 0 and end == len(chunk) - 1 else chunk[at : end + 1]
            at = end + 1
            if len(line) > self._cap + 1:
                self._handle(line[: self._cap + 1], True)
            elif line.strip(b" \t\r\n"):
                self._handle(line, False)
        if len(self._start) + len(chunk) - at > self._cap:
            cut = bytes(self._start) + chunk[at : at + self._cap + 1 - len(self._start)]
            self._start.clear()
            self._dropping = True
            self._handle(cut, True)
        else:
            self._start += memoryview(chunk)[at:]

    def end(self) -> None:
        """The end of the stream ends the last line: it is handed on with its newline.

        NOTE: passed on as it came, a last line without one would run into the next line
        written to the same side (a line from the other side, or toolguard's own).
        """
        line = bytes(self._start)
        self._start.clear()
        if line.strip(b" \t\r\n"):
            self._handle(line + b"\n", False)
