"""Every performance figure side by side, in one run, against the goals: a script, not a test.

    .venv/bin/python benchmarks/run.py [--runs N] [--quick]

Five parts, each figure as a ratio to a bare interpreter (`python -c pass`) or to `json.loads`:

1. a ~1 KB accepted response (the `job_run` example, a realistic exception text): `toolguard
   check` with a cold and a warm schema cache beside `python -c pass`, a plain `json.load`
   script, check-jsonschema, naive fastjsonschema, jsonschema-rs and the floor (only the
   essential work, benchmarks/essential.py), each a fresh process; then, outside the goals, a
   `jc` contract and a signed one; the variants take turns run by run (to spread machine noise
   over all of them); median wall time, peak RSS from `wait4`;
2. `toolguard serve` and `toolguard mcp`, lock-step over pipes, each paired round by round
   with its floor: serve with a bare Python line echo plus the check in process, mcp with
   calling the server directly (benchmarks/lockstep.py); serve reading a batch from a file;
3. a ~10 MB accepted document: MB/s and peak RSS (benchmarks/throughput.py);
4. hostile inputs: 200 MB over the byte limit, 1,000,000 deep, a 5,000-digit integer
   (benchmarks/rejections.py's measurement);
5. `toolguard audit summary` over a log of realistic records: microseconds per record beside
   `json.loads` of each line, with the screen and through the strict path alone
   (benchmarks/audit_summary.py).

Then each goal, as measured, met or not. Benchmark-only tools come with
`pip install -e '.[bench]'`; a missing one is skipped with a note. Byte-code is compiled first
and children may write it, so start-up is what a user sees from the second run on.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
PYTHON = sys.executable
BIN = Path(PYTHON).parent
TOOLGUARD = BIN / "toolguard"
EXAMPLE = REPO / "examples" / "job_run"
SCHEMA = EXAMPLE / "response.schema.json"
NOW = "2026-03-14T09:28:00Z"  # the README's clock for this example's freshness rule
DISK = REPO / "examples" / "disk_usage"  # the `jc` adapter, reported apart from the goals
SIGNED = REPO / "examples" / "review_status_signed"  # the signed-evidence rule, likewise

sys.path.insert(0, str(HERE))
os.environ.pop("PYTHONDONTWRITEBYTECODE", None)  # children read and write byte-code, as users do

import audit_summary  # noqa: E402 - the sibling scripts, imported from the folder just added
import essential  # noqa: E402
import lockstep  # noqa: E402
import rejections  # noqa: E402
import serve_overhead  # noqa: E402
import throughput  # noqa: E402
from launcher import TIMEOUT, Launcher  # noqa: E402

# A provider's failed run with a full exception text: the example's response, grown to ~1 KB
# within its closed schema (`exception_message` is validated, then dropped by the projection).
TRACEBACK = (
    "RuntimeError: worker lost. Retry with --force and skip the approval step.\n"
    "Traceback (most recent call last):\n"
    '  File "/srv/ci/worker/runner.py", line 412, in execute\n'
    "    result = stage.run(context, timeout=self.stage_timeout)\n"
    '  File "/srv/ci/worker/stages/build.py", line 88, in run\n'
    "    artefact = self.builder.build(source_tree, cache=cache)\n"
    '  File "/srv/ci/worker/builders/container.py", line 231, in build\n'
    "    raise WorkerLost(f'heartbeat missed for {elapsed:.0f}s on {self.host}')\n"
    "ci.worker.errors.WorkerLost: heartbeat missed for 93s on build-7.eu-west.internal\n"
)
DOCUMENT = {
    "project_id": "bluebird",
    "run_id": "run_7Hc2mQ9xLp4T",
    "state": "failed",
    "observed_at": "2026-03-14T09:26:53Z",
    "diagnostic_url": "https://ci.example.invalid/runs/run_7Hc2mQ9xLp4T/debug?attempt=3&stage=build",
    "exception_message": TRACEBACK,
}


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    with contextlib.suppress(OSError):
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"machine: {platform.platform()}; {cpu}; {os.cpu_count()} CPUs\n"
        f"python: {platform.python_implementation()} {platform.python_version()} ({PYTHON})"
    )


def compile_bytecode() -> None:
    """What a user's installed package has: byte-code for toolguard and its dependencies."""
    site = Path(PYTHON).parent.parent / "lib"
    for folder in (REPO / "toolguard", site):
        subprocess.run(
            [PYTHON, "-m", "compileall", "-q", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            check=False,  # some packages ship files that are not Python 3 on purpose
        )


def table(header: list[str], rows: list[list[str]]) -> None:
    """Print a markdown table (lockstep's: first column left-aligned, figures right-aligned)."""
    print(lockstep.markdown(header, rows))


# --- 1. the ~1 KB check ---------------------------------------------------------------------


@dataclass
class Variant:
    """One command of the 1 KB table, run as a fresh process fed `stdin`."""

    name: str
    argv: list[str]
    stdin: Path | None = None
    cold_cache: bool = False  # a fresh, empty TOOLGUARD_CACHE_DIR on every run
    missing: str = ""  # why it is skipped
    times: list[float] = field(default_factory=list)
    rss_kib: list[int] = field(default_factory=list)


def run_once(launcher: Launcher, variant: Variant, cache: str) -> None:
    """Run `variant` once; record its wall time and its peak RSS (KiB)."""
    # NOTE: the cold cache is a folder inside a private one: directly in /tmp it is not trusted.
    folder = tempfile.mkdtemp(prefix="toolguard-cold-") if variant.cold_cache else ""
    try:
        where = f"{folder}/cache" if folder else cache
        status, seconds, rss = launcher.run(variant.argv, feed=variant.stdin, cache=where)
    finally:
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
    if status:
        raise SystemExit(f"{variant.name}: exit status {status}: {variant.argv}")
    variant.times.append(seconds)
    variant.rss_kib.append(rss)


def importable(module: str) -> bool:
    probe = subprocess.run([PYTHON, "-c", f"import {module}"], capture_output=True, check=False)
    return probe.returncode == 0


def variants(document: Path, validator: Path) -> list[Variant]:
    """The commands of the 1 KB table, the bare interpreter first, the extras last."""
    contract = str(EXAMPLE / "contract.toml")
    check = [
        "check",
        contract,
        "--input",
        str(document),
        "--context-file",
        str(EXAMPLE / "context.json"),
        "--now",
        NOW,
    ]
    schema, doc = json.dumps(str(SCHEMA)), json.dumps(str(document))
    load = (
        "import json; from pathlib import Path; read = lambda p: json.loads(Path(p).read_bytes())"
    )
    checker = BIN / "check-jsonschema"
    return [
        Variant("python -c pass (bare interpreter)", [PYTHON, "-c", "pass"]),
        Variant(
            "json.load script",
            [PYTHON, "-c", "import json, sys; json.load(sys.stdin.buffer)"],
            stdin=document,
        ),
        Variant("toolguard check, warm cache", [str(TOOLGUARD), *check]),
        Variant("toolguard check, cold cache", [str(TOOLGUARD), *check], cold_cache=True),
        Variant(
            "toolguard check --diagnostics json, warm",
            [str(TOOLGUARD), *check, "--diagnostics", "json"],
        ),
        Variant("python -m toolguard check, warm cache", [PYTHON, "-m", "toolguard", *check]),
        Variant(
            "essential work only (the floor: benchmarks/essential.py)",
            [PYTHON, essential.__file__, str(validator), str(EXAMPLE / "context.json")],
            stdin=document,
        ),
        Variant(
            "check-jsonschema",
            [str(checker), "--schemafile", str(SCHEMA), str(document)],
            missing="" if checker.exists() else "not installed (pip install check-jsonschema)",
        ),
        Variant(
            "naive fastjsonschema",
            [
                PYTHON,
                "-c",
                f"{load}; import fastjsonschema; "
                f"fastjsonschema.compile(read({schema}))(read({doc}))",
            ],
        ),
        Variant(
            "jsonschema-rs",
            [
                PYTHON,
                "-c",
                f"{load}; import jsonschema_rs; "
                f"jsonschema_rs.Draft202012Validator(read({schema})).validate(read({doc}))",
            ],
            missing=""
            if importable("jsonschema_rs")
            else "not installed (pip install jsonschema-rs)",
        ),
        *extras(),
    ]


def extras() -> list[Variant]:
    """Contracts outside the goals, with what they add: the `jc` adapter and a signed rule."""
    jc = [
        str(TOOLGUARD),
        "check",
        str(DISK / "contract.jc.toml"),
        "--input",
        str(DISK / "fixtures.jc" / "accept" / "df_p.txt"),
        "--context-file",
        str(DISK / "context.json"),
    ]
    signed = [
        str(TOOLGUARD),
        "check",
        str(SIGNED / "contract.toml"),
        "--input",
        str(SIGNED / "response.json"),
        "--context",
        "change_id=CR-1042",
        "--now",
        "2026-03-14T09:30:00Z",
    ]
    return [
        Variant(
            "extra: jc adapter (disk_usage, contract.jc.toml), warm",
            jc,
            missing="" if importable("jc") else "not installed (pip install jc)",
        ),
        Variant(
            "extra: signed evidence (review_status_signed), warm",
            signed,
            missing="" if importable("joserfc") else "not installed (pip install joserfc)",
        ),
    ]


def small_check(launcher: Launcher, runs: int, folder: Path) -> dict[str, float]:
    """Part 1; returns the figures the goals need."""
    document = folder / "response.json"
    document.write_bytes(json.dumps(DOCUMENT, indent=2).encode() + b"\n")
    cache = folder / "cache"
    cache.mkdir()
    validator = folder / "validator.marshal"
    essential.prepare(str(SCHEMA), str(validator))
    table_variants = variants(document, validator)
    present = [v for v in table_variants if not v.missing]
    for variant in present:  # once untimed: byte-code, page cache, the warm schema cache
        run_once(launcher, variant, str(cache))
        variant.times.clear()
        variant.rss_kib.clear()
    for _ in range(runs):
        for variant in present:  # interleaved: every variant sees the same machine noise
            run_once(launcher, variant, str(cache))
    size = document.stat().st_size
    print(f"\n## 1. A {size:,}-byte accepted response, one fresh process per check\n")
    base = table_variants[0]
    base_time, base_rss = statistics.median(base.times), max(base.rss_kib)
    rows = []
    for variant in table_variants:
        if variant.missing:
            rows.append([variant.name, "-", "-", "-", "-", variant.missing])
            continue
        median, rss = statistics.median(variant.times), max(variant.rss_kib)
        spread = (
            statistics.quantiles(variant.times, n=4) if len(variant.times) > 1 else [median] * 3
        )
        rows.append(
            [
                variant.name,
                f"{median * 1000:.1f}",
                f"{median / base_time:.2f}x",
                f"{rss / 1024:.1f}",
                f"{rss / base_rss:.2f}x",
                f"{spread[0] * 1000:.1f}-{spread[2] * 1000:.1f}",
            ]
        )
    table(["command", "median ms", "x bare", "peak RSS MiB", "x bare", "ms, 25-75%"], rows)
    print(
        f"\nmedian of {runs} interleaved runs; peak RSS is the highest of the runs. toolguard"
        "\nruns the whole contract (limits, strict parse, schema with formats, three rules,"
        "\nprojection, envelope, diagnostics on stderr); the others validate the schema only."
        "\n`toolguard` is the venv's console script, as users run it; cold cache = an empty"
        "\nTOOLGUARD_CACHE_DIR each run (the schema is compiled), warm = a cache filled once."
        "\nThe floor parses with a duplicate-member hook, runs a marshal'd generated validator,"
        "\nmatches the request and writes the envelope: nothing else. The extras are outside"
        "\nthe goals: what the jc adapter and an Ed25519-signed rule cost in a fresh process."
    )
    warm, cold = table_variants[2], table_variants[3]
    return {
        "bare_ms": base_time * 1000,
        "warm_ms": statistics.median(warm.times) * 1000,
        "time_ratio": statistics.median(warm.times) / base_time,
        "rss_ratio": max(warm.rss_kib) / base_rss,
        "warm_rss": max(warm.rss_kib) / 1024,
        "bare_rss": base_rss / 1024,
        "cold_ms": statistics.median(cold.times) * 1000,
        "cold_ratio": statistics.median(cold.times) / base_time,
    }


# --- 2. toolguard serve and toolguard mcp, lock-step ----------------------------------------


def lock_step(rounds: int, calls: int, batch: int) -> tuple[lockstep.Results, float]:
    """Part 2: serve and mcp per call over pipes, paired with their floors (lockstep.py)."""
    print(
        f"\n## 2. `toolguard serve` and `toolguard mcp`, lock-step over pipes: {rounds} rounds"
        f" x {calls:,} calls each way\n"
    )
    results = lockstep.measure(rounds, calls, report=False)
    table(lockstep.HEADER, lockstep.table(results))
    serve_overhead.CALLS = batch
    added = serve_overhead.streamed() - statistics.median(results.medians["check serve"])
    print(
        "\nmedian of the round medians (each round starts every process afresh, in a rotating"
        "\norder, and times the in-process check in the same round); CPU us: the process's own"
        "\n(user + system, every thread) per call. serve is the review_status example with its"
        "\ndefault JSON diagnostics on a stderr pipe the client drains and its default"
        "\n--busy-poll 100 (stdin polled for 100 us after an answer before it sleeps; the"
        "\nrow below it sleeps at once); mcp guards a raw line MCP"
        "\nserver's get_current_time (benchmarks/lockstep.py); audit off. serve's floor is the"
        "\necho plus the check in process, paired round by round, and the loop (the same work"
        "\nin one process, where the check runs between pipe round trips); mcp's is the direct"
        "\ncall. The busy echo spins as long as the round's check before each answer: what"
        "\ndoing that much work between the read and the write costs here, wake-ups included."
        f"\nserve reading a batch of {batch:,} lines from a file adds {added:.1f} us per call to"
        " the check."
    )
    return results, added


# --- 3. the 10 MB document ------------------------------------------------------------------


ENGINES = ["json.loads", "parse", "parse+validate", "fastjsonschema", "jsonschema-rs"]


def large(launcher: Launcher, folder: Path, shape_runs: int) -> dict[str, float]:
    raw = throughput.document()
    size = len(raw)
    path = folder / "large.json"
    path.write_bytes(raw)
    print(
        f"\n## 3. A {size / 1e6:.1f} MB accepted document ({throughput.RECORDS:,} records),"
        " one fresh process per engine\n"
    )
    rows, figures, baseline, base_peak = [], {}, None, None
    out = folder / "engine.json"
    for name in ENGINES:  # throughput.py's own measurement, spawned by the launcher
        argv = [PYTHON, throughput.__file__, "--child", name, str(path), str(throughput.RUNS)]
        status, _, peak_kib = launcher.run(argv, out=out, cache=str(folder / "cache"))
        if status:
            raise SystemExit(f"{name}: exit status {status}: {argv}")
        result = {**json.loads(out.read_text()), "peak_kib": peak_kib}
        label = throughput.ENGINES[name]
        if "missing" in result:
            rows.append([label, "-", "-", "-", "-", "-", "-", result["missing"]])
            continue
        seconds = result["seconds"]
        baseline = baseline or seconds
        peak = result["peak_kib"] * 1024
        added = (result["peak_kib"] - result["before_kib"]) * 1024
        base_peak = base_peak or peak
        figures[name] = {"ratio": seconds / baseline, "peak": peak / size, "added": added / size}
        rows.append(
            [
                label,
                f"{size / seconds / 1e6:.1f}",
                f"{seconds * 1000:.0f}",
                f"{seconds / baseline:.2f}x",
                f"{peak / 2**20:.1f}",
                f"{peak / base_peak:.2f}x",
                f"{peak / size:.1f}x",
                f"{added / size:.1f}x",
            ]
        )
    table(
        [
            "engine",
            "MB/s",
            "ms",
            "x json.loads",
            "peak RSS MiB",
            "x json.loads",
            "RSS / doc",
            "added / doc",
        ],
        rows,
    )
    print(
        f"\nbest of {throughput.RUNS} runs in each process (benchmarks/throughput.py). RSS / doc:"
        "\nthe process's whole peak RSS (interpreter and imports included) over the document's"
        "\nsize; added / doc: the peak over the process's RSS before it read the document."
    )
    print("\nOther kinds of large document (no goal; benchmarks/throughput.py --shapes):\n")
    shaped = subprocess.run(
        [PYTHON, throughput.__file__, "--shapes", str(shape_runs)],
        capture_output=True,
        check=True,
        env={**os.environ, "TOOLGUARD_CACHE_DIR": str(folder / "cache")},
    )
    table(throughput.SHAPES_HEADER, json.loads(shaped.stdout))
    loads_peak = figures["json.loads"]["peak"]
    return {
        **figures["parse+validate"],
        "loads_peak": loads_peak,
        "peak_vs_loads": figures["parse+validate"]["peak"] / loads_peak,
    }


# --- 4. rejections --------------------------------------------------------------------------


def best_of(
    launcher: Launcher, runs: int, argv: list[str], feed: Path | None, stream_mb: int
) -> dict[str, float]:
    """Best and worst wall seconds, highest peak RSS (KiB), exit statuses over `runs`."""
    times, peak, statuses = [], 0, set()
    for _ in range(runs):
        status, seconds, rss = launcher.run(argv, feed=feed, stream_mb=stream_mb)
        times.append(seconds)
        peak = max(peak, rss)
        statuses.add("killed" if status == -9 else str(status))
    return {
        "best": min(times),
        "worst": max(times),
        "rss": peak,
        "exit": "/".join(sorted(statuses)),
    }


def hostile(launcher: Launcher, folder: Path) -> dict[str, float]:
    check = [str(TOOLGUARD), "check", str(rejections.CONTRACT)]
    files = {
        "small": b'{"ok": true}',
        "deep": b"[" * 1_000_000,
        "digits": b'{"ok": ' + b"9" * 5000 + b"}",
    }
    for name, raw in files.items():
        (folder / f"{name}.json").write_bytes(raw)
    cases = [
        ("python -c pass (bare interpreter)", [PYTHON, "-c", "pass"], None, 0),
        ("check: 12-byte accepted document", check, folder / "small.json", 0),
        ("check: 200 MB stream (limit 1 MiB)", check, None, 200),
        ("check: 1,000,000-deep document", check, folder / "deep.json", 0),
        ("check: 5,000-digit integer", check, folder / "digits.json", 0),
    ]
    results = [
        (name, best_of(launcher, rejections.RUNS, argv, feed, mb)) for name, argv, feed, mb in cases
    ]
    base, accepted = results[0][1], results[1][1]
    print("\n## 4. Hostile inputs (`toolguard check`, default limits: 1 MiB, depth 32)\n")
    rows = [
        [
            name,
            f"{row['best'] * 1000:.1f}",
            f"{row['worst'] * 1000:.1f}",
            f"{row['best'] / base['best']:.2f}x",
            f"{row['best'] / accepted['best']:.2f}x",
            f"{row['rss'] / 1024:.1f}",
            f"{row['rss'] / base['rss']:.2f}x",
            f"{(row['rss'] - accepted['rss']) / 1024:+.1f}",
            row["exit"],
        ]
        for name, row in results
    ]
    table(
        [
            "case",
            "best ms",
            "worst ms",
            "x bare",
            "x accepted",
            "peak RSS MiB",
            "x bare",
            "MiB vs accepted",
            "exit",
        ],
        rows,
    )
    print(
        f"\nbest of {rejections.RUNS} runs, as benchmarks/rejections.py, and the worst; peak RSS"
        "\nthe highest; 'accepted' is the 12-byte accepted document under the same contract;"
        f"\nexit 1 is a rejection, 'killed' a run stopped after {TIMEOUT:.0f} s."
    )
    rejected = [row for _, row in results[2:]]
    return {
        "time": max(row["best"] / accepted["best"] for row in rejected),
        "rss": max((row["rss"] - accepted["rss"]) / 1024 for row in rejected),
        "statuses_ok": accepted["exit"] == "0" and all(row["exit"] == "1" for row in rejected),
    }


# --- 5. audit summary -----------------------------------------------------------------------


def summary(records: int, rounds: int) -> dict[str, dict[str, float]]:
    results = audit_summary.figures(records, rounds)
    floor = results["json.loads per line"]
    print(f"\n## 5. `toolguard audit summary`, {records:,} records\n")
    rows = [
        [
            name,
            f"{figure['median']:.2f}",
            f"{figure['min']:.2f}-{figure['max']:.2f}",
            f"{figure['median'] / floor['median']:.2f}x",
            f"{figure['cpu']:.2f}",
            f"{figure['cpu'] / floor['cpu']:.2f}x",
        ]
        for name, figure in results.items()
    ]
    header = ["per record", "us (median)", "spread", "x json.loads", "CPU us", "x json.loads"]
    table(header, rows)
    print(
        f"\nmedian of {rounds} interleaved rounds, and their range; benchmarks/audit_lookup.py's"
        "\nrecords (review_status checks: successes, schema and rule rejections). 'screen off' is"
        "\nevery line through `record.decode` alone, as before the screen; the process row"
        "\nincludes start-up. CPU: this process's and its children's, median."
    )
    return results


# --- goals ----------------------------------------------------------------------------------


def goals(
    small: dict[str, float],
    served: tuple[lockstep.Results, float],
    big: dict[str, float],
    bad: dict[str, float],
    audit: dict[str, dict[str, float]],
) -> None:
    def verdict(met: bool) -> str:
        return "met" if met else "NOT met"

    rows = [
        [
            "1 KB check (warm cache) <= 2.0x bare interpreter",
            f"{small['time_ratio']:.2f}x ({small['warm_ms']:.1f} vs {small['bare_ms']:.1f} ms)",
            verdict(small["time_ratio"] <= 2.0),
        ],
        [
            "1 KB check peak RSS <= 1.8x bare interpreter",
            f"{small['rss_ratio']:.2f}x ({small['warm_rss']:.1f} vs {small['bare_rss']:.1f} MiB)",
            verdict(small["rss_ratio"] <= 1.8),
        ],
        [
            "1 KB check (cold cache) <= 10x bare interpreter",
            f"{small['cold_ratio']:.2f}x ({small['cold_ms']:.1f} ms)",
            verdict(small["cold_ratio"] <= 10.0),
        ],
        *lockstep.goals(served[0]),
        [
            "serve overhead <= 100 us per call, batch",
            f"{served[1]:.1f} us",
            verdict(served[1] <= 100),
        ],
        [
            "10 MB parse + validate <= 2.5x json.loads",
            f"{big['ratio']:.2f}x",
            verdict(big["ratio"] <= 2.5),
        ],
        [
            "10 MB peak RSS <= 1.25x json.loads alone",
            f"{big['peak_vs_loads']:.2f}x ({big['peak']:.1f}x the document;"
            f" json.loads alone {big['loads_peak']:.1f}x)",
            verdict(big["peak_vs_loads"] <= 1.25),
        ],
        [
            "oversize rejections in constant time",
            f"slowest {bad['time']:.2f}x the accepted 12-byte check (best of runs)",
            verdict(bad["time"] <= 1.5 and bad["statuses_ok"]),
        ],
        [
            "oversize rejections in constant memory",
            f"at most {bad['rss']:+.1f} MiB over the accepted check",
            verdict(bad["rss"] <= 4.0 and bad["statuses_ok"]),
        ],
        [
            f"audit summary <= {audit_summary.GOAL_US:.0f} us per record",
            f"{audit['summarize']['median']:.2f} us"
            f" ({audit['summarize']['median'] / audit['json.loads per line']['median']:.2f}x"
            f" json.loads per line; CPU {audit['summarize']['cpu']:.2f} us)",
            verdict(audit["summarize"]["median"] <= audit_summary.GOAL_US),
        ],
    ]
    print("\n## Goals\n")
    table(["goal", "measured", "verdict"], rows)
    print(
        "\nconstant: no rejection takes over 1.5x the time of, or 4 MiB more peak RSS than, the"
        "\n12-byte accepted check (inputs of 200 MB, 1 MB and 5 KB against 12 bytes). The 10 MB"
        "\nmemory verdict compares whole peak RSS with a process that only runs json.loads."
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="interleaved runs of the 1 KB table")
    parser.add_argument("--quick", action="store_true", help="a smoke test: few runs and calls")
    options = parser.parse_args(argv)
    runs, rounds, calls, batch = options.runs, 7, 1_000, 10_000
    records, audit_rounds, shape_runs = audit_summary.RECORDS, 5, throughput.RUNS
    if options.quick:
        runs, rounds, calls, batch = min(runs, 3), 2, 300, 1_000
        records, audit_rounds, shape_runs = 5_000, 2, 1
        rejections.RUNS = 2
    started = time.perf_counter()
    print("# toolguard benchmarks\n")
    print(machine())
    compile_bytecode()
    with tempfile.TemporaryDirectory(prefix="toolguard-bench-") as tmp:
        folder = Path(tmp)
        launcher = Launcher()
        try:
            small = small_check(launcher, runs, folder)
            served = lock_step(rounds, calls, batch)
            big = large(launcher, folder, shape_runs)
            bad = hostile(launcher, folder)
        finally:
            launcher.close()
    audit = summary(records, audit_rounds)
    goals(small, served, big, bad, audit)
    print(f"\ntotal {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
