"""Lock-step over pipes, side by side: what `serve` and `mcp` cost per call, against their floors.

A raw line client talks to one process at a time, lock-step (write a line, wait for its
answer, as an agent framework does), stderr a pipe the client drains, audit off:

- echo: a bare Python line echo, fed serve's request line: the cost of the pipes alone;
- echo, busy: the same echo, answering each line only after spinning as long as the round's
  in-process check took (not a goal's floor: what any process doing the check's work in
  the middle of the round trip pays, wake-ups included, on this machine);
- loop: a Python line loop doing only a check's essential work in one process, over the same
  pipes (`json.loads` of the line, `make_request`, `check_bytes`, the envelope line);
- serve: `toolguard serve` on the review_status example (its default JSON diagnostics, and
  its default `--busy-poll 100`: stdin polled for 100 us after each answer before it sleeps);
- serve, no polling: the same with `--busy-poll 0`, which sleeps in `read` at once;
- direct: a small raw line MCP server (below, no SDK) answering `get_current_time`;
- bare relay: a Python process that copies lines both ways between the client and that server
  and does nothing else (what any stdio proxy written in Python pays);
- mcp: `toolguard mcp --contract examples/get_current_time/contract.toml` before that server.

Each round starts every way afresh, in a rotating order, and times CALLS calls of each after a
warm-up; the in-process check of each example is timed in the same round. The floors are
paired within a round: serve is held to (echo + its check in process) and to the loop, mcp
to direct. The check timed in a tight loop runs with every cache warm; between pipe round
trips (and the other processes they wake) it costs more, which the loop pays as serve does.
The figures are medians per call, and the spread is that of the per-round figures: the machine
is shared, and a round's neighbours see the same load.

Used by `mcp.py` and part 2 of `run.py`.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path

from toolguard import load_contract
from toolguard.pipeline import check_bytes
from toolguard.request import make_request

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable
SERVE_GOAL = 1.2  # serve <= 1.2x (echo + the check in process)
MCP_GOAL_US = 300.0  # mcp <= direct + 300 us

REVIEW = REPO / "examples" / "review_status" / "contract.toml"
REVIEW_RAW = (REVIEW.parent / "response.json").read_bytes()
REVIEW_CONTEXT = {"change_id": "CR-1042"}
SERVE_LINE = (
    json.dumps(
        {"raw": REVIEW_RAW.decode(), "context": REVIEW_CONTEXT, "request_id": "req.bench.0001"}
    ).encode()
    + b"\n"
)
TIME = REPO / "examples" / "get_current_time" / "contract.toml"
ZONE = "Europe/Paris"

ECHO = r"""
import sys
read, out = sys.stdin.buffer.readline, sys.stdout.buffer
while line := read():
    out.write(line)
    out.flush()
"""
BUSY_ECHO = r"""
import sys, time
spin, clock = int(float(sys.argv[1]) * 1000), time.perf_counter_ns
read, out = sys.stdin.buffer.readline, sys.stdout.buffer
while line := read():
    until = clock() + spin
    while clock() < until:
        pass
    out.write(line)
    out.flush()
"""
LOOP = r"""
import json, sys
from toolguard import envelope, load_contract
from toolguard.pipeline import check_bytes
from toolguard.request import make_request
contract = load_contract(sys.argv[1])
read, out = sys.stdin.buffer.readline, sys.stdout.buffer
while line := read():
    asked = json.loads(line)
    request = make_request(asked.get("request_id"), asked.get("context"))
    outcome = check_bytes(contract, asked["raw"].encode(), request)
    out.write(envelope.dumps(outcome.envelope).encode())
    out.flush()
