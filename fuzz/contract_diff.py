"""Fuzz target: `toolguard diff OLD NEW`'s library function on two hostile contracts.

Each input is two contracts, OLD then NEW, split at the first NUL (a TOML document holds
none); an input without one is a contract diffed against itself. Both are written in a
private folder that mirrors the files the test contracts name, as `contract_load` does, and
half the mutations are structural (`toml_mutator.py`, on one of the two). For each input:

- each `toolguard.load_contract` returns a contract or raises `ContractError` (with a
  message): the refusal `diff` exits with, nothing else;
- `diff_contracts` of two that load returns its report, never an exception: each change's
  classification is one `change.py` defines, breaking whenever fewer responses may pass,
  and the verdict's bump is the one its changes need;
- a contract diffed against itself has no change, and its verdict is ok;
- the report renders as `toolguard diff` renders it: the JSON is one ASCII line holding every
  change, and neither form holds a raw control character or a hidden code point.

Time and memory are bounded by libFuzzer's `-timeout` and `-rss_limit_mb`. The compile cache
is a private temporary folder, its contract artefacts deleted every few thousand inputs.

    python fuzz/contract_diff.py -max_total_time=60
"""

from __future__ import annotations

import io
import json
import random

import harness
import seeds
import toml_mutator

MIRROR = harness.scratch("contract_diff", cache=True)

with harness.instrumented():
    import toolguard
    from toolguard.diff import diff_contracts
    from toolguard.diff.change import BOTH, DATA, FAILURE, LESS, MORE, NONE
    from toolguard.diff.render import write
    from toolguard.errors import ContractError

OLD, NEW = MIRROR / "old.toml", MIRROR / "new.toml"
WORDS = [word.decode("utf-8") for word in seeds.toml_tokens()]
UPSTREAM = frozenset({MORE, LESS, BOTH, NONE})
AGENT = frozenset({DATA, FAILURE, "none"})
_now_and_then = harness.every(4096, harness.prune_contract_artefacts)
seeds.mirror(MIRROR)


def test_one_input(data: bytes) -> None:
    """Diff one pair of contracts and render the report; an `AssertionError` is a finding."""
    _now_and_then()
    old_bytes, split, new_bytes = data.partition(b"\0")
    OLD.write_bytes(old_bytes)
    NEW.write_bytes(new_bytes if split else old_bytes)
    try:
        old, new = toolguard.load_contract(OLD), toolguard.load_contract(NEW)
    except ContractError as exc:
        assert str(exc), "a ContractError without a message"
        return
    result = diff_contracts(old, new)
    for item in result.changes:
        assert item.upstream in UPSTREAM and item.agent in AGENT, f"unclassified: {item!r}"
        assert item.breaking or item.upstream not in {LESS, BOTH}, f"not breaking: {item!r}"
    bump = "major" if result.breaking else "minor" if result.agent_facing else "none"
    assert result.verdict.required_bump == bump, f"{bump} needed: {result.verdict!r}"
    if not split:
        assert not result.changes, f"a contract differs from itself: {result.changes[:3]!r}"
        assert result.verdict.ok, f"a contract is no version of itself: {result.verdict!r}"
    for mode in ("text", "json"):
        stream = io.StringIO()
        write(result, mode, stream)
        shown = stream.getvalue()
        harness.assert_escaped(shown, f"diff ({mode})")
        if mode == "json":
            assert shown.isascii() and shown.count("\n") == 1, "the JSON is not one ASCII line"
            assert len(json.loads(shown)["changes"]) == len(result.changes), "changes left out"


def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
    """One of the two contracts mutated: half by libFuzzer, half structurally (its TOML)."""
    rng = random.Random(seed)
    old, split, new = data.partition(b"\0")
    if not split:
        return toml_mutator.mutate(data, max_size, rng, WORDS, harness.mutate)
    first = rng.random() < 0.5
    room = max_size - len(new if first else old) - 1
    if room < len(old if first else new):  # no room to grow it: plain bytes, both
        return harness.mutate(data, max_size)
    if first:
        old = toml_mutator.mutate(old, room, rng, WORDS, harness.mutate)
    else:
        new = toml_mutator.mutate(new, room, rng, WORDS, harness.mutate)
    return old + b"\0" + new


def main() -> None:
    """Fuzz, with the diff tests' pairs and every example and good test contract as seeds."""
    harness.run(
        "contract_diff",
        test_one_input,
        seeds=seeds.contract_pairs,
        dictionary=[b"\0", *(word.encode("utf-8") for word in WORDS)],
        max_len=16_384,
        custom_mutator=custom_mutator,
    )


if __name__ == "__main__":
    main()
