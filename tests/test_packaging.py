"""What an installed toolguard needs from pyproject.toml: the files it opens, honest floors."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from toolguard import shipped
from toolguard.errors import DEPENDENCIES

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
WHEEL = PYPROJECT["tool"]["hatch"]["build"]["targets"]["wheel"]
PYTHONS = [
    classifier.rsplit(" :: ", 1)[1]
    for classifier in PYPROJECT["project"]["classifiers"]
    if re.fullmatch(r"Programming Language :: Python :: 3\.\d+", classifier)
]


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.match(r"[A-Za-z0-9_.-]+", requirement)[0]).lower()  # type: ignore[index]


def test_the_wheel_carries_the_shipped_schemas_where_the_code_looks_for_them() -> None:
    """`schemas/` goes into the package as `_schemas`, the folder `shipped.py` tries first."""
    assert WHEEL["force-include"] == {"schemas": "toolguard/_schemas"}
    assert Path(shipped._PACKAGE, "_schemas") == REPO / WHEEL["force-include"]["schemas"]


def test_every_shipped_schema_the_code_opens_is_in_schemas() -> None:
    """Each `shipped_schema("NAME")` in the package names a file or folder of `schemas/`."""
    sources = "".join(path.read_text() for path in (REPO / "toolguard").rglob("*.py"))
    names = set(re.findall(r'shipped_schema\("([^"]+)"\)', sources))
    assert names, "no shipped_schema call found: is this test still reading the right thing?"
    for name in names:
        assert (REPO / "schemas" / name).exists(), name


def test_the_wheel_carries_the_package_its_type_marker_and_the_command() -> None:
    """The `toolguard` package (with `py.typed`) and the `bin/toolguard` script are shipped."""
    assert WHEEL["packages"] == ["toolguard"]
    assert (REPO / "toolguard" / "py.typed").is_file()
    assert WHEEL["shared-scripts"] == {"bin/toolguard": "toolguard"}
    assert (REPO / "bin" / "toolguard").is_file()


@pytest.mark.parametrize("python", PYTHONS)
def test_each_supported_python_has_exactly_one_floor_per_dependency(python: str) -> None:
    """The floors .ci/run installs: markers split a floor by Python with no overlap or gap."""
    done = subprocess.run(
        [sys.executable, REPO / ".ci" / "floors.py", "--python", python],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    pins = done.stdout.split()
    assert all(re.fullmatch(r"[A-Za-z0-9_.-]+==[0-9][0-9A-Za-z.]*", pin) for pin in pins), pins
    dependencies = {_name(requirement) for requirement in PYPROJECT["project"]["dependencies"]}
    assert sorted(_name(pin) for pin in pins) == sorted(dependencies)


def test_every_runtime_dependency_is_named_when_it_is_missing() -> None:
    """`errors.DEPENDENCIES` (what a missing import is reported as) lists exactly these."""
    dependencies = {_name(requirement) for requirement in PYPROJECT["project"]["dependencies"]}
    assert set(DEPENDENCIES.values()) == dependencies
    for module in DEPENDENCIES:
        assert importlib.util.find_spec(module) is not None, module
