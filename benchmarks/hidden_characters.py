"""What the hidden-character check costs: a script, not a test.

Times `invisible_at` on 1 KB and 64 KB of several kinds of text (printable ASCII, accented
Latin, CJK with ideographic spaces, French with no-break spaces, emoji with ZWJ and VS16,
Persian with ZWNJ, and a refused string whose hidden character is last), in microseconds per
KB; then a whole projection of a nested object, and whole in-process checks of the bundled
examples' responses, each with and without the check (by letting every field through), and
what importing the check and building its tables add to start-up.

    .venv/bin/python benchmarks/hidden_characters.py
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import timeit
from collections.abc import Callable
from pathlib import Path

from toolguard import load_contract
from toolguard.invisible import find_invisible, invisible_at
from toolguard.pipeline import check_bytes
from toolguard.projection import Projection
from toolguard.request import make_request

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = {  # contract, response, context
    "review_status": ("contract.toml", "response.json", {"change_id": "CR-1042"}),
    "job_run": ("contract.toml", "response.json", None),
    "disk_usage": ("contract.toml", "response.txt", None),
}

SAMPLES = {
    "printable ASCII": "The build failed: retry with --force. ",
    "accented Latin (Latin-1)": "Zoë Ångström a révisé la requête n° 42. ",
    "Latin, typographic quotes": "Zo\u00eb said \u201cit\u2019s done\u201d \u2013 42 \u20ac ",
    "CJK, ideographic space": "\u65e5\u672c\u8a9e\u306e\u6587\u7ae0\u3067\u3059\u3002\u3000",
    "French, no-break spaces": "Prix\u00a0: 10\u202f% de 42\u00a0km\u00a0; ",
    "emoji, ZWJ and VS16": "ok \U0001f468\u200d\U0001f469\u200d\U0001f467 \u2764\ufe0f \U0001f44d ",
    "Persian, ZWNJ": "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645 \u06a9\u0647 ",
}


def fill(unit: str, size: int) -> str:
    """`unit` repeated whole, to at most `size` UTF-8 bytes."""
    return unit * (size // len(unit.encode()))


def per_kb(function: Callable[[], object], kilobytes: float) -> float:
    """Microseconds per KB: the best of 5 repeats, each long enough to time."""
    number, _ = timeit.Timer(function).autorange()
    best = min(timeit.repeat(function, number=number, repeat=5)) / number
    return best * 1e6 / kilobytes


def text_table() -> None:
    print("invisible_at, us per KB of text (best of 5)")
    print(f"| {'text':<32} | {'1 KB':>8} | {'64 KB':>8} |")
    print(f"|{'-' * 34}|{'-' * 10}|{'-' * 10}|")
    rows = dict(SAMPLES)
    rows["refused: a tag at the end"] = SAMPLES["Latin, typographic quotes"]
    for name, unit in rows.items():
        figures = []
        for size in (1024, 65536):
            text = fill(unit, size)
            if name.startswith("refused"):
                text = text[:-1] + "\U000e0041"
                assert invisible_at(text) == len(text) - 1
            else:
                assert invisible_at(text) is None, name
            kilobytes = len(text.encode()) / 1024
            figures.append(per_kb(lambda text=text: invisible_at(text), kilobytes))
        print(f"| {name:<32} | {figures[0]:>8.2f} | {figures[1]:>8.2f} |")


def projection_table() -> None:
    """A 1 KB nested object of short strings, projected with and without the check."""
    record = {"name": "Zoë Ångström", "state": "failed", "tags": ["ci", "nightly", "x86_64"]}
    payload = {"runs": [dict(record, id=f"run-{n:04d}") for n in range(12)], "note": "ok"}
    kilobytes = len(str(payload).encode()) / 1024
    checked = Projection({"runs": "/runs", "note": "/note"})
    unchecked = Projection(
        {"runs": "/runs", "note": "/note"}, allow_hidden={"runs": "bench", "note": "bench"}
    )
    assert find_invisible(payload) is None
    with_check = per_kb(lambda: checked(payload), kilobytes)
    without = per_kb(lambda: unchecked(payload), kilobytes)
    walk = per_kb(lambda: find_invisible(payload), kilobytes)
    print()
    print(f"projection of a {kilobytes:.1f} KB nested object (60 strings, 84 member names)")
    print(f"| {'':<28} | {'us per KB':>9} |")
    print(f"|{'-' * 30}|{'-' * 11}|")
    print(f"| {'projection, checked':<28} | {with_check:>9.2f} |")
    print(f"| {'projection, let through':<28} | {without:>9.2f} |")
    print(f"| {'find_invisible alone':<28} | {walk:>9.2f} |")
    print(f"| {'check / let through':<28} | {with_check / without:>8.2f}x |")


def check_table() -> None:
    """check_bytes on each example's accepted response, and the hidden-character check in it.

    The check's share is measured directly (`find_invisible` on what the projection reads):
    the difference of two whole checks drowns in the noise of a shared machine.
    """
    print()
    print("in-process checks of the examples' accepted responses, us (best of 5)")
    print(f"| {'example':<14} | {'bytes':>6} | {'whole check':>11} | {'hidden check':>12} |")
    print(f"|{'-' * 16}|{'-' * 8}|{'-' * 13}|{'-' * 14}|")
    for name, (contract_file, response, given) in EXAMPLES.items():
        folder = REPO / "examples" / name
        contract = load_contract(folder / contract_file)
        context = given or json.loads((folder / "context.json").read_text(encoding="utf-8"))
        request = make_request("req.bench.0001", context, "2026-03-14T09:28:00Z")
        raw = (folder / response).read_bytes()
        outcome = check_bytes(contract, raw, request)
        assert outcome.envelope["outcome"] == "success", (name, outcome.diagnostics)
        values = list(outcome.envelope["data"].values())
        whole = per_kb(
            lambda contract=contract, raw=raw, request=request: check_bytes(contract, raw, request),
            1,
        )
        hidden = per_kb(lambda values=values: [find_invisible(value) for value in values], 1)
        print(f"| {name:<14} | {len(raw):>6} | {whole:>11.1f} | {hidden:>12.2f} |")


def import_cost() -> None:
    """In fresh processes (byte code cached, as installed): the import, then the tables."""
    code = "import time; t = time.perf_counter(); import toolguard.invisible as m; "
    code += "u = time.perf_counter(); m._tables(); v = time.perf_counter(); "
    code += "print((u - t) * 1e3, (v - u) * 1e3)"
    # What the check path has imported by then (a dataclass built: `dataclasses` is warm).
    base = "import re, unicodedata, functools, typing, collections.abc, toolguard.limits"
    environment = {**os.environ, "PYTHONDONTWRITEBYTECODE": ""}
    with tempfile.TemporaryDirectory() as cache:
        command = [sys.executable, "-X", f"pycache_prefix={cache}", "-c", f"{base}; {code}"]
        runs = [
            subprocess.run(
                command, capture_output=True, text=True, check=True, env=environment
            ).stdout.split()
            for _ in range(10)
        ][1:]  # the first run writes the byte code
    imports = sorted(float(run[0]) for run in runs)
    tables = sorted(float(run[1]) for run in runs)
    print()
    print(f"import toolguard.invisible: {imports[4]:.2f} ms; its tables, built on the first")
    print(f"string beyond Latin-1: {tables[4]:.2f} ms (medians of 9 fresh processes)")


if __name__ == "__main__":
    text_table()
    projection_table()
    check_table()
    import_cost()
