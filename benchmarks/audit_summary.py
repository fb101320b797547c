"""`toolguard audit summary`, per record: a script, not a test.

Writes a log of realistic records (benchmarks/audit_lookup.py's: successes, schema and rule
rejections, one second apart), then times, in turns so that machine noise falls on all alike:

- `json.loads` of every line (bytes in, no check: the floor any reader pays),
- `summary.summarize` over the log as it runs (the screen vouches, the strict path defers),
- `summary.summarize` with the screen off (every line parsed strictly and schema-checked:
  what it cost before the screen),
- `toolguard audit summary --format json` as a process, start-up included.

Each is given in microseconds per record: the median wall time of the rounds and their
spread, and the median CPU time (this process's and its children's), which the other work on
a shared machine inflates far less than the wall time.

    .venv/bin/python benchmarks/audit_summary.py [--records N] [--rounds N]

`figures()` returns the numbers for `benchmarks/run.py`.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from audit_lookup import write_log

from toolguard.audit import log
from toolguard.explain import screen
from toolguard.explain.summary import summarize

RECORDS = 100_000
ROUNDS = 7
GOAL_US = 15.0  # issue 18: at most 15 us per record


@contextmanager
def screen_off() -> Iterator[None]:
    """Every line goes the strict way, as before the screen."""
    vouched = screen.vouched
    screen.vouched = lambda _line: None  # type: ignore[assignment]
    try:
        yield
    finally:
        screen.vouched = vouched  # type: ignore[assignment]


def strict_summarize(path: Path) -> object:
    with screen_off():
        return summarize(path)


def json_loads(path: Path) -> object:
    loads = json.loads
    # NOTE: each value is dropped, as summarize drops each record: 100,000 values kept alive
    # would make the collector re-traverse them all, and inflate the floor.
    for line in log.all_lines(path):
        if line:
            loads(line)
    return None


def cli(path: Path) -> object:
    argv = [sys.executable, "-m", "toolguard", "audit", "summary", str(path), "--format", "json"]
    done = subprocess.run(argv, capture_output=True, check=True)
    return json.loads(done.stdout)


CASES: dict[str, Callable[[Path], object]] = {
    "json.loads per line": json_loads,
    "summarize": summarize,
    "summarize, screen off": strict_summarize,
    "toolguard audit summary": cli,
}


def cpu_seconds() -> float:
    """CPU time of this process and of its children waited for."""
    spent = os.times()
    return spent.user + spent.system + spent.children_user + spent.children_system


def figures(records: int = RECORDS, rounds: int = ROUNDS) -> dict[str, dict[str, float]]:
    """Per case, microseconds per record over `rounds` interleaved runs: median, min and max
    wall time, and median CPU time."""
    timings: dict[str, list[float]] = {name: [] for name in CASES}
    cpu: dict[str, list[float]] = {name: [] for name in CASES}
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "audit.jsonl"
        write_log(path, records)
        expected = summarize(path)
        assert (expected.records, expected.malformed) == (records, 0), expected
        assert strict_summarize(path) == expected
        for _ in range(rounds):
            for name, run in CASES.items():
                started, cpu_started = time.perf_counter(), cpu_seconds()
                run(path)
                timings[name].append((time.perf_counter() - started) / records * 1e6)
                cpu[name].append((cpu_seconds() - cpu_started) / records * 1e6)
    return {
        name: {
            "median": statistics.median(values),
            "min": min(values),
            "max": max(values),
            "cpu": statistics.median(cpu[name]),
        }
        for name, values in timings.items()
    }


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--records", type=int, default=RECORDS)
    parser.add_argument("--rounds", type=int, default=ROUNDS)
    options = parser.parse_args(argv)
    results = figures(options.records, options.rounds)
    floor = results["json.loads per line"]["median"]
    print(f"{options.records:,} records, {options.rounds} interleaved rounds; us per record\n")
    cpu_floor = results["json.loads per line"]["cpu"]
    print(
        f"{'case':24} {'median':>8} {'min':>8} {'max':>8} {'x loads':>8} {'CPU':>8} {'x loads':>8}"
    )
    for name, figure in results.items():
        print(
            f"{name:24} {figure['median']:8.2f} {figure['min']:8.2f} {figure['max']:8.2f} "
            f"{figure['median'] / floor:8.2f} {figure['cpu']:8.2f} {figure['cpu'] / cpu_floor:8.2f}"
        )
    met = results["summarize"]["median"] <= GOAL_US
    print(
        f"\ngoal: summarize at most {GOAL_US:.0f} us per record: "
        f"{'met' if met else 'not met'} ({results['summarize']['median']:.2f};"
        f" CPU {results['summarize']['cpu']:.2f})"
    )
    before = results["summarize, screen off"]["median"]
    print(f"screen: {before / results['summarize']['median']:.2f}x faster than the strict path")
    print(f"{sys.executable}; {os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