"""
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


def environment() -> dict[str, str]:
    """This environment without any audit setting: audit off, as the goals are stated."""
    return {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("TOOLGUARD_AUDIT", "TOOLGUARD_RAW_DIR"))
    }


@dataclass(frozen=True)
class Way:
    """One process to talk to: its command, the line of call `n`, how a good answer starts."""

    name: str
    argv: list[str]
    line: Callable[[int], bytes]
    good: Callable[[bytes], bool]
    opening: tuple[bytes, ...] = ()  # lines answered before the calls (MCP's initialize)


def _mcp_call(n: int) -> bytes:
    params = {"name": "get_current_time", "arguments": {"timezone": ZONE}}
    message = {"jsonrpc": "2.0", "id": n + 1, "method": "tools/call", "params": params}
    return json.dumps(message).encode() + b"\n"


def _mcp_good(answer: bytes) -> bool:
    return b'"isError":false' in answer or b'"isError": false' in answer


@contextmanager
def ways() -> Iterator[dict[str, Way]]:
    """The eight ways, their helper scripts in a temporary folder."""
    with tempfile.TemporaryDirectory(prefix="toolguard-lockstep-") as folder:
        scripts = {}
        for name, text in (
            ("echo", ECHO),
            ("busy", BUSY_ECHO),
            ("loop", LOOP),
            ("server", SERVER),
            ("relay", RELAY),
        ):
            scripts[name] = Path(folder) / f"{name}.py"
            scripts[name].write_text(text)
        direct = [PYTHON, str(scripts["server"])]
        opening = (json.dumps(INITIALIZE).encode() + b"\n",)
        yield {
            "echo": Way(
                "echo", [PYTHON, str(scripts["echo"])], lambda _: SERVE_LINE, SERVE_LINE.__eq__
            ),
            "echo, busy": Way(  # its argv gets the round's check time (`measure`)
                "echo, busy",
                [PYTHON, str(scripts["busy"])],
                lambda _: SERVE_LINE,
                SERVE_LINE.__eq__,
            ),
            "loop": Way(
                "loop",
                [PYTHON, str(scripts["loop"]), str(REVIEW)],
                lambda _: SERVE_LINE,
                lambda answer: answer.startswith(b'{"tool"'),
            ),
            "serve": Way(
                "serve",
                [PYTHON, "-m", "toolguard", "serve", str(REVIEW)],
                lambda _: SERVE_LINE,
                lambda answer: answer.startswith(b'{"tool"'),
            ),
            "serve, no polling": Way(
                "serve, no polling",
                [PYTHON, "-m", "toolguard", "serve", str(REVIEW), "--busy-poll", "0"],
                lambda _: SERVE_LINE,
                lambda answer: answer.startswith(b'{"tool"'),
            ),
            "direct": Way("direct", direct, _mcp_call, _mcp_good, opening),
            "bare relay": Way(
                "bare relay",
                [PYTHON, str(scripts["relay"]), *direct],
                _mcp_call,
                _mcp_good,
                opening,
            ),
            "mcp": Way(
                "mcp",
                [PYTHON, "-m", "toolguard", "mcp", "--contract", str(TIME), "--", *direct],
                _mcp_call,
                _mcp_good,
                opening,
            ),
        }


class Peer:
    """A raw line client on one process: write a line, read a line; stderr drained or not."""

    def __init__(self, way: Way, stderr: str = "read") -> None:
        self.way = way
        self.process = subprocess.Popen(
            way.argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL if stderr == "devnull" else subprocess.PIPE,
            cwd=REPO,
            env=environment(),
        )
        assert self.process.stdin is not None
        assert self.process.stdout is not None
        self.stdin, self.stdout = self.process.stdin, self.process.stdout
        if stderr == "read":
            threading.Thread(target=self._drain, daemon=True).start()
        self.sent = 0
        for line in way.opening:
            self.ask(line)

    def _drain(self) -> None:
        assert self.process.stderr is not None
        while self.process.stderr.read(1 << 16):
            pass

    def ask(self, line: bytes) -> bytes:
        self.stdin.write(line)
        self.stdin.flush()
        return self.stdout.readline()

    def timed(self, calls: int) -> list[float]:
        """Microseconds per call, for `calls` calls in lock-step."""
        times = []
        for _ in range(calls):
            line = self.way.line(self.sent)
            self.sent += 1
            started = time.perf_counter_ns()
            answer = self.ask(line)
            times.append((time.perf_counter_ns() - started) / 1000)
            assert self.way.good(answer), answer[:300]
        return times

    def cpu_seconds(self) -> float:
        """CPU time (user + system, every thread) of the process, so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def rss_kib(self) -> int:
        """Resident memory of the process (toolguard's own, not its server's)."""
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        return int(
            next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))
        )

    def close(self) -> None:
        self.stdin.close()
        self.process.wait(timeout=30)
        self.stdout.close()
        if self.process.stderr is not None:
            self.process.stderr.close()


def in_process_checks(calls: int) -> dict[str, list[float]]:
    """Microseconds of `check_bytes` per call, in this process: each example's check itself."""
    review = load_contract(REVIEW)
    review_request = make_request("req.bench.0001", REVIEW_CONTEXT)
    clock = load_contract(TIME)
    clock_request = make_request(None, {"timezone": ZONE})
    clock_raw = json.dumps(
        {"timezone": ZONE, "datetime": "", "day_of_week": "Monday", "is_dst": False}
    )
    found: dict[str, list[float]] = {"check serve": [], "check mcp": []}
    for _ in range(calls):
        started = time.perf_counter_ns()
        check_bytes(review, REVIEW_RAW, review_request)
        found["check serve"].append((time.perf_counter_ns() - started) / 1000)
        now = time.strftime("%Y-%m-%dT%H:%M:%S+00:00", time.gmtime())
        raw = clock_raw.replace('"datetime": ""', f'"datetime": "{now}"').encode()
        started = time.perf_counter_ns()
        outcome = check_bytes(clock, raw, clock_request)
        found["check mcp"].append((time.perf_counter_ns() - started) / 1000)
        assert outcome.envelope["outcome"] == "success", outcome.diagnostics
    return found


