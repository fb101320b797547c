"""Reports for pipes and terminals: nothing wrapped on a pipe, one `--format` vocabulary, and a
progress bar on a terminal only."""

from __future__ import annotations

import json
import os
import pty
import select
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, RunToolguard

from toolguard.cli.app import cli

REVIEW = REPO / "examples" / "review_status"
LONG_RULE = "ticket_matches_request" + "_x" * 21  # the longest name a rule may have: 64


@pytest.fixture
def long_names(tmp_path: Path) -> Path:
    """review_status with a rule name and a fixture name far wider than 80 columns."""
    folder = tmp_path / "review_status"
    shutil.copytree(REVIEW, folder)
    contract = folder / "contract.toml"
    contract.write_text(contract.read_text().replace("change_matches_request", LONG_RULE))
    reject = folder / "fixtures" / "reject"
    for old in reject.glob("wrong_change_id_for_context.*"):
        old.rename(reject / old.name.replace("wrong_change_id", "wrong_change_id" + "_y" * 40))
    for expectation in reject.glob("*.expect.toml"):
        text = expectation.read_text().replace("change_matches_request", LONG_RULE)
        expectation.write_text(text)
    return folder


def test_a_piped_test_report_keeps_every_row_on_one_line(
    run_toolguard: RunToolguard, long_names: Path
) -> None:
    """`toolguard test | cat`: each fixture's row is whole on one line, the rule name uncut."""
    run = run_toolguard("test", long_names / "contract.toml")
    assert run.status == 0, run.stdout.decode()
    rows = [line for line in run.stdout.decode().splitlines() if line.startswith("pass ")]
    assert rows
    assert all(line.rstrip().endswith("ok") for line in rows)
    assert any(LONG_RULE in line for line in rows)


def test_a_piped_explain_keeps_a_long_message_on_one_line(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`explain | cat`: a rejection message far wider than 80 columns stays on its line."""
    log = tmp_path / "audit.log"
    rejected = run_toolguard(
        "check",
        REVIEW / "contract.toml",
        "--context",
        "change_id=CR-" + "9" * 120,
        "--request-id",
        "req.output.0001",
        "--audit-log",
        log,
        stdin=(REVIEW / "response.json").read_bytes(),
    )
    assert rejected.status == 1
    run = run_toolguard("explain", "req.output.0001", "--audit-log", log)
    assert run.status == 0, run.stderr
    lines = run.stdout.decode().splitlines()
    (message,) = [line for line in lines if line.lstrip().startswith("message ")]
    assert "CR-" + "9" * 120 + "' (rule change_matches_request" in message
    assert all(line == line.rstrip() for line in lines)


@pytest.mark.parametrize(
    "command",
    [
        ["validate"],
        ["test"],
        ["lint"],
        ["diff"],
        ["explain"],
        ["audit", "summary"],
        ["audit", "prune"],
    ],
)
def test_every_report_takes_text_and_the_old_rich_spelling_quietly(command: list[str]) -> None:
    """`--format` shows `text|json` (lint adds sarif); `rich`, the old spelling, still parses."""
    help_text = CliRunner().invoke(cli, [*command, "--help"]).output
    assert "--format [text|json" in help_text
    assert "rich" not in help_text


def test_the_old_rich_spelling_means_text(run_toolguard: RunToolguard) -> None:
    """`--format rich` prints what `--format text` prints."""
    target = REVIEW / "contract.toml"
    assert run_toolguard("lint", "--format", "rich", target).stdout == (
        run_toolguard("lint", "--format", "text", target).stdout
    )


def _stderr_on_a_terminal(arguments: list[str], tmp_path: Path) -> tuple[int, bytes]:
    """Run the CLI with stderr on a pseudo-terminal; its exit status and what stderr showed."""
    master, slave = pty.openpty()
    env = {**os.environ, "TERM": "xterm", "COLUMNS": "100"}
    env.pop("NO_COLOR", None)
    child = subprocess.Popen(
        [sys.executable, "-m", "toolguard", *arguments],
        stdout=subprocess.PIPE,
        stderr=slave,
        stdin=subprocess.DEVNULL,
        env=env,
        cwd=tmp_path,
    )
    os.close(slave)
    child.communicate(timeout=60)
    shown = b""
    while select.select([master], [], [], 0.5)[0]:
        try:
            chunk = os.read(master, 1 << 16)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        shown += chunk
    os.close(master)
    return child.returncode, shown


def test_audit_summary_shows_progress_on_a_terminal_and_nothing_on_a_pipe(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """Reading a log, a progress bar is drawn on a terminal's stderr; a piped stderr stays empty."""
    log = tmp_path / "audit.log"
    checked = run_toolguard(
        "check",
        REVIEW / "contract.toml",
        "--context",
        "change_id=CR-1042",
        "--audit-log",
        log,
        stdin=(REVIEW / "response.json").read_bytes(),
    )
    assert checked.status == 0
    status, shown = _stderr_on_a_terminal(["audit", "summary", str(log)], tmp_path)
    assert status == 0
    assert b"audit summary" in shown
    piped = run_toolguard("audit", "summary", log)
    assert piped.status == 0
    assert piped.stderr == b""
    assert (
        json.loads(run_toolguard("audit", "summary", "--format", "json", log).stdout)["records"]
        == 1
    )


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_a_report_on_a_stdout_that_cannot_encode_a_character_escapes_it(
    run_toolguard: RunToolguard, tmp_path: Path, encoding: str
) -> None:
    """A name stdout's encoding cannot spell is written escaped: never exit 4, never cut short."""
    schema = tmp_path / "true.json"
    schema.write_text("true")
    instance = tmp_path / "r\u00e9sum\u00e9-\u20ac.json"
    instance.write_text("{}")
    run = run_toolguard(
        "validate", schema, instance, instance, extra_env={"PYTHONIOENCODING": encoding}
    )
    assert (run.status, run.stderr) == (0, b"")
    line = run.stdout.decode(encoding).splitlines()
    assert len(line) == 2
    assert line[0].endswith("-\\u20ac.json: valid")
