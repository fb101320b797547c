"""The adapter registry: every kind is reachable from a contract and says what it is."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolguard import load_contract
from toolguard.adapters import ADAPTER_BY_KIND, Setting

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((REPO / "examples").glob("*/contract*.toml"))


def test_every_registered_kind_is_reachable_from_a_bundled_contract() -> None:
    """Each kind in ADAPTER_BY_KIND is the adapter of at least one example contract."""
    kinds = {load_contract(path).adapter_kind for path in EXAMPLES}
    assert kinds == set(ADAPTER_BY_KIND)


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_an_adapter_describes_itself_as_its_registered_kind(path: Path) -> None:
    """The audit record's adapter kind is the registry key; diff gets labelled settings."""
    contract = load_contract(path)
    assert contract.adapter.describe()["kind"] == contract.adapter_kind
    for name, setting in contract.adapter.settings().items():
        assert isinstance(setting, Setting)
        assert name
        assert setting.label
        assert setting.grows in {-1, 0, 1}
