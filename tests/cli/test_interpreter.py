"""The command under an unusual interpreter: `-OO`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from conftest import RunToolguard

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"

# Every command's `--help`, by its words (the group's own under ""), found by walking the group.
_HELPS = """
import contextlib, io, json, sys
import click
from toolguard.cli.app import cli

def commands(group, words):
    yield words
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            yield from commands(command, (*words, name))
        else:
            yield (*words, name)

helps = {}
for words in commands(cli, ()):
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        cli.main(args=[*words, "--help"], prog_name="toolguard", standalone_mode=False)
    helps[" ".join(words)] = printed.getvalue()
sys.stdout.write(json.dumps(helps))
"""


def test_help_is_the_same_when_python_strips_docstrings(run_toolguard: RunToolguard) -> None:
    """`python -OO` drops docstrings; every command's `--help` still has its description."""
    normal, stripped = (
        run_toolguard(command=[sys.executable, *flags, "-c", _HELPS], extra_env={"COLUMNS": "80"})
        for flags in ((), ("-OO",))
    )
    assert normal.status == stripped.status == 0, stripped.stderr
    helps = json.loads(normal.stdout)
    assert len(helps) > 12
    assert "Make tool output earn its way into an agent's context." in helps[""]
    assert "Lint contracts (.toml) and schema files" in helps["lint"]
    assert json.loads(stripped.stdout) == helps


def test_sarif_rule_descriptions_are_the_same_when_python_strips_docstrings(
    run_toolguard: RunToolguard,
) -> None:
    """`lint --format sarif` under `-OO` lists each rule's short and full description."""
    argv = ("lint", "--format", "sarif", REVIEW / "contract.toml")
    normal = run_toolguard(*argv)
    stripped = run_toolguard(*argv, command=[sys.executable, "-OO", "-m", "toolguard"])
    assert normal.status == stripped.status == 0, stripped.stderr
    assert stripped.stdout == normal.stdout
    rules = json.loads(normal.stdout)["runs"][0]["tool"]["driver"]["rules"]
    for rule in rules:
        short = rule["shortDescription"]["text"]
        assert short.endswith(".")
        assert len(rule["fullDescription"]["text"]) > len(short)
