"""nst/JSONTestSuite `test_parsing/` against the strict parser: one test id per file.

Policy: every `y_` file is accepted except the two with duplicate member names (rejected, as
toolguard rejects duplicates); every `n_` file is rejected; every `i_` file gets a defined
answer, a value or a `Rejection`, never another exception. Of the `i_` files, those whose
number underflows to zero are rejected (`number_underflow`): toolguard never delivers 0.0 for
a number that is not zero. A `y_` number whose float needs the number written beside it (an
integer over the integer budget, such as `1E22`) is an `ExactFloat`, equal to Python's float.

The suite is the copy vendored under `tests/conformance/jsontestsuite/` (`JSONTESTSUITE_DIR`
points at another checkout); a missing suite fails collection.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path
from typing import Any

import pytest
from strategies import same_json

from toolguard.errors import LimitExceeded, ParseError
from toolguard.parse import parse

_ENV = "JSONTESTSUITE_DIR"
_VENDORED = Path(__file__).resolve().parent / "conformance" / "jsontestsuite"
SUITE = Path(os.environ[_ENV]) if os.environ.get(_ENV) else _VENDORED
PARSING = SUITE / "test_parsing"
DUPLICATE_KEY_FILES = frozenset(
    {"y_object_duplicated_key.json", "y_object_duplicated_key_and_value.json"}
)

if not PARSING.is_dir():  # a missing suite is a failure, never a skip
    pytest.fail(
        f"no JSONTestSuite test_parsing/ folder at {PARSING} "
        f"(the copy under tests/conformance/, or {_ENV} when set)",
        pytrace=False,
    )

FILES = sorted(path for path in PARSING.iterdir() if path.is_file())


def _cases(prefix: str, *, exclude: frozenset[str] = frozenset()) -> list[Any]:
    return [
        pytest.param(path, id=path.name)
        for path in FILES
        if path.name.startswith(prefix) and path.name not in exclude
    ]


def test_suite_folder_holds_every_kind_of_case() -> None:
    """The folder holds y_, n_ and i_ files and both duplicate-key files: never a silent pass."""
    names = {path.name for path in FILES}
    for prefix in ("y_", "n_", "i_"):
        assert any(name.startswith(prefix) for name in names), f"no {prefix} files in {PARSING}"
    assert names >= DUPLICATE_KEY_FILES, f"{PARSING} lacks {sorted(DUPLICATE_KEY_FILES - names)}"


def test_every_file_has_a_known_prefix() -> None:
    """Each file is a y_, n_ or i_ case, so none escapes the three tests below."""
    assert [path.name for path in FILES if path.name[:2] not in ("y_", "n_", "i_")] == []


@pytest.mark.parametrize("path", _cases("y_", exclude=DUPLICATE_KEY_FILES))
def test_y_file_is_accepted_with_the_value_python_reads(path: Path) -> None:
    """A y_ file parses, to the same value (types included) as Python's json module reads."""
    raw = path.read_bytes()
    assert same_json(parse(raw), json.loads(raw))


@pytest.mark.parametrize("path", _cases("y_object_duplicated_key"))
def test_y_file_with_duplicate_member_is_rejected(path: Path) -> None:
    """The suite accepts duplicate member names; toolguard's policy rejects them."""
    with pytest.raises(ParseError) as caught:
        parse(path.read_bytes())
    assert caught.value.reason == "duplicate_member"


@pytest.mark.parametrize("path", _cases("n_"))
def test_n_file_is_rejected(path: Path) -> None:
    """An n_ file is a `ParseError` or `LimitExceeded`, never a value or another exception."""
    with pytest.raises((ParseError, LimitExceeded)):
        parse(path.read_bytes())


UNDERFLOW_FILES = ("i_number_double_huge_neg_exp.json", "i_number_real_underflow.json")


@pytest.mark.parametrize("name", UNDERFLOW_FILES)
def test_i_file_whose_number_underflows_to_zero_is_rejected(name: str) -> None:
    """`123e-10000000` is not zero, and 0.0 would misrepresent it: a number_underflow."""
    with pytest.raises(ParseError) as caught:
        parse((PARSING / name).read_bytes())
    assert caught.value.reason == "number_underflow"


@pytest.mark.parametrize("path", _cases("i_"))
def test_i_file_gets_a_value_or_a_rejection(path: Path) -> None:
    """An i_ file either parses or is a `ParseError` / `LimitExceeded`; nothing else escapes."""
    with contextlib.suppress(ParseError, LimitExceeded):
        parse(path.read_bytes())