@dataclass
class Results:
    """Per round: each row's median per call (us) and each process's CPU per call (us)."""

    rounds: int
    calls: int
    medians: dict[str, list[float]] = field(default_factory=dict)
    cpu: dict[str, list[float]] = field(default_factory=dict)

    def add(self, name: str, median: float, cpu: float | None = None) -> None:
        self.medians.setdefault(name, []).append(median)
        if cpu is not None:
            self.cpu.setdefault(name, []).append(cpu)

    def serve_ratios(self) -> list[float]:
        """serve / (echo + check), round by round."""
        m = self.medians
        return [
            serve / (echo + check)
            for serve, echo, check in zip(m["serve"], m["echo"], m["check serve"], strict=True)
        ]

    def busy_ratios(self) -> list[float]:
        """serve / the echo that spins as long as the check, round by round."""
        m = self.medians
        return [serve / busy for serve, busy in zip(m["serve"], m["echo, busy"], strict=True)]

    def loop_ratios(self) -> list[float]:
        """serve / the one-process loop, round by round."""
        m = self.medians
        return [serve / loop for serve, loop in zip(m["serve"], m["loop"], strict=True)]

    def mcp_overheads(self) -> list[float]:
        """mcp - direct (us), round by round."""
        m = self.medians
        return [guarded - direct for guarded, direct in zip(m["mcp"], m["direct"], strict=True)]


def measure(rounds: int = 7, calls: int = 1000, warm_up: int = 100, report: bool = True) -> Results:
    """Every way, `rounds` times in a rotating order, `calls` timed calls each."""
    results = Results(rounds, calls)
    with ways() as found:
        order = list(found.values())
        for number in range(rounds):
            for name, times in in_process_checks(calls).items():
                results.add(name, statistics.median(times))
            spin = f"{results.medians['check serve'][-1]:.1f}"
            start = number % len(order)
            for way in order[start:] + order[:start]:
                if way.name == "echo, busy":
                    way = replace(way, argv=[*way.argv, spin])  # noqa: PLW2901
                peer = Peer(way)
                peer.timed(warm_up)  # start-up, contract loading, first calls: not per call
                before = peer.cpu_seconds()
                times = peer.timed(calls)
                cpu = (peer.cpu_seconds() - before) / calls * 1e6
                peer.close()
                results.add(way.name, statistics.median(times), cpu)
            if report:
                print(f"  round {number + 1}/{rounds}: {_round_line(results)}", file=sys.stderr)
    return results


def _round_line(results: Results) -> str:
    last = {name: values[-1] for name, values in results.medians.items()}
    ratio, loop = results.serve_ratios()[-1], results.loop_ratios()[-1]
    busy = results.busy_ratios()[-1]
    overhead = results.mcp_overheads()[-1]
    shown = ", ".join(f"{name} {value:.0f}" for name, value in last.items())
    return (
        f"{shown} us; serve {ratio:.2f}x its floor ({loop:.2f}x the loop, {busy:.2f}x the busy"
        f" echo), mcp +{overhead:.0f} us"
    )


ROWS = (
    ("echo", "a bare Python line echo (the pipes)"),
    ("check serve", "check_bytes in process, review_status"),
    ("echo, busy", "the echo, spinning as long as the check first"),
    ("loop", "a Python line loop: json.loads + check_bytes"),
    ("serve", "toolguard serve, review_status"),
    ("serve, no polling", "the same, --busy-poll 0"),
    ("direct", "direct to the MCP server"),
    ("bare relay", "through a bare Python relay"),
    ("check mcp", "check_bytes in process, get_current_time"),
    ("mcp", "through toolguard mcp, get_current_time"),
)


def table(results: Results) -> list[list[str]]:
    """Rows: what, median of the round medians, their range, CPU per call of the process."""
    rows = []
    for name, label in ROWS:
        values = results.medians[name]
        cpu = results.cpu.get(name)
        rows.append(
            [
                label,
                f"{statistics.median(values):.1f}",
                f"{min(values):.1f}-{max(values):.1f}",
                f"{statistics.median(cpu):.1f}" if cpu else "-",
            ]
        )
    return rows


HEADER = ["per call, lock-step", "median us", "range over rounds", "CPU us"]


