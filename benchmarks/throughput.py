"""Parse + validate throughput on a ~10 MB accepted document: a script, not a test.

    .venv/bin/python benchmarks/throughput.py

Each engine runs in fresh subprocesses (so peak RSS is its own): MB/s (best of several runs),
time as a ratio to `json.loads` on the same bytes, and the peak RSS the run added over the
process before it read the document, in one run, as a multiple of the document's size (the
raw bytes themselves count for 1x). The strict-only row is toolguard's parser without its fast path.

`--shapes` measures other kinds of large documents the same way (parse, and parse + validate,
against `json.loads`), in one process: no goal is stated for them, but a document is not
always the records above. Where the time goes differs: `json.loads` reads long strings at
several hundred MB/s, which the screen (`fast_parse.py`) does not; a float written with 16 or
17 digits is read one by one (its shortest repr must be what was written).
"""

from __future__ import annotations

import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

RUNS = 5
RECORDS = 45_000  # about 10 MB
ENGINES = {
    "json.loads": "json.loads alone",
    "parse": "toolguard parse",
    "strict": "toolguard strict path only (no fast path)",
    "parse+validate": "toolguard parse + validate",
    "strict+validate": "toolguard strict path + validate",
    "fastjsonschema": "json.loads + fastjsonschema (stock)",
    "jsonschema-rs": "json.loads + jsonschema-rs",
}
SCHEMA = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["id", "name", "active", "score", "ratio", "tags", "owner", "note"],
        "additionalProperties": False,
        "properties": {
            "id": {"type": "integer", "minimum": 0},
            "name": {"type": "string", "minLength": 1, "maxLength": 200},
            "active": {"type": "boolean"},
            "score": {"type": "number"},
            "ratio": {"type": "number", "minimum": 0, "maximum": 1},
            "tags": {
                "type": "array",
                "maxItems": 3,
                "items": {"enum": ["a", "beta", "gamma-δ", "ops"]},
            },
            "owner": {
                "type": "object",
                "required": ["team", "level", "email"],
                "additionalProperties": False,
                "properties": {
                    "team": {"type": "string"},
                    "level": {"type": "integer", "minimum": 1, "maximum": 9},
                    "email": {"type": "string", "pattern": "^[^@]+@[^@]+$"},
                },
            },
            "note": {"type": ["string", "null"]},
        },
    },
}


def document(count: int = RECORDS) -> bytes:
    """An array of records: strings (some non-ASCII, some escapes), ints, floats, nesting."""
    rng = random.Random(7)
    names = ["alice", "bob", "chloé", "dmitri", "Ærøskøbing", "李雷", "zoë", "eve"]
    records = [
        {
            "id": i,
            "name": f"{rng.choice(names)} {i}",
            "active": rng.random() < 0.5,
            "score": round(rng.uniform(-1000, 1000), 4),
            "ratio": rng.random(),
            "tags": [rng.choice(["a", "beta", "gamma-δ", "ops"]) for _ in range(rng.randint(0, 3))],
            "owner": {
                "team": rng.choice(["infra", "data", "sécurité"]),
                "level": rng.randint(1, 9),
                "email": f"user{i}@example.com",
            },
            "note": None if i % 3 else 'line one\nline "two" \\ tab\t',
        }
        for i in range(count)
    ]
    return json.dumps(records, ensure_ascii=False).encode()


def _shapes() -> dict[str, tuple[Any, dict[str, Any]]]:
    """Other ~8-10 MB documents, each with a schema it satisfies: (value, schema)."""
    rng = random.Random(11)
    count = 60_000
    events = [
        {
            "ts": f"2026-12-04T10:{i % 60:02d}:{i % 59:02d}Z",
            "url": f"https://example.com/a/{i}?q=1",
            "level": rng.choice(["info", "warn"]),
            "msg": f"request {i} done: ok",
            "ms": rng.randint(1, 9999),
        }
        for i in range(count)
    ]
    body = 'Lorem ipsum "dolor" sit amet, consectetur\n adipiscing élit ' * 8
    text = [{"id": i, "body": body + str(i)} for i in range(15_000)]
    floats = [[rng.random() for _ in range(10)] for _ in range(45_000)]
    integers = [
        {"a": rng.randint(0, 10**12), "b": rng.randint(-1000, 1000), "c": [7, 0, 31, 100, 2]}
        for _ in range(150_000)
    ]

    def nest(depth: int) -> dict[str, Any]:
        if not depth:
            return {"k": depth, "v": [1, "x", None, True]}
        return {"k": depth, "child": nest(depth - 1), "sib": {"a": depth}}

    record = {"type": "object", "additionalProperties": False}
    return {
        "events (short strings, colons and URLs)": (
            events,
            {
                "type": "array",
                "items": {
                    **record,
                    "required": ["ts", "url", "level", "msg", "ms"],
                    "properties": {
                        "ts": {"type": "string", "maxLength": 40},
                        "url": {"type": "string", "maxLength": 200},
                        "level": {"enum": ["info", "warn", "error"]},
                        "msg": {"type": "string", "maxLength": 500},
                        "ms": {"type": "integer", "minimum": 0},
                    },
                },
            },
        ),
        "text (long strings with escapes)": (
            text,
            {
                "type": "array",
                "items": {
                    **record,
                    "required": ["id", "body"],
                    "properties": {
                        "id": {"type": "integer"},
                        "body": {"type": "string", "maxLength": 5000},
                    },
                },
            },
        ),
        "floats (17 digits each)": (
            floats,
            {"type": "array", "items": {"type": "array", "items": {"type": "number"}}},
        ),
        "integers": (
            integers,
            {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "a": {"type": "integer", "minimum": 0},
                        "b": {"type": "integer"},
                        "c": {"type": "array", "items": {"type": "integer"}},
                    },
                },
            },
        ),
        "nested objects (9 deep)": (
            [nest(6) for _ in range(40_000)],
            {"type": "array", "items": {"type": "object", "required": ["k"]}},
        ),
    }


