"""Finding contracts in folders: `contract.toml` and `contract.NAME.toml`, never in fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from toolguard.contract.find import contract_paths, is_contract_name, variant
from toolguard.errors import UsageError

TREES = Path(__file__).resolve().parents[1] / "data" / "fixture_trees"
EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def test_contract_paths_walk_folders_and_keep_files_as_given() -> None:
    """A folder gives every contract under it (sorted); a file is taken as given, once."""
    found = contract_paths([TREES, TREES / "pass" / "contract.toml"])
    assert [path.parent.name for path in found] == [
        "bad_fixtures",
        "empty_folder",
        "missing_folder",
        "pass",
        "stale_golden",
        "wrong_layer",
    ]


def test_contract_paths_skip_hidden_and_fixture_folders(tmp_path: Path) -> None:
    """.venv-like, fixtures/ and fixtures.NAME/ folders are not searched for contracts."""
    for folder in (".venv/lib", "tool/fixtures/accept", "tool/fixtures.jc/accept", "tool"):
        (tmp_path / folder).mkdir(parents=True, exist_ok=True)
        (tmp_path / folder / "contract.toml").write_text("")
    assert contract_paths([tmp_path]) == [tmp_path / "tool" / "contract.toml"]


def test_a_second_contract_in_a_folder_is_found_after_the_first(tmp_path: Path) -> None:
    """contract.NAME.toml files are contracts too, listed after their folder's contract.toml."""
    for name in ("contract.toml", "contract.jc.toml", "contract.v2.toml", "other.toml"):
        (tmp_path / name).write_text("")
    found = [path.name for path in contract_paths([tmp_path])]
    assert found == ["contract.toml", "contract.jc.toml", "contract.v2.toml"]


def test_the_examples_hold_seven_contracts() -> None:
    """disk_usage's jc variant is found beside its line contract."""
    found = contract_paths([EXAMPLES])
    assert len(found) == 7
    assert EXAMPLES / "disk_usage" / "contract.jc.toml" in found


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("contract.toml", None),
        ("contract.jc.toml", "jc"),
        ("contract.v-2_b.toml", "v-2_b"),
        ("contract..toml", None),
        ("contract.a.b.toml", None),
        ("other.toml", None),
    ],
)
def test_variant_is_the_name_between_contract_and_toml(name: str, expected: str | None) -> None:
    """`contract.NAME.toml` has the variant NAME; anything else has none."""
    assert variant(Path(name)) == expected


def test_only_contract_names_are_found() -> None:
    """`contract.toml` and `contract.NAME.toml` are contract names; others are not."""
    assert is_contract_name("contract.toml")
    assert is_contract_name("contract.jc.toml")
    assert not is_contract_name("contract.a.b.toml")
    assert not is_contract_name("my_contract.toml")


def test_a_folder_without_contract_is_a_usage_error(tmp_path: Path) -> None:
    """A run that would find nothing to test is refused, never an empty pass."""
    with pytest.raises(UsageError, match=r"no contract\.toml \(or contract\.NAME\.toml\) under"):
        contract_paths([tmp_path])
