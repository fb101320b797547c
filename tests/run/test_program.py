"""Which program a bare command name runs: the child's PATH, never through a relative entry."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

from toolguard.run.program import RelativeMatch, locate


def program(folder: Path, name: str = "tool", mode: int = 0o755) -> Path:
    """An executable script `name` in `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text("#!/bin/sh\necho hi\n")
    path.chmod(mode)
    return path


@pytest.mark.parametrize("entry", [".", "", "bin"], ids=["dot", "empty", "relative-folder"])
def test_a_name_found_first_through_a_relative_entry_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, entry: str
) -> None:
    """`PATH=.:/usr/bin` with a `tool` in the working folder: refused, and the entry named."""
    monkeypatch.chdir(tmp_path)
    program(tmp_path / entry if entry else tmp_path)
    absolute = program(tmp_path / "system")
    with pytest.raises(RelativeMatch, match=re.escape(f"relative PATH entry {entry!r}")):
        locate("tool", {"PATH": f"{entry}:{absolute.parent}"})


def test_a_relative_entry_after_the_match_is_never_reached(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first absolute folder holding the name wins; its absolute path is what runs."""
    monkeypatch.chdir(tmp_path)
    program(tmp_path)
    absolute = program(tmp_path / "system")
    assert locate("tool", {"PATH": f"{absolute.parent}:."}) == str(absolute)


def test_a_relative_entry_without_the_name_is_passed_over(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`.` first does no harm to a name the working folder does not hold."""
    monkeypatch.chdir(tmp_path)
    absolute = program(tmp_path / "system")
    assert locate("tool", {"PATH": f".::{absolute.parent}"}) == str(absolute)


def test_a_name_with_a_slash_is_the_callers_path(tmp_path: Path) -> None:
    """`./tool` or `bin/tool` names a file on purpose: run as given, no search."""
    assert locate("./tool", {"PATH": "."}) == "./tool"
    assert locate("bin/tool", {}) == "bin/tool"


def test_without_path_the_default_folders_are_searched() -> None:
    """No PATH in the child's environment: `/bin:/usr/bin`, never the working folder."""
    found = locate("sh", {})
    assert os.path.dirname(found) in {"/bin", "/usr/bin"}  # noqa: PTH120


def test_a_file_that_is_not_executable_is_passed_over_as_exec_does(tmp_path: Path) -> None:
    """A non-executable `tool` is skipped for a later one; alone, it is Permission denied."""
    program(tmp_path / "a", mode=0o644)
    later = program(tmp_path / "b")
    assert locate("tool", {"PATH": f"{tmp_path / 'a'}:{later.parent}"}) == str(later)
    with pytest.raises(PermissionError):
        locate("tool", {"PATH": str(tmp_path / "a")})


def test_a_name_on_no_folder_is_not_found(tmp_path: Path) -> None:
    """Nothing found: the error exec gives, for the attempt's spawn error."""
    with pytest.raises(FileNotFoundError):
        locate("tool", {"PATH": str(tmp_path)})


def test_a_name_holding_a_nul_is_left_for_popen_to_refuse() -> None:
    """No search for a name no file can have: Popen's ValueError names the NUL byte."""
    assert locate("ss\0h", {"PATH": "/usr/bin"}) == "ss\0h"