def shapes(runs: int = RUNS) -> list[list[str]]:
    """Rows for the other shapes: MB, `json.loads` ms, parse and parse + validate ratios."""
    from toolguard.limits import Limits  # noqa: PLC0415 - imported in the child only
    from toolguard.parse import parse  # noqa: PLC0415
    from toolguard.schema import compile_schema  # noqa: PLC0415

    limits = Limits(max_bytes=16 * 1024 * 1024, max_container_items=200_000)
    rows = []
    for label, (value, schema) in _shapes().items():
        raw = json.dumps(value, ensure_ascii=False).encode()
        validate = compile_schema(schema, formats=False).validate
        timed = {}
        for name, function in (
            ("json.loads", json.loads),
            ("parse", lambda raw: parse(raw, limits)),
            ("parse+validate", lambda raw: validate(parse(raw, limits))),  # noqa: B023
        ):
            best = float("inf")
            for _ in range(runs):
                started = time.perf_counter()
                function(raw)
                best = min(best, time.perf_counter() - started)
            timed[name] = best
        base = timed["json.loads"]
        rows.append(
            [
                label,
                f"{len(raw) / 1e6:.1f}",
                f"{base * 1000:.0f}",
                f"{timed['parse'] / base:.2f}x",
                f"{timed['parse+validate'] / base:.2f}x",
            ]
        )
    return rows


SHAPES_HEADER = ["document", "MB", "json.loads ms", "parse", "parse + validate"]


def engine(name: str) -> Callable[[bytes], Any] | str:
    """The callable measured as `name`, or why it is missing."""
    from toolguard.limits import Limits  # noqa: PLC0415 - imported in the child only
    from toolguard.parse import _strict_parse, parse  # noqa: PLC0415
    from toolguard.schema import compile_schema  # noqa: PLC0415

    limits = Limits(max_bytes=16 * 1024 * 1024, max_container_items=100_000)
    if name == "json.loads":
        return json.loads
    if name == "parse":
        return lambda raw: parse(raw, limits)
    if name == "strict":
        return lambda raw: _strict_parse(raw, limits)
    if name in ("parse+validate", "strict+validate"):
        validate = compile_schema(SCHEMA, formats=False).validate
        read = parse if name == "parse+validate" else _strict_parse
        return lambda raw: validate(read(raw, limits))
    if name == "fastjsonschema":
        import fastjsonschema  # noqa: PLC0415 - benchmark-only

        check = fastjsonschema.compile(SCHEMA, use_default=False)
        return lambda raw: check(json.loads(raw))
    try:
        import jsonschema_rs  # noqa: PLC0415 - optional, benchmark-only
    except ImportError:
        return "not installed (pip install jsonschema-rs)"
    validator = jsonschema_rs.Draft202012Validator(SCHEMA)
    return lambda raw: validator.validate(json.loads(raw))


def child(name: str, path: str, runs: int) -> None:
    """Run one engine `runs` times in this fresh process; print its figures as JSON."""
    function = engine(name)
    if isinstance(function, str):
        print(json.dumps({"missing": function}))
        return
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    raw = Path(path).read_bytes()
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        function(raw)
        best = min(best, time.perf_counter() - started)
    print(json.dumps({"seconds": best, "before_kib": before}))


def measure(name: str, path: str, runs: int) -> dict[str, Any]:
    """Run `child` for `name` in a subprocess; add its peak RSS (KiB) from `wait4`."""
    process = subprocess.Popen(
        [sys.executable, __file__, "--child", name, path, str(runs)],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode:
        raise SystemExit(f"{name}: child failed with status {process.returncode}")
    return {**json.loads(output), "peak_kib": usage.ru_maxrss}


def main() -> None:
    with tempfile.TemporaryDirectory() as folder:
        os.environ["TOOLGUARD_CACHE_DIR"] = f"{folder}/cache"  # directly in /tmp: not trusted
        path = str(Path(folder) / "document.json")
        # NOTE: a child inherits its parent's peak RSS across fork, so the parent stays small:
        # the document is built in a subprocess of its own.
        subprocess.run([sys.executable, __file__, "--write", path], check=True)
        size = Path(path).stat().st_size
        print(f"document: {size / 1e6:.1f} MB, {RECORDS:,} records; best of {RUNS} runs each\n")
        print(f"{'engine':44} {'MB/s':>7} {'x json.loads':>13} {'peak RSS added':>15}")
        baseline = None
        for name, label in ENGINES.items():
            figures = measure(name, path, RUNS)
            if "missing" in figures:
                print(f"{label:44} {figures['missing']}")
                continue
            seconds = figures["seconds"]
            # NOTE: memory from a single run: freed values leave the allocator's arenas
            # resident, so a later run's buffers would add to an earlier run's leftovers.
            figures = measure(name, path, 1)
            baseline = baseline or seconds
            added = (figures["peak_kib"] - figures["before_kib"]) * 1024 / size
            print(
                f"{label:44} {size / seconds / 1e6:7.1f} {seconds / baseline:13.2f} {added:14.1f}x"
            )
    print("\npeak RSS added: the process's peak over its size before reading the document,")
    print("divided by the document's size (the raw bytes held by the run count for 1x).")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--child"]:
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1:2] == ["--shapes"]:
        print(json.dumps(shapes(int(sys.argv[2]) if sys.argv[2:] else RUNS)))
    elif sys.argv[1:2] == ["--write"]:
        Path(sys.argv[2]).write_bytes(document())
    else:
        main()
