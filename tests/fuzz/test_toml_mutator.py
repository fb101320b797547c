"""The contract target's structural mutator writes TOML that reads back as what it mutated."""

from __future__ import annotations

import importlib
import math
import random
import sys
import tomllib
from pathlib import Path
from typing import Any

FUZZ = Path(__file__).resolve().parents[2] / "fuzz"
sys.path.insert(0, str(FUZZ))

seeds = importlib.import_module("seeds")
toml_mutator = importlib.import_module("toml_mutator")


def _without_nan(value: Any) -> Any:
    """NaN is not equal to itself: compare it as a marker."""
    if isinstance(value, float) and math.isnan(value):
        return "<nan>"
    if isinstance(value, dict):
        return {key: _without_nan(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_without_nan(item) for item in value]
    return value


def test_mutated_contracts_are_toml_that_reads_back_as_the_mutated_document() -> None:
    """After any number of mutations, `dumps` writes TOML whose value is the document."""
    words = [word.decode() for word in seeds.toml_tokens()]
    rng = random.Random(14)
    documents = []
    for raw in seeds.contracts().values():
        try:
            documents.append(tomllib.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, tomllib.TOMLDecodeError):
            continue
    assert len(documents) > 20
    for document in documents:
        for _ in range(12):
            toml_mutator.mutate_document(document, words, rng)
            text = toml_mutator.dumps(document)
            assert _without_nan(tomllib.loads(text)) == _without_nan(document)
