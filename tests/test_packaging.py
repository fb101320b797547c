"""What an installed toolguard needs from pyproject.toml: the files it opens, honest floors."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

import toolguard
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


def test_requires_python_is_the_oldest_python_toolguard_runs_on() -> None:
    """pip's floor and the one the command and the library check are one version."""
    oldest = ".".join(map(str, toolguard.OLDEST_PYTHON))
    assert PYPROJECT["project"]["requires-python"] == f">={oldest}"


# `sys.version_info` as CPython 3.11.4 has it: the last release whose `re` mis-matches
# possessive quantifiers (`toolguard.OLDEST_PYTHON`).
_AS_IF_3_11_4 = "import sys; sys.version_info = (3, 11, 4, 'final', 0); "
_REFUSED = (
    "toolguard needs Python 3.11.5 or newer, not 3.11.4: its regular expressions match"
    " possessive quantifiers wrongly (python/cpython#106052)"
)


def test_the_command_on_a_python_that_is_too_old_says_so_and_exits_4() -> None:
    """Installed past pip's floor (a checkout on `PYTHONPATH`), a check is refused in one line,
    exit 4 as for any broken install, before a contract or a response is read."""
    review = REPO / "examples" / "review_status"
    code = _AS_IF_3_11_4 + "from toolguard.launch import run; run(sys.argv)"
    done = subprocess.run(  # noqa: PLW1510 - the status is what the test asserts
        [
            *(sys.executable, "-c", code, "check", str(review / "contract.toml")),
            *("--input", str(review / "response.json")),
            *("--context-file", str(review / "context.json")),
        ],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )
    assert (done.returncode, done.stdout) == (4, b"")
    assert done.stderr.decode() == f"toolguard: error: {_REFUSED}\n"


# An interpreter older still (macOS's 3.9): the command's own modules fail to import on it.
_AS_IF_3_9 = """import sys
sys.version_info = (3, 9, 18, "final", 0)
class Older:
    def find_spec(self, name, path=None, target=None):
        if name == "toolguard.one_shot":
            raise TypeError("'type' object is not subscriptable")
sys.meta_path.insert(0, Older())
from toolguard.launch import run; run(sys.argv)
"""


def test_the_command_on_a_python_its_modules_cannot_load_on_says_so_and_exits_4() -> None:
    """Where toolguard's modules fail to import (3.9's `tuple[int]`, `zip(strict=)`), the
    command still refuses the interpreter in one line, exit 4, never with a traceback."""
    done = subprocess.run(  # noqa: PLW1510 - the status is what the test asserts
        [sys.executable, "-c", _AS_IF_3_9, "-V"],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        cwd=REPO,
        timeout=60,
    )
    refused = _REFUSED.replace("not 3.11.4", "not 3.9.18")
    assert (done.returncode, done.stdout) == (4, b"")
    assert done.stderr.decode() == f"toolguard: error: {refused}\n"


def test_the_library_on_a_python_that_is_too_old_refuses_its_names(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`from toolguard import check` is an `ImportError` that says why, never a wrong answer."""
    monkeypatch.setattr(sys, "version_info", (3, 11, 4, "final", 0))
    with pytest.raises(ImportError, match=re.escape(_REFUSED)):
        toolguard.__getattr__("check")
