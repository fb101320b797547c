"""`serve` against its summed floor, as three kinds of caller measure it (no goal of its own).

`lockstep.py` holds `serve` to the tightest floor there is: a raw binary line client and a
binary echo, which on this VM share a CPU in many rounds (an 8 µs round trip, nothing
asleep). Agent frameworks call differently, and the floor moves with them; each kind below
times the bare echo and `serve` (review_status, its defaults, audit off, stderr discarded)
with the same client, in the same round, and divides `serve` by (echo + the check in
process, timed in that round):

- raw: `lockstep.py`'s client (binary pipes, `write` + `flush` + `readline`), binary echo;
- text: `subprocess.Popen(text=True)` line by line, and an echo that reads `sys.stdin` as text
  (`for line in sys.stdin`), as a short script would write both;
- asyncio: `asyncio.create_subprocess_exec`, `drain` and `readline`, as async frameworks call
  tools (the MCP SDKs among them); the binary echo.

    python benchmarks/clients.py [--rounds 5] [--calls 2000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from lockstep import ECHO, PYTHON, REPO, REVIEW, SERVE_LINE, environment, in_process_checks

TEXT_ECHO = """
import sys
for line in sys.stdin:
    sys.stdout.write(line)
    sys.stdout.flush()
"""
SERVE = [PYTHON, "-m", "toolguard", "serve", str(REVIEW)]
WARM_UP = 200


def _raw(argv: list[str], calls: int) -> float:
    return _blocking(argv, calls, text=False)


def _text(argv: list[str], calls: int) -> float:
    return _blocking(argv, calls, text=True)


def _blocking(argv: list[str], calls: int, *, text: bool) -> float:
    """Median µs per call of a `subprocess.Popen` client, binary or text."""
    process = subprocess.Popen(
        argv,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        cwd=REPO,
        env=environment(),
        text=text,
        bufsize=1 if text else -1,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    line = SERVE_LINE.decode() if text else SERVE_LINE
    write, flush, read = process.stdin.write, process.stdin.flush, process.stdout.readline
    times = []
    for number in range(WARM_UP + calls):
        started = time.perf_counter_ns()
        write(line)
        flush()
        answer = read()
        times.append(time.perf_counter_ns() - started)
        assert answer, f"{argv[-1]}: no answer to call {number}"
    process.stdin.close()
    process.wait(timeout=30)
    return statistics.median(times[WARM_UP:]) / 1000


def _async(argv: list[str], calls: int) -> float:
    """Median µs per call of an `asyncio` subprocess client."""

    async def run() -> float:
        process = await asyncio.create_subprocess_exec(
            *argv,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            cwd=REPO,
            env=environment(),
        )
        assert process.stdin is not None
        assert process.stdout is not None
        times = []
        for number in range(WARM_UP + calls):
            started = time.perf_counter_ns()
            process.stdin.write(SERVE_LINE)
            await process.stdin.drain()
            answer = await process.stdout.readline()
            times.append(time.perf_counter_ns() - started)
            assert answer, f"{argv[-1]}: no answer to call {number}"
        process.stdin.close()
        await process.wait()
        return statistics.median(times[WARM_UP:]) / 1000

    return asyncio.run(run())


# kind -> (its client, which echo script)
KINDS: dict[str, tuple[Callable[[list[str], int], float], str]] = {
    "raw": (_raw, "echo"),
    "text": (_text, "text echo"),
    "asyncio": (_async, "echo"),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--calls", type=int, default=2000)
    options = parser.parse_args()
    found: dict[str, dict[str, list[float]]] = {
        kind: {"echo": [], "serve": [], "ratio": []} for kind in KINDS
    }
    with tempfile.TemporaryDirectory(prefix="toolguard-clients-") as folder:
        scripts = {"echo": Path(folder) / "echo.py", "text echo": Path(folder) / "text_echo.py"}
        scripts["echo"].write_text(ECHO)
        scripts["text echo"].write_text(TEXT_ECHO)
        for number in range(options.rounds):
            check = statistics.median(in_process_checks(options.calls)["check serve"])
            kinds = list(KINDS)
            start = number % len(kinds)
            for kind in kinds[start:] + kinds[:start]:
                client, echo_script = KINDS[kind]
                echo = client([PYTHON, str(scripts[echo_script])], options.calls)
                serve = client(SERVE, options.calls)
                found[kind]["echo"].append(echo)
                found[kind]["serve"].append(serve)
                found[kind]["ratio"].append(serve / (echo + check))
            print(f"  round {number + 1}/{options.rounds}: check {check:.1f} us", file=sys.stderr)
    print(f"{options.rounds} rounds x {options.calls:,} calls each; median of the round medians\n")
    print("| client  | echo us (range) | serve us (range) | serve / (echo + check) |")
    print("|---------|----------------:|-----------------:|-----------------------:|")
    for kind, values in found.items():
        echo, serve, ratio = values["echo"], values["serve"], values["ratio"]
        print(
            f"| {kind:<7} | {statistics.median(echo):.1f} ({min(echo):.1f}-{max(echo):.1f})"
            f" | {statistics.median(serve):.1f} ({min(serve):.1f}-{max(serve):.1f})"
            f" | {statistics.median(ratio):.2f}x ({min(ratio):.2f}-{max(ratio):.2f}x) |"
        )


if __name__ == "__main__":
    main()
