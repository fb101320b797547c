"""Hostile inputs are rejected in milliseconds with flat memory: a script, not a test.

Runs `toolguard check` as a real subprocess (the venv's own interpreter) on each input and
prints wall time and the child's peak RSS beside a bare `python -c pass`.

    .venv/bin/python benchmarks/rejections.py
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTRACT = HERE / "contract" / "contract.toml"
RUNS = 5


def measure(argv: list[str], feed: Path | None = None, stream_mb: int = 0) -> tuple[float, int]:
    """Best-of-RUNS wall seconds and peak RSS (KiB) of the child, fed a file or a stream."""
    best_time, peak = float("inf"), 0
    for _ in range(RUNS):
        stdin = feed.open("rb") if feed else subprocess.PIPE
        started = time.perf_counter()
        child = subprocess.Popen(
            argv, stdin=stdin, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        if stream_mb:
            assert child.stdin is not None
            block = b"[" * (1 << 20)
            try:
                for _ in range(stream_mb):
                    child.stdin.write(block)
            except BrokenPipeError:
                pass  # toolguard stopped reading: what we want
            with contextlib.suppress(BrokenPipeError):
                child.stdin.close()
        _, _, usage = os.wait4(child.pid, 0)
        child.returncode = 0
        best_time = min(best_time, time.perf_counter() - started)
        peak = max(peak, usage.ru_maxrss)
        if feed:
            stdin.close()
    return best_time, peak


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
    print(
        f"\nbest of {RUNS} runs; {python}; {os.uname().sysname} {os.uname().machine}, "
        f"{os.cpu_count()} CPUs"
    )


if __name__ == "__main__":
    main()
