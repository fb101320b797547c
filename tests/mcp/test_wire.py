"""wire.py: lines read within the cap (the rest dropped unread), lines written whole."""

from __future__ import annotations

import io
import os
import threading

from toolguard.mcp.wire import Output, read_lines


def test_lines_are_read_within_the_cap_and_blank_lines_skipped() -> None:
    """An over-long line is handed on as such, cut; the next line is intact."""
    stream = io.BytesIO(b'{"a":1}\n\n  \r\n' + b"x" * 1000 + b"\n" + b'{"b":2}')
    seen: list[tuple[bytes, bool]] = []
    read_lines(stream, 64, lambda line, over: seen.append((line, over)))
    assert seen == [(b'{"a":1}\n', False), (b"x" * 65, True), (b'{"b":2}', False)]


def test_output_marks_itself_gone_when_the_reader_goes() -> None:
    """A broken pipe: the write is dropped, `on_gone` runs once, later writes do nothing."""

    class Broken(io.BytesIO):
        def write(self, data: bytes) -> int:  # type: ignore[override]
            raise BrokenPipeError

    gone: list[bool] = []
    output = Output(Broken(), lambda: gone.append(True))
    output.write(b"one\n")
    output.write(b"two\n")
    assert output.gone
    assert gone == [True]


def test_lines_from_several_threads_never_interleave() -> None:
    """Each write is one whole line."""
    stream = io.BytesIO()
    output = Output(stream)
    lines = [bytes([65 + n]) * 5000 + b"\n" for n in range(8)]
    threads = [
        threading.Thread(target=lambda line=line: [output.write(line) for _ in range(20)])
        for line in lines
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    written = stream.getvalue().splitlines(keepends=True)
    assert len(written) == 160
    assert set(written) == set(lines)


def test_an_over_long_line_is_handled_before_its_rest_is_read() -> None:
    """A line that never ends: its first bytes are handed on before the rest is dropped."""
    read, write = os.pipe()
    handled = threading.Event()
    os.write(write, b"x" * 200)
    with os.fdopen(read, "rb") as stream:
        reader = threading.Thread(target=read_lines, args=(stream, 64, lambda *_: handled.set()))
        reader.start()
        try:
            seen = handled.wait(5)  # the writer end is still open: the line has not ended
        finally:
            os.close(write)
            reader.join(10)
    assert seen