def goals(results: Results) -> list[list[str]]:
    """The goals, each paired round by round: median and range, met or not (and a reference)."""
    ratios, overheads = results.serve_ratios(), results.mcp_overheads()
    ratio, overhead = statistics.median(ratios), statistics.median(overheads)
    loops, busy = results.loop_ratios(), results.busy_ratios()
    loop = statistics.median(loops)
    return [
        [
            f"serve <= {SERVE_GOAL}x (echo + check in process)",
            f"{ratio:.2f}x ({min(ratios):.2f}-{max(ratios):.2f}x)",
            "met" if ratio <= SERVE_GOAL else "NOT met",
        ],
        [
            f"serve <= {SERVE_GOAL}x (echo + check in one process)",
            f"{loop:.2f}x ({min(loops):.2f}-{max(loops):.2f}x)",
            "met" if loop <= SERVE_GOAL else "NOT met",
        ],
        [
            "(no goal) serve / the echo spinning as long as the check",
            f"{statistics.median(busy):.2f}x ({min(busy):.2f}-{max(busy):.2f}x)",
            "-",
        ],
        [
            f"mcp <= direct + {MCP_GOAL_US:.0f} us per call",
            f"+{overhead:.0f} us ({min(overheads):.0f}-{max(overheads):.0f})",
            "met" if overhead <= MCP_GOAL_US else "NOT met",
        ],
    ]


def markdown(header: list[str], rows: list[list[str]]) -> str:
    """A markdown table: first column left-aligned, the figures right-aligned."""
    widths = [max(len(row[i]) for row in [header, *rows]) for i in range(len(header))]

    def line(cells: list[str]) -> str:
        padded = [
            cell.ljust(width) if i == 0 else cell.rjust(width)
            for i, (cell, width) in enumerate(zip(cells, widths, strict=True))
        ]
        return "| " + " | ".join(padded) + " |"

    rule = "|".join(("-" * (w + 1) + ":") if i else ("-" * (w + 2)) for i, w in enumerate(widths))
    return "\n".join([line(header), f"|{rule}|", *(line(row) for row in rows)])


SWEEP_US = (0, 5, 10, 15, 20, 25, 30, 40, 60)
SWEEP_HEADER = ["work between read and answer", "median us", "range over rounds", "x (echo + work)"]


def sweep(rounds: int = 3, calls: int = 2000, warm_up: int = 200) -> list[list[str]]:
    """The busy echo's round trip for each spin of `SWEEP_US`, against the echo plus the spin.

    What any process pays, on this machine, for doing work between reading a line and
    answering it: the floor `serve`'s summed goal is set against assumes the spin adds only
    itself, while the caller's CPU may fall asleep meanwhile and take its time to wake.
    Each round times every spin afresh, in a rotating order; the echo is the spin of 0.
    """
    medians: dict[int, list[float]] = {spin: [] for spin in SWEEP_US}
    with ways() as found:
        base = found["echo, busy"]
        for number in range(rounds):
            start = number % len(SWEEP_US)
            for spin in SWEEP_US[start:] + SWEEP_US[:start]:
                peer = Peer(replace(base, argv=[*base.argv, str(spin)]))
                peer.timed(warm_up)
                medians[spin].append(statistics.median(peer.timed(calls)))
                peer.close()
    echo = statistics.median(medians[0])
    return [
        [
            f"{spin} us",
            f"{statistics.median(values):.1f}",
            f"{min(values):.1f}-{max(values):.1f}",
            f"{statistics.median(values) / (echo + spin):.2f}x",
        ]
        for spin, values in medians.items()
    ]


def load_average() -> str:
    return ", ".join(f"{value:.1f}" for value in os.getloadavg())


def main() -> None:
    """Print the side-by-side table and the two goals (`python benchmarks/lockstep.py`)."""
    import argparse  # noqa: PLC0415

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--calls", type=int, default=1000)
    parser.add_argument(
        "--sweep",
        action="store_true",
        help="only the busy echo, for a range of work between read and answer (`sweep`)",
    )
    options = parser.parse_args()
    before = load_average()
    if options.sweep:
        rows = sweep(options.rounds, options.calls)
        print(f"{options.rounds} rounds x {options.calls:,} calls each; load {before} before")
        print(markdown(SWEEP_HEADER, rows))
        print(f"\nload average after: {load_average()}; {os.cpu_count()} CPUs")
        return
    results = measure(options.rounds, options.calls)
    print(f"{options.rounds} rounds x {options.calls:,} calls each way; load {before} before")
    print(markdown(HEADER, table(results)))
    print()
    print(markdown(["goal", "measured (range over rounds)", "verdict"], goals(results)))
    print(f"\nload average after: {load_average()}; {PYTHON}; {os.cpu_count()} CPUs")


if __name__ == "__main__":
    main()
