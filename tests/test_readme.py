"""The README is the front door: short, and its tables and commands are checked against the code."""

from __future__ import annotations

import re
from pathlib import Path

from toolguard.cli.app import cli
from toolguard.errors import ExitStatus

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_README_BYTES = 25_000


def _section(marker: str) -> str:
    match = re.search(f"<!-- {marker} -->\n(.*?)<!-- /{marker} -->", README, re.DOTALL)
    assert match, f"README has no <!-- {marker} --> block"
    return match.group(1)


def _quick_start_blocks() -> list[str]:
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)```", quick_start, re.DOTALL)


def test_readme_stays_a_front_door() -> None:
    """The README stays short: the references live in docs/."""
    assert len(README.encode("utf-8")) <= MAX_README_BYTES


def test_exit_status_table_lists_exactly_the_exit_statuses_in_the_code() -> None:
    """Each row of the exit-status table is an `ExitStatus`, in order, and none is missing."""
    rows = re.findall(r"^\| (\d+) \|", _section("exit-status"), re.MULTILINE)
    assert [int(row) for row in rows] == [int(status) for status in ExitStatus]


def test_exit_status_section_sends_every_other_command_to_its_page() -> None:
    """Beside `check` and `run`, whose statuses the table gives, every command is named as
    stating its own (a new command cannot be left out of the list)."""
    intro = README.split("## Exit status", 1)[1].split("<!-- exit-status -->", 1)[0]
    named = set(re.findall(r"`([a-z]+(?: [a-z]+)?)`", intro))
    commands = {
        f"{name} {sub}" if hasattr(command, "commands") else name
        for name, command in cli.commands.items()
        for sub in getattr(command, "commands", [""])
    }
    assert commands == named


def test_quick_start_holds_exactly_two_commands() -> None:
    """Quick start is two one-line commands: check an example, then run the tests."""
    blocks = _quick_start_blocks()
    assert len(blocks) == 2
    assert all(len(block.strip().splitlines()) == 1 for block in blocks)
    assert "toolguard check examples/" in blocks[0]
    assert "pytest" in blocks[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    """`.ci/run` runs the README's test command, character for character."""
    test_command = _quick_start_blocks()[1].strip()
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()
