"""What `toolguard mcp` adds to each guarded call: a script, not a test.

A small raw line MCP server (benchmarks/lockstep.py's, no SDK: its own cost stays out of the
figures) answers `get_current_time` with the `examples/get_current_time` payload. A raw
line-by-line client calls it lock-step (write one call, wait for its answer), CALLS small calls
each way, the ways taking turns ROUNDS times to spread machine noise:

- direct to the server;
- through a bare relay: a Python process that copies lines both ways and does nothing else
  (the floor any stdio proxy in Python pays: two more pipe hops and two more wake-ups);
- through `toolguard mcp --contract examples/get_current_time/contract.toml` (audit off,
  diagnostics to /dev/null).

The figures are medians per call: toolguard's overhead over direct (the goal: 300 us), and how
it splits into the bare relay's floor and toolguard's own work. Then MEMORY_CALLS calls through
one toolguard session, toolguard's resident memory read from /proc every tenth of them: flat
(after warm-up) means no growth per call. `run.py` gives the same goal with stderr a pipe.

    .venv/bin/python benchmarks/mcp.py [--calls 300] [--rounds 5] [--memory-calls 10000]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys

from lockstep import MCP_GOAL_US, Peer, Way, ways


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-calls", type=int, default=10_000)
    options = parser.parse_args()
    with ways() as found:
        chosen = [found[name] for name in ("direct", "bare relay", "mcp")]
        times: dict[str, list[float]] = {way.name: [] for way in chosen}
        cpu: dict[str, float] = dict.fromkeys(times, 0.0)
        for _ in range(options.rounds):
            for way in chosen:
                peer = Peer(way, stderr="devnull")
                peer.timed(20)  # warm-up: first calls load code, fill caches
                before = peer.cpu_seconds()
                times[way.name].extend(peer.timed(options.calls))
                cpu[way.name] += peer.cpu_seconds() - before
                peer.close()
        report_overhead(times, options)
        calls = options.rounds * options.calls
        print("CPU time per call of the process the client talks to (us; less sensitive to load):")
        relay_cpu, toolguard_cpu = (cpu[name] / calls * 1e6 for name in ("bare relay", "mcp"))
        print(f"  bare relay {relay_cpu:8.1f}   toolguard {toolguard_cpu:8.1f}")
        report_memory(found["mcp"], options.memory_calls)
    print(f"\n{sys.executable}; {os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs")


def report_overhead(times: dict[str, list[float]], options: argparse.Namespace) -> None:
    medians = {name: statistics.median(values) for name, values in times.items()}
    direct, floor, guarded = medians["direct"], medians["bare relay"], medians["mcp"]
    overhead = guarded - direct
    verdict = "met" if overhead <= MCP_GOAL_US else "NOT met"
    print(f"per call, median of {options.rounds} x {options.calls} lock-step calls each way (us):")
    for name, values in times.items():
        low, _, high = statistics.quantiles(values, n=4)
        ratio = medians[name] / direct
        spread = f"p25 {low:.1f}, p75 {high:.1f}"
        print(f"  {name:12} {medians[name]:8.1f}  ({ratio:5.2f}x direct; {spread})")
    print(f"  overhead over direct: {overhead:.1f} us (goal <= {MCP_GOAL_US:.0f} us: {verdict})")
    own = guarded - floor
    print(f"    the bare relay's floor {floor - direct:.1f} us, toolguard's own work {own:.1f} us")


def report_memory(way: Way, calls: int) -> None:
    """toolguard's RSS every tenth of the calls: a leak grows with each, warm-up does not."""
    peer = Peer(way, stderr="devnull")
    step = max(calls // 10, 1)
    samples = []
    spent = 0.0
    for _ in range(10):
        spent += sum(peer.timed(step))
        samples.append(peer.rss_kib())
    peer.close()
    second_half = samples[-1] - samples[4]
    print(f"memory over {10 * step:,} guarded calls (toolguard's RSS, KiB, every {step:,} calls):")
    print("  " + " ".join(str(sample) for sample in samples))
    per_call = spent / (10 * step)
    print(f"  growth over the second half: {second_half:+} KiB ({per_call:.0f} us per call)")


if __name__ == "__main__":
    main()
