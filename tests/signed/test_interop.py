"""Tokens and key sets that real JOSE libraries made, as an issuer would: each gets its answer.

`tests/data/signed/interop/` holds one file per library (PyJWT, joserfc, jwcrypto,
python-jose, Authlib, npm `jose`), each naming the version and the calls that made it, plus
`edge.json`: genuine tokens altered, or assembled by hand, to try what verifiers have got
wrong. The private keys were discarded, so the files are the evidence and no library but the
`signed` extra is needed here. A library's ordinary token verifies; everything else is
refused with its reason (a `RuleViolation`, the rule layer's failure envelope), or the key
set refuses the contract.
"""

from __future__ import annotations

import importlib
import json
import sys
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from toolguard.errors import RuleViolation
from toolguard.signed.verify import verify

INTEROP = Path(__file__).resolve().parent.parent / "data" / "signed" / "interop"
FILES = sorted(INTEROP.glob("*.json"))
# The `signed_token` fuzz target reads these cases too: one home for a case's policy.
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "fuzz"))
seeds = importlib.import_module("seeds")


@cache
def _file(path: Path) -> dict[str, Any]:
    return json.loads(path.read_text(encoding="utf-8"))


CASES = [
    pytest.param(path, name, id=f"{path.stem}/{name}")
    for path in FILES
    for name in _file(path)["cases"]
]


def test_each_library_file_says_who_made_it_and_holds_cases() -> None:
    """An empty folder or file is an error, not a pass; every file names its maker."""
    assert {path.stem for path in FILES} >= {
        "authlib",
        "edge",
        "jose-npm",
        "joserfc",
        "jwcrypto",
        "pyjwt",
        "python-jose",
    }
    for path in FILES:
        document = _file(path)
        assert document["made_by"]
        assert document["how"]
        assert document["cases"]


@pytest.mark.parametrize(("path", "name"), CASES)
def test_a_real_librarys_token_gets_its_answer(path: Path, name: str) -> None:
    """Verifies when `expect` says so; else the named reason, or the contract is refused."""
    document = _file(path)
    case = document["cases"][name]
    expect = case["expect"]
    if isinstance(expect, dict):
        with pytest.raises(ValueError, match=expect["contract_refused"]):
            seeds.signed_policy(document, case)
        return
    policy, now = seeds.signed_policy(document, case), datetime.fromisoformat(document["now"])
    if expect == "verifies":
        assert verify(case["token"], now, policy)["iss"] == document["issuer"]
        return
    with pytest.raises(RuleViolation) as refused:
        verify(case["token"], now, policy)
    assert refused.value.reason == expect
