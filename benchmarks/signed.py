"""What a `signed` rule adds to a check: a script, not a test.

    .venv/bin/python benchmarks/signed.py [--runs N] [--calls N]    # needs the signed extra

The review_status_signed example (an EdDSA attestation, three bound claims) against the same
contract with the signed rule removed, on the same accepted response:

1. in process: `check_bytes` per call, and `load_contract` with a warm artefact (the key set is
   read, judged and imported on every load);
2. one fresh `toolguard check` process per response (warm cache), median wall time and peak
   RSS, the two contracts taking turns (benchmarks/launcher.py), and the import of the JOSE
   library alone.

The performance goals (benchmarks/run.py) are for contracts without this rule; these are
the figures it adds.
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from launcher import Launcher

from toolguard import load_contract
from toolguard.pipeline import check_bytes
from toolguard.request import make_request

REPO = Path(__file__).resolve().parent.parent
SIGNED = REPO / "examples" / "review_status_signed"
RAW = (SIGNED / "response.json").read_bytes()
NOW = "2026-03-14T09:30:00Z"  # fixtures.toml's clock: the attestation is current
CONTEXT = {"change_id": "CR-1042"}
TOOLGUARD = Path(sys.executable).parent / "toolguard"


def unsigned_copy(folder: Path) -> Path:
    """The example's contract without its signed rule (and its claims), beside its schema."""
    text = (SIGNED / "contract.toml").read_text(encoding="utf-8")
    text = re.sub(
        r"\[\[rules\]\]\nname = \"approval_is_signed\".*?(?=\[projection\])",
        "",
        text,
        flags=re.DOTALL,
    )
    for name in ("response.schema.json",):
        (folder / name).write_bytes((SIGNED / name).read_bytes())
    contract = folder / "contract.toml"
    contract.write_text(text, encoding="utf-8")
    return contract


def per_call_us(contract_path: Path, calls: int) -> float:
    contract = load_contract(contract_path)
    request = make_request("req.bench.0001", CONTEXT, NOW)
    assert check_bytes(contract, RAW, request).envelope["outcome"] == "success"
    started = time.perf_counter()
    for _ in range(calls):
        check_bytes(contract, RAW, request)
    return (time.perf_counter() - started) / calls * 1e6


def load_ms(contract_path: Path, loads: int) -> float:
    load_contract(contract_path)  # the artefact, built once
    started = time.perf_counter()
    for _ in range(loads):
        load_contract(contract_path)
    return (time.perf_counter() - started) / loads * 1e3


def jose_import_ms(runs: int) -> float:
    code = (
        "import time; t = time.perf_counter(); import joserfc.jws; print(time.perf_counter() - t)"
    )
    times = [
        float(
            subprocess.run(
                [sys.executable, "-c", code], capture_output=True, check=True, text=True
            ).stdout
        )
        for _ in range(runs)
    ]
    return statistics.median(times) * 1e3


def processes(contracts: dict[str, Path], runs: int, cache: str) -> dict[str, tuple[float, int]]:
    launcher = Launcher()
    times: dict[str, list[float]] = {name: [] for name in contracts}
    rss: dict[str, list[int]] = {name: [] for name in contracts}
    try:
        for attempt in range(runs + 1):
            for name, contract in contracts.items():  # interleaved: the same machine noise
                argv = [
                    str(TOOLGUARD),
                    "check",
                    str(contract),
                    "--context",
                    "change_id=CR-1042",
                    "--now",
                    NOW,
                ]
                status, seconds, peak = launcher.run(
                    argv, feed=SIGNED / "response.json", cache=cache
                )
                if status:
                    raise SystemExit(f"{name}: exit status {status}")
                if attempt:  # the first round warms the artefacts and the byte-code
                    times[name].append(seconds)
                    rss[name].append(peak)
    finally:
        launcher.close()
    return {name: (statistics.median(times[name]), max(rss[name])) for name in contracts}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=21, help="fresh processes per contract")
    parser.add_argument("--calls", type=int, default=2000, help="in-process checks per contract")
    options = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="toolguard-signed-") as folder:
        contracts = {"signed": SIGNED / "contract.toml", "unsigned": unsigned_copy(Path(folder))}
        print("## In process\n")
        checks = {name: per_call_us(path, options.calls) for name, path in contracts.items()}
        loads = {name: load_ms(path, 50) for name, path in contracts.items()}
        print("| contract | check_bytes us/call | load_contract ms (warm artefact) |")
        print("|---|---|---|")
        for name in contracts:
            print(f"| {name} | {checks[name]:.0f} | {loads[name]:.2f} |")
        added = checks["signed"] - checks["unsigned"]
        print(
            f"\nthe signed rule adds {added:.0f} us per check "
            f"({checks['signed'] / checks['unsigned']:.1f}x) and "
            f"{loads['signed'] - loads['unsigned']:.2f} ms per load"
        )
        print("\n## One fresh `toolguard check` process per response (warm cache)\n")
        figures = processes(contracts, options.runs, str(Path(folder) / "cache"))
        print("| contract | median ms | peak RSS MiB |")
        print("|---|---|---|")
        for name, (seconds, peak) in figures.items():
            print(f"| {name} | {seconds * 1e3:.1f} | {peak / 1024:.1f} |")
        (signed_s, signed_rss), (plain_s, plain_rss) = figures["signed"], figures["unsigned"]
        print(
            f"\nthe signed rule adds {(signed_s - plain_s) * 1e3:.1f} ms "
            f"({signed_s / plain_s:.2f}x) and {(signed_rss - plain_rss) / 1024:.1f} MiB; "
            f"`import joserfc.jws` alone: {jose_import_ms(5):.1f} ms (median of 5)"
        )
        print(f"\nmedian of {options.runs} interleaved runs; peak RSS is the highest of the runs")


if __name__ == "__main__":
    main()
