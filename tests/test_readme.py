"""The README documents the real command: its tables and help text are checked against the code."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from toolguard.cli.app import cli as main
from toolguard.errors import ExitStatus
from toolguard.schema.vocabulary import ANNOTATIONS

README = (Path(__file__).resolve().parent.parent / "README.md").read_text(encoding="utf-8")


def _section(marker: str) -> str:
    match = re.search(f"<!-- {marker} -->\n(.*?)<!-- /{marker} -->", README, re.DOTALL)
    assert match, f"README has no <!-- {marker} --> block"
    return match.group(1)


def test_exit_status_table_lists_exactly_the_exit_statuses_in_the_code() -> None:
    rows = re.findall(r"^\| (\d+) \|", _section("exit-status"), re.MULTILINE)
    assert [int(row) for row in rows] == [int(status) for status in ExitStatus]


@pytest.mark.parametrize(
    "command", ["check", "run", "serve", "test", "lint", "diff", "explain", "audit summary"]
)
def test_help_in_readme_matches_the_real_help(command: str) -> None:
    result = CliRunner(env={"COLUMNS": "80"}).invoke(
        main, [*command.split(), "--help"], prog_name="toolguard"
    )
    assert result.exit_code == 0
    block = (
        _section(f"{command.replace(' ', '-')}-help")
        .strip()
        .removeprefix("```")
        .removesuffix("```")
    )
    assert block.strip("\n") == result.output.rstrip("\n")


def test_quick_start_holds_exactly_two_commands() -> None:
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```sh\n(.*?)```", quick_start, re.DOTALL)
    assert len(blocks) == 2
    assert all(len(block.strip().splitlines()) == 1 for block in blocks)
    assert "toolguard check examples/" in blocks[0]
    assert "pytest" in blocks[1]


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    quick_start = README.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    test_command = re.findall(r"```sh\n(.*?)```", quick_start, re.DOTALL)[1].strip()
    ci = (Path(__file__).resolve().parent.parent / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_annotation_keywords_listed_in_the_readme_are_exactly_the_allowed_ones() -> None:
    paragraph = README.split("Keywords that only annotate are allowed", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"`([$\w]+)`", paragraph)) - {"format"}
    assert listed == set(ANNOTATIONS)
