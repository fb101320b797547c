"""What `toolguard mcp` adds to each guarded call: a script, not a test.

A small raw line MCP server (below, no SDK: its own cost stays out of the figures) answers
`get_current_time` with the `examples/get_current_time` payload. A raw line-by-line client
calls it lock-step (write one call, wait for its answer), CALLS small calls each way, the ways
taking turns ROUNDS times to spread machine noise:

- direct to the server;
- through a bare relay: a Python process that copies lines both ways and does nothing else
  (the floor any stdio proxy in Python pays: two more pipe hops and two more wake-ups);
- through `toolguard mcp --contract examples/get_current_time/contract.toml` (audit off,
  diagnostics to /dev/null).

The figures are medians per call: toolguard's overhead over direct (the goal: 300 us), and how
it splits into the bare relay's floor and toolguard's own work. Then MEMORY_CALLS calls through
one toolguard session, toolguard's resident memory read from /proc every tenth of them: flat
(after warm-up) means no growth per call.

    .venv/bin/python benchmarks/mcp.py [--calls 300] [--rounds 5] [--memory-calls 10000]
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
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
CONTRACT = REPO / "examples" / "get_current_time" / "contract.toml"
GOAL_US = 300.0
SERVER = r"""
import json, sys
from datetime import datetime
from zoneinfo import ZoneInfo
write = sys.stdout.write
for line in sys.stdin:
    message = json.loads(line)
    method, rid = message.get("method"), message.get("id")
    if method == "initialize":
        result = {"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                  "serverInfo": {"name": "bench", "version": "1"}}
    elif method == "tools/call":
        zone = message["params"]["arguments"]["timezone"]
        now = datetime.now(ZoneInfo(zone))
        payload = {"timezone": zone, "datetime": now.isoformat(timespec="seconds"),
                   "day_of_week": now.strftime("%A"), "is_dst": bool(now.dst())}
        result = {"content": [{"type": "text", "text": json.dumps(payload)}],
                  "structuredContent": payload, "isError": False}
    else:
        continue
    write(json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}) + "\n")
    sys.stdout.flush()
"""
RELAY = r"""
import subprocess, sys, threading
server = subprocess.Popen(sys.argv[1:], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
def up():
    for line in sys.stdin.buffer:
        server.stdin.write(line)
        server.stdin.flush()
    server.stdin.close()
threading.Thread(target=up, daemon=True).start()
for line in server.stdout:
    sys.stdout.buffer.write(line)
    sys.stdout.buffer.flush()
"""
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-11-25",
        "capabilities": {},
        "clientInfo": {"name": "bench", "version": "1"},
    },
}


class Session:
    """A raw line client on one process: write a line, read a line."""

    def __init__(self, argv: list[str]) -> None:
        env = {
            key: value for key, value in os.environ.items() if not key.startswith("TOOLGUARD_AUDIT")
        }
        env.pop("TOOLGUARD_RAW_DIR", None)
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=REPO,
            env=env,
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        self.next_id = 1
        self.ask(INITIALIZE)

    def ask(self, message: dict[str, object]) -> bytes:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        self.stdin.flush()
        return self.stdout.readline()

    def call(self) -> bytes:
        self.next_id += 1
        params = {"name": "get_current_time", "arguments": {"timezone": "Europe/Paris"}}
        return self.ask(
            {"jsonrpc": "2.0", "id": self.next_id, "method": "tools/call", "params": params}
        )

    def timed_calls(self, calls: int) -> list[float]:
        times = []
        for _ in range(calls):
            started = time.perf_counter_ns()
            answer = self.call()
            times.append((time.perf_counter_ns() - started) / 1000)
            assert b'"isError":false' in answer or b'"isError": false' in answer, answer[:300]
        return times

    def cpu_seconds(self) -> float:
        """CPU time (user + system) of the process this session talks to, so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        """Resident memory of the process this session talks to (toolguard, not its server)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(
            next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        )

    def close(self) -> None:
        self.stdin.close()
        self.process.wait(timeout=30)
        self.stdout.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--memory-calls", type=int, default=10_000)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        server, relay = Path(folder) / "server.py", Path(folder) / "relay.py"
        server.write_text(SERVER)
        relay.write_text(RELAY)
        direct = [sys.executable, str(server)]
        ways = {
            "direct": direct,
            "bare relay": [sys.executable, str(relay), *direct],
            "toolguard": [
                sys.executable,
                "-m",
                "toolguard",
                "mcp",
                "--contract",
                str(CONTRACT),
                "--",
                *direct,
            ],
        }
        times: dict[str, list[float]] = {name: [] for name in ways}
        cpu: dict[str, float] = dict.fromkeys(ways, 0.0)
        for _ in range(options.rounds):
            for name, argv in ways.items():
                session = Session(argv)
                session.timed_calls(20)  # warm-up: first calls load code, fill caches
                before = session.cpu_seconds()
                times[name].extend(session.timed_calls(options.calls))
                cpu[name] += session.cpu_seconds() - before
                session.close()
        report_overhead(times, options)
        calls = options.rounds * options.calls
        print("CPU time per call of the process the client talks to (us; less sensitive to load):")
        relay_cpu, toolguard_cpu = (cpu[name] / calls * 1e6 for name in ("bare relay", "toolguard"))
        print(f"  bare relay {relay_cpu:8.1f}   toolguard {toolguard_cpu:8.1f}")
        report_memory(ways["toolguard"], options.memory_calls)
    print(f"\n{sys.executable}; {os.uname().sysname} {os.uname().machine}, {os.cpu_count()} CPUs")


def report_overhead(times: dict[str, list[float]], options: argparse.Namespace) -> None:
    medians = {name: statistics.median(values) for name, values in times.items()}
    direct, floor, guarded = medians["direct"], medians["bare relay"], medians["toolguard"]
    overhead = guarded - direct
    verdict = "met" if overhead <= GOAL_US else "NOT met"
    print(f"per call, median of {options.rounds} x {options.calls} lock-step calls each way (us):")
    for name, values in times.items():
        low, _, high = statistics.quantiles(values, n=4)
        ratio = medians[name] / direct
        spread = f"p25 {low:.1f}, p75 {high:.1f}"
        print(f"  {name:12} {medians[name]:8.1f}  ({ratio:5.2f}x direct; {spread})")
    print(f"  overhead over direct: {overhead:.1f} us (goal <= {GOAL_US:.0f} us: {verdict})")
    own = guarded - floor
    print(f"    the bare relay's floor {floor - direct:.1f} us, toolguard's own work {own:.1f} us")


def report_memory(argv: list[str], calls: int) -> None:
    """toolguard's RSS every tenth of the calls: a leak grows with each, warm-up does not."""
    session = Session(argv)
    step = max(calls // 10, 1)
    samples = []
    started = time.perf_counter()
    for _ in range(10):
        session.timed_calls(step)
        samples.append(session.rss_kib())
    per_call = (time.perf_counter() - started) / (10 * step)
    session.close()
    second_half = samples[-1] - samples[4]
    print(f"memory over {10 * step:,} guarded calls (toolguard's RSS, KiB, every {step:,} calls):")
    print("  " + " ".join(str(sample) for sample in samples))
    print(f"  growth over the second half: {second_half:+} KiB ({per_call * 1e6:.0f} us per call)")


if __name__ == "__main__":
    main()
