"""Fuzz target: the contract loader on mutated TOML, then a check with what it loaded.

Each input is written as `contract.toml` in a private folder that mirrors the files the
example and test contracts name (their schemas and key sets, under the same relative paths;
the seeds name them so). Half the mutations are libFuzzer's, half structural
(`toml_mutator.py`). For each input:

- `toolguard.load_contract` returns a contract or raises `ContractError` or `SchemaError`,
  never another exception;
- a contract that loads checks each example's accepted responses (with every example's
  context) without an exception other than `UsageError` for a context it needs and is not
  given, and without reporting a toolguard bug (`internal`).

The compile cache is a private temporary folder (an artefact per distinct contract would
fill the user's own); the artefacts in it are deleted every few thousand inputs.

    python fuzz/contract_load.py -max_total_time=60
"""

from __future__ import annotations

import random
from typing import Any

import harness
import seeds
import toml_mutator

MIRROR = harness.scratch("contract_load", cache=True)

with harness.instrumented():
    import toolguard
    from toolguard.errors import ContractError, SchemaError, UsageError

CONTRACT = MIRROR / "contract.toml"
_now_and_then = harness.every(4096, harness.prune_contract_artefacts)
WORDS = [word.decode("utf-8") for word in seeds.toml_tokens()]


seeds.mirror(MIRROR)
CONTEXT: dict[str, Any] = {}
for _example in seeds.examples():
    CONTEXT.update(_example.context)
# The first accepted response of each example.
RESPONSES = [
    next(path for path in seeds.fixture_files(example) if path.parent.name == "accept").read_bytes()
    for example in seeds.examples()
    if example.fixtures is not None
]


def test_one_input(data: bytes) -> None:
    """Load one contract and check responses with it; an `AssertionError` is a finding."""
    _now_and_then()
    CONTRACT.write_bytes(data)
    try:
        contract = toolguard.load_contract(CONTRACT)
    except (ContractError, SchemaError):
        return
    for raw in RESPONSES:
        try:
            outcome = toolguard.check(
                contract, raw, request_id="req.fuzz.0001", context=CONTEXT, now=seeds.FIXTURE_NOW
            )
        except UsageError:
            return  # a context the mutated rules need that no example has
        diagnostics = outcome.diagnostics
        assert diagnostics.outcome != "internal", f"internal error: {diagnostics.message}"


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """Half libFuzzer's byte mutations, half one structural change of the TOML document."""
    return toml_mutator.mutate(data, max_size, random.Random(seed), WORDS, harness.mutate)


def main() -> None:
    """Fuzz, with every example and test contract as seeds."""
    harness.run(
        "contract_load",
        test_one_input,
        seeds=seeds.contracts,
        dictionary=[word.encode("utf-8") for word in WORDS],
        max_len=16_384,
        custom_mutator=custom_mutator,
    )


if __name__ == "__main__":
    main()
