"""Hostile inputs are rejected in milliseconds with flat memory: a script, not a test.

Part 1 runs `toolguard check` as a real subprocess (the venv's own interpreter) on each input
and prints wall time and the child's peak RSS beside a bare `python -c pass`. Part 2 times the
check itself in-process (`Contract.check` / the stream reader), without interpreter start-up,
with the peak of Python allocations during the check.

    .venv/bin/python benchmarks/rejections.py
"""

from __future__ import annotations

import io
import os
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

from launcher import Launcher

from toolguard import check, load_contract
from toolguard.pipeline import check_stream
from toolguard.request import make_request

HERE = Path(__file__).resolve().parent
CONTRACT = HERE / "contract" / "contract.toml"
RUNS = 5


def measure(argv: list[str], feed: Path | None = None, stream_mb: int = 0) -> tuple[float, int]:
    """Best-of-RUNS wall seconds and peak RSS (KiB) of the child, fed a file or a stream.

    The child is spawned by `launcher.Launcher`: its `ru_maxrss` would otherwise include this
    script's own memory (Linux folds the spawning process's size into it at exec).
    """
    launcher = Launcher()
    try:
        runs = [launcher.run(argv, feed=feed, stream_mb=stream_mb) for _ in range(RUNS)]
    finally:
        launcher.close()
    return min(seconds for _, seconds, _ in runs), max(rss for _, _, rss in runs)


class _Endless(io.RawIOBase):
    """A stream of `[` that would go on for `total` bytes: a 200 MB upstream, never in memory."""

    def __init__(self, total: int) -> None:
        self.left = total
        self.served = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        size = min(len(buffer), self.left)
        buffer[:size] = b"[" * size
        self.left -= size
        self.served += size
        return size


def in_process() -> None:
    """Time the check alone (best of RUNS) and the peak of Python allocations during it."""
    contract = load_contract(CONTRACT)
    request = make_request("req.benchmark")
    cases: list[tuple[str, Any]] = [
        ("12-byte accepted document", lambda: check(contract, b'{"ok": true}')),
        ("1,000,000-deep document", lambda: check(contract, b"[" * 1_000_000)),
        (
            "200 MB stream (limit 1 MiB)",
            lambda: check_stream(contract, io.BufferedReader(_Endless(200 << 20)), request),
        ),
        ("5,000-digit integer", lambda: check(contract, b'{"ok": ' + b"9" * 5000 + b"}")),
    ]
    print(f"\n{'in-process case':40} {'best ms':>9} {'peak alloc MiB':>15} {'outcome':>30}")
    for name, run in cases:
        best = float("inf")
        for _ in range(RUNS):
            started = time.perf_counter()
            run()
            best = min(best, time.perf_counter() - started)
        tracemalloc.start()  # a separate run: tracing slows allocation-heavy code down
        _, diagnostics = run()
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        outcome = diagnostics.reason or diagnostics.outcome
        print(f"{name:40} {best * 1000:9.2f} {peak / 2**20:15.2f} {outcome:>30}")


def main() -> None:
    python = sys.executable
    check = [python, "-m", "toolguard", "check", str(CONTRACT)]
    with tempfile.TemporaryDirectory() as tmp:
        deep = Path(tmp) / "deep.json"
        deep.write_bytes(b"[" * 1_000_000)
        small = Path(tmp) / "small.json"
        small.write_bytes(b'{"ok": true}')
        digits = Path(tmp) / "digits.json"
        digits.write_bytes(b'{"ok": ' + b"9" * 5000 + b"}")
        rows = [
            ("python -c pass", measure([python, "-c", "pass"])),
            ("check: 12-byte accepted document", measure(check, small)),
            ("check: 1,000,000-deep document", measure(check, deep)),
            ("check: 200 MB stream (limit 1 MiB)", measure(check, stream_mb=200)),
            ("check: 5,000-digit integer", measure(check, digits)),
        ]
    base_time, base_rss = rows[0][1]
    print(f"{'case':40} {'wall ms':>9} {'x bare':>7} {'peak RSS MiB':>13} {'x bare':>7}")
    for name, (seconds, rss) in rows:
        print(
            f"{name:40} {seconds * 1000:9.1f} {seconds / base_time:7.2f} "
            f"{rss / 1024:13.1f} {rss / base_rss:7.2f}"
        )
    in_process()
    print(
        f"\nbest of {RUNS} runs; {python}; {os.uname().sysname} {os.uname().machine}, "
        f"{os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
