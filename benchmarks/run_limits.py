"""`toolguard run` against hostile producers: time to kill and peak RSS. A script, not a test.

Each row runs `toolguard run` as a real subprocess (the venv's own interpreter) on a producer
and reports wall time, the toolguard process's peak RSS (from a wrapper that runs the CLI
in-process and reads `ru_maxrss`) and the envelope it printed, beside a well-behaved producer.

    .venv/bin/python benchmarks/run_limits.py
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
CONTRACT = HERE / "contract" / "contract.toml"
GIB = 1 << 30
# Runs the CLI in this process, then reports its own peak RSS (KiB) on stderr's last line.
WRAPPER = """
import resource, sys
from toolguard.cli.app import cli
try:
    cli(sys.argv[1:], prog_name="toolguard")
finally:
    print("PEAK_RSS", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)
"""
PYTHON = sys.executable
ANSWER = '{"ok": true}'
PRODUCERS = {
    "well-behaved (one small answer)": [PYTHON, "-c", f"print({ANSWER!r})"],
    "1 GiB on stdout": ["head", "-c", str(GIB), "/dev/zero"],
    "1 GiB on stdout, then sleeps": ["sh", "-c", f"head -c {GIB} /dev/zero; sleep 60"],
    "1 GiB on stderr, small answer": [
        "sh", "-c", f"head -c {GIB} /dev/zero >&2; echo '{ANSWER}'",
    ],
    "never answers (timeout 1 s)": ["sleep", "60"],
    "grandchild keeps stdout open": ["sh", "-c", f"sleep 60 & echo '{ANSWER}'"],
    "setsid() grandchild keeps stdout": ["sh", "-c", f"setsid sleep 60 & echo '{ANSWER}'"],
    "daemon (double fork, setsid)": [
        "sh", "-c", f"(setsid sleep 60 >/dev/null 2>&1 &); echo '{ANSWER}'",
    ],
}  # fmt: skip


def measure(producer: list[str]) -> tuple[float, int, str]:
    """Wall seconds, peak RSS (KiB) of toolguard, and the envelope's outcome or error code."""
    argv = [PYTHON, "-c", WRAPPER, "run", str(CONTRACT), "--timeout", "1"]
    argv += ["--diagnostics", "json", "--", *producer]
    started = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, check=False)
    elapsed = time.perf_counter() - started
    peak = int(done.stderr.decode().strip().splitlines()[-1].split()[1])
    envelope = json.loads(done.stdout)
    verdict = envelope["outcome"]
    if "error" in envelope:
        verdict = f"{envelope['error']['code']} (retryable: {envelope['error']['retryable']})"
    return elapsed, peak, verdict


def time_to_kill() -> float:
    """In-process: seconds from spawning a 1 GiB producer to its group killed (1 MiB read)."""
    from toolguard.run.spawn import run_command  # noqa: PLC0415 - only this row needs it

    attempt = run_command(
        ["head", "-c", str(GIB), "/dev/zero"], max_bytes=1 << 20, timeout=10, env={}
    )
    assert attempt.over_limit, attempt
    return attempt.duration


def main() -> None:
    """Print one row per producer, after the interpreter's own start-up for scale."""
    started = time.perf_counter()
    subprocess.run([PYTHON, "-c", "import toolguard.cli.app"], check=True)
    startup = time.perf_counter() - started
    print(f"toolguard run on {CONTRACT.relative_to(HERE.parent)} (max_bytes 1 MiB, timeout 1 s)")
    print(f"start-up alone (python -c 'import toolguard.cli.app'): {startup:.3f}s")
    print(f"{'producer':34} {'wall':>8} {'peak RSS':>10}  envelope")
    for name, producer in PRODUCERS.items():
        elapsed, peak, verdict = measure(producer)
        print(f"{name:34} {elapsed:7.3f}s {peak / 1024:8.1f} MiB  {verdict}")
    kills = sorted(time_to_kill() for _ in range(5))
    print(f"in-process, 1 GiB producer: killed {kills[2] * 1000:.1f} ms after spawn (median of 5)")


if __name__ == "__main__":
    main()
