"""Contracts in folders: `contract.toml` and `contract.NAME.toml`, for `test`, `lint` and `diff`.

One folder may hold several contracts for one tool (`contract.jc.toml` reads the same text as
`contract.toml`, with jc): each is a contract of its own, with its own fixtures folder. A
target that is not a folder is taken as given; a folder is searched for every contract under
it, except in hidden folders and fixture folders (`fixtures/`, `fixtures.NAME/`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from toolguard.errors import UsageError
from toolguard.files import is_folder

CONTRACT_FILE = "contract.toml"
FIXTURES_FOLDER = "fixtures"
_CONTRACT_NAME = re.compile(r"contract(?:\.([A-Za-z0-9_-]+))?\.toml")


def variant(path: Path) -> str | None:
    """`NAME` for `contract.NAME.toml`; None for `contract.toml` or any other file name."""
    match = _CONTRACT_NAME.fullmatch(path.name)
    return match.group(1) if match else None


def is_contract_name(name: str) -> bool:
    """Whether a file called `name` is a contract: `contract.toml` or `contract.NAME.toml`."""
    return _CONTRACT_NAME.fullmatch(name) is not None


def contract_paths(targets: Iterable[Path]) -> list[Path]:
    """Each target as given if it is not a folder, else every contract under it, sorted.

    A folder without any contract is a usage error: a run that found nothing must not pass.
    """
    found: list[Path] = []
    for target in targets:
        if not is_folder(target):
            found.append(target)  # loading it will say what is wrong with it
            continue
        inside = _contracts_under(target)
        if not inside:
            raise UsageError(f"no {CONTRACT_FILE} (or contract.NAME.toml) under {target}")
        found.extend(inside)
    return list(dict.fromkeys(found))


def _contracts_under(folder: Path) -> list[Path]:
    found: list[Path] = []
    for parent, folders, files in os.walk(folder):
        # NOTE: pruned, not filtered afterwards: `toolguard test .` must not walk .venv or .git.
        folders[:] = [name for name in folders if not _pruned(name)]
        found.extend(Path(parent) / name for name in files if is_contract_name(name))
    # `contract.toml` first in its folder, then its variants by name.
    return sorted(found, key=lambda path: (path.parent, path.name != CONTRACT_FILE, path.name))


def _pruned(name: str) -> bool:
    return name.startswith(".") or name.split(".", 1)[0] == FIXTURES_FOLDER
