"""The `toolguard` group: its version flags, and shell completion through the real entry point."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from conftest import RunToolguard

from toolguard.version import __version__

# The console script pip wrote for `toolguard.cli:main`, beside the interpreter running the tests.
SCRIPT = Path(sys.executable).parent / "toolguard"


@pytest.mark.parametrize("flag", ["-V", "--version"])
def test_both_version_flags_print_the_version(run_toolguard: RunToolguard, flag: str) -> None:
    """`-V` and `--version` print the same line and exit 0."""
    run = run_toolguard(flag)
    assert run.status == 0
    assert run.stdout.decode().strip() == f"toolguard, version {__version__}"


@pytest.mark.skipif(not SCRIPT.exists(), reason="no console script beside the interpreter")
def test_bash_completion_script_comes_from_the_lazy_entry_point(
    run_toolguard: RunToolguard,
) -> None:
    """`_TOOLGUARD_COMPLETE=bash_source toolguard` prints click's bash completion function."""
    run = run_toolguard(command=["env", "_TOOLGUARD_COMPLETE=bash_source", str(SCRIPT)])
    assert run.status == 0
    assert b"_toolguard_completion()" in run.stdout


@pytest.mark.skipif(not SCRIPT.exists(), reason="no console script beside the interpreter")
@pytest.mark.parametrize(
    ("words", "expected"),
    [("toolguard ch", "plain,check"), ("toolguard check --context-f", "plain,--context-file")],
)
def test_completion_answers_commands_and_flags(
    run_toolguard: RunToolguard, words: str, expected: str
) -> None:
    """A completion request through `toolguard.cli:main` lists the matching command or flag."""
    cword = str(len(words.split()) - 1)
    run = run_toolguard(
        command=[
            "env",
            f"COMP_WORDS={words}",
            f"COMP_CWORD={cword}",
            "_TOOLGUARD_COMPLETE=bash_complete",
            str(SCRIPT),
        ]
    )
    assert run.status == 0
    assert run.stdout.decode().split() == [expected]
