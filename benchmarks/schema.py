"""Schema stage figures, side by side in one run: a script, not a test.

    .venv/bin/python benchmarks/schema.py

For the article's schemas and a ~10 MB document: validations per second and MB/s for stock
fastjsonschema (draft 7 semantics), toolguard's 2020-12 engine, python-jsonschema and
jsonschema-rs (each skipped with a note when not installed); then toolguard's compile time
against loading the same validator from its cache.
"""

from __future__ import annotations

import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import fastjsonschema

from toolguard.schema import compile_schema

HERE = Path(__file__).resolve().parent
EXAMPLES = HERE.parent / "examples"
# The article's composed identity object, shared with the tests.
ARTICLE_IDENTITY = json.loads(
    (HERE.parent / "tests" / "data" / "schemas" / "article_identity.schema.json").read_text()
)


def cases() -> list[tuple[str, Any, Any]]:
    """(name, schema, a valid instance) for each schema measured."""
    out = []
    for name in ("review_status", "job_run", "deploy_status"):
        schema = json.loads((EXAMPLES / name / "response.schema.json").read_text())
        instance = json.loads((EXAMPLES / name / "response.json").read_text())
        out.append((name, schema, instance))
    out.append(
        (
            "article identity (allOf + unevaluated)",
            ARTICLE_IDENTITY,
            {"subject": "alice", "source": "directory"},
        )
    )
    records = [{"subject": f"user{i}", "source": "directory"} for i in range(130_000)]
    out.append(
        ("~10 MB array of identities", {"type": "array", "items": ARTICLE_IDENTITY}, records)
    )
    return out


def validators(schema: Any) -> dict[str, Callable[[Any], Any] | str]:
    """Each engine's callable validator for `schema`, or why it is missing."""
    engines: dict[str, Callable[[Any], Any] | str] = {
        "fastjsonschema (stock)": fastjsonschema.compile(schema, use_default=False),
        "toolguard": compile_schema(schema, formats=False).validate,
    }
    try:
        import jsonschema  # noqa: PLC0415 - optional, benchmark-only

        engines["python-jsonschema"] = jsonschema.Draft202012Validator(schema).validate
    except ImportError:
        engines["python-jsonschema"] = "not installed (pip install jsonschema)"
    try:
        import jsonschema_rs  # noqa: PLC0415 - optional, benchmark-only

        engines["jsonschema-rs"] = jsonschema_rs.Draft202012Validator(schema).validate
    except ImportError:
        engines["jsonschema-rs"] = "not installed (pip install jsonschema-rs)"
    return engines


def rate(function: Callable[[Any], Any], instance: Any, budget: float = 0.5) -> float:
    """Validations per second over about `budget` seconds (at least 3 runs)."""
    runs, started = 0, time.perf_counter()
    while runs < 3 or time.perf_counter() - started < budget:
        function(instance)
        runs += 1
    return runs / (time.perf_counter() - started)


def compile_versus_load() -> None:
    """toolguard's compile time against loading the same validator from its cache."""
    print("\ncompile (cold cache) vs load (warm cache), toolguard, median of 5")
    for name, schema, _ in cases()[:4]:
        cold, warm = [], []
        for _ in range(5):
            with tempfile.TemporaryDirectory() as folder:
                # NOTE: a folder inside the private one: directly in /tmp it is not trusted.
                os.environ["TOOLGUARD_CACHE_DIR"] = f"{folder}/cache"
                started = time.perf_counter()
                compile_schema(schema)
                cold.append(time.perf_counter() - started)
                started = time.perf_counter()
                compile_schema(schema)
                warm.append(time.perf_counter() - started)
        c, w = statistics.median(cold) * 1000, statistics.median(warm) * 1000
        print(f"  {name:42} compile {c:7.2f} ms   load {w:6.2f} ms   load/compile {w / c:5.2f}")


def main() -> None:
    print(f"{'schema':42} {'engine':24} {'validations/s':>14} {'MB/s':>8}")
    for name, schema, instance in cases():
        size_mb = len(json.dumps(instance)) / 1e6
        for engine, function in validators(schema).items():
            if isinstance(function, str):
                print(f"{name:42} {engine:24} {function}")
                continue
            per_second = rate(function, instance)
            print(f"{name:42} {engine:24} {per_second:14,.0f} {per_second * size_mb:8.1f}")
    compile_versus_load()
    print("\nstock fastjsonschema ignores unevaluatedProperties: its figures on the identity rows")
    print("are for a validator that lets admin_override through.")


if __name__ == "__main__":
    main()
