"""The fuzz targets' oracles hold on every seed and every past finding, without atheris.

Each target under `fuzz/` is importable as a module: its `test_one_input` is the oracle
libFuzzer calls. Running it here over the generated seeds and the regression inputs of
`tests/data/fuzz/` keeps the targets working (a fixture change that breaks one fails here,
not in a long run) and keeps every minimised finding fixed.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from decimal import Decimal
from pathlib import Path
from types import ModuleType

import pytest

from toolguard.limits import Limits

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
sys.path.insert(0, str(FUZZ))

seeds = importlib.import_module("seeds")

TARGETS: dict[str, Callable[[], Mapping[str, bytes]]] = {
    "strict_parse": seeds.json_documents,
    "pipeline_check": seeds.responses,
    "contract_load": seeds.contracts,
    "contract_diff": seeds.contract_pairs,
    "serve_lines": seeds.request_lines,
    "text_adapter": seeds.text_outputs,
    "mcp_relay": seeds.relay_sessions,
    "signed_token": seeds.signed_tokens,
    "audit_log": seeds.audit_logs,
    "schema_compile": seeds.schemas,
    "format_check": seeds.format_strings,
}


def _target(name: str) -> ModuleType:
    return importlib.import_module(name)


@pytest.mark.parametrize("name", sorted(TARGETS))
def test_every_seed_passes_the_targets_oracle(name: str) -> None:
    """Every seed of a target (fixtures, canary variants, past findings) passes its oracle."""
    target = _target(name)
    corpus = TARGETS[name]()
    assert corpus
    for seed_name, data in corpus.items():
        try:
            target.test_one_input(data)
        except AssertionError as exc:
            raise AssertionError(f"{name} seed {seed_name}: {exc}") from None


def test_every_target_is_tested_here() -> None:
    """Each `fuzz/*.py` with a `test_one_input` is listed in TARGETS."""
    found = {
        path.stem for path in FUZZ.glob("*.py") if "def test_one_input" in path.read_text("utf-8")
    }
    assert found == set(TARGETS)


def test_every_regression_folder_names_a_target() -> None:
    """`tests/data/fuzz/NAME/` holds a target's past findings: NAME must be a target."""
    folder = Path(__file__).resolve().parents[1] / "data" / "fuzz"
    names = {path.name for path in folder.iterdir() if path.is_dir()} if folder.is_dir() else set()
    assert names <= set(TARGETS)


def test_the_reference_refuses_what_the_policy_refuses() -> None:
    """The strict reference itself refuses each class the policy adds to RFC 8259."""
    reference = importlib.import_module("reference")
    limits = Limits(max_depth=2, max_string_length=3, max_container_items=2, max_integer_digits=3)
    refused = [
        b'{"a": 1, "a": 2}',
        b'{"a": 1, "\\u0061": 2}',
        b"NaN",
        b"[-Infinity]",
        b'"\\ud800"',
        b'"\\udc00\\ud800"',
        b"\xef\xbb\xbf{}",
        b'"\xed\xa0\x80"',
        b'"\xc0\xaf"',
        b"[[[]]]",
        b'"abcd"',
        b'{"abcd": 1}',
        b"[1, 2, 3]",
        b"1000",
        b"1e400",
        b"1e-400",
        b"0.100000000000000000001",
        b"[1]\x0c",
        b"",
    ]
    for raw in refused:
        with pytest.raises(reference.Refused):
            reference.reference_parse(raw, limits)
    assert reference.same(reference.reference_parse(b'{"b": [1, -0.0]}', limits), {"b": [1, -0.0]})
    huge = b"[0e-99999999999999999999999, -1.5E+3]"  # an exponent beyond Decimal's range
    assert reference.reference_parse(huge, limits, as_written=True) == [Decimal(0), Decimal(-1500)]
    assert not reference.same(-0.0, 0.0)
    assert not reference.same(1, 1.0)
    assert not reference.same({"a": 1, "b": 2}, {"b": 2, "a": 1})
