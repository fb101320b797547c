"""`toolguard lint` end to end: exit 0 clean, 1 findings, 2 usage, 3 refused; three formats."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import REPO, RunToolguard

from toolguard.lint import lint_paths
from toolguard.lint.sarif import sarif_log

EXAMPLES = sorted(str(path.relative_to(REPO)) for path in REPO.glob("examples/*/contract*.toml"))
OPEN_REF = "tests/data/lint/TG001/fail/ref_to_open_defs_entry.schema.json"
WAIVED = "tests/data/lint/TG005/pass/free_form_map_outside_projection.toml"


def test_examples_are_clean_exit_0(run_toolguard: RunToolguard) -> None:
    """The bundled example contracts lint clean: exit 0, notices only, nothing on stderr.

    The notices: `df`'s filesystem and mount paths (a path may hold spaces: `^/` lets a
    sentence through) and a reviewer's name.
    """
    run = run_toolguard("lint", *EXAMPLES)
    assert run.status == 0, run.stdout.decode()
    lines = run.stdout.decode().splitlines()
    assert lines[-1] == "toolguard lint: no findings, 5 notices in 15 files"
    assert [line.split()[1:3] for line in lines[:-1:2]] == [["notice", "TG019"]] * 5
    assert run.stderr == b""


def test_a_folder_lints_every_contract_under_it(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`lint examples/` is `lint examples/*/contract*.toml`; a folder without one is exit 2."""
    by_folder = run_toolguard("lint", "--format", "json", "examples/")
    by_file = run_toolguard("lint", "--format", "json", *EXAMPLES)
    assert by_folder.status == by_file.status == 0
    assert sorted(by_folder.envelope()["files"]) == sorted(by_file.envelope()["files"])
    nothing = run_toolguard("lint", tmp_path)
    assert (nothing.status, nothing.stdout) == (2, b"")
    assert b"no contract.toml (or contract.NAME.toml) under" in nothing.stderr


def test_notices_alone_exit_0(run_toolguard: RunToolguard) -> None:
    """A notice is printed as a finding is, and the run still exits 0 in every format."""
    path = "tests/data/lint/TG019/fail/free_text_projected.toml"
    for output in ("text", "json", "sarif"):
        run = run_toolguard("lint", "--format", output, path)
        assert run.status == 0, run.stdout.decode()
        assert b"TG019" in run.stdout


def test_findings_exit_1_with_file_line_rule_and_pointer(run_toolguard: RunToolguard) -> None:
    """A finding prints file:line, severity, rule id and name, pointer, then its message."""
    run = run_toolguard("lint", OPEN_REF, WAIVED)
    assert run.status == 1
    lines = run.stdout.decode().splitlines()
    assert lines[0] == f"{OPEN_REF}:6: error TG001 open-object at /properties/item"
    assert "$ref target /$defs/item is open" in lines[1]
    assert "waived TG001 open-object at /properties/metadata/additionalProperties" in lines[2]
    assert lines[3].strip().startswith("reason: provider metadata")
    assert lines[-1] == "toolguard lint: 1 finding, 1 waived in 3 files"


def test_json_format_is_one_line(run_toolguard: RunToolguard) -> None:
    """--format json prints one JSON line with the findings, located."""
    run = run_toolguard("lint", "--format", "json", OPEN_REF)
    assert run.status == 1
    (line,) = run.stdout.splitlines()
    (finding,) = json.loads(line)["findings"]
    assert finding["rule"] == "TG001"
    where = (finding["file"], finding["line"], finding["pointer"])
    assert where == (OPEN_REF, 6, "/properties/item")


def test_sarif_format_is_the_sarif_log(
    run_toolguard: RunToolguard, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--format sarif prints the SARIF 2.1.0 log of the same report (validated in test_lint)."""
    run = run_toolguard("lint", "--format", "sarif", OPEN_REF, WAIVED)
    assert run.status == 1
    log = json.loads(run.stdout)
    assert log["version"] == "2.1.0"
    monkeypatch.chdir(REPO)  # the same relative paths, so the same artifact URIs
    assert log == json.loads(json.dumps(sarif_log(lint_paths([OPEN_REF, WAIVED]))))


def test_hostile_member_names_are_escaped(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """A member name with an ANSI escape reaches the terminal escaped, never raw."""
    schema = {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "properties": {"\u001b[31mred\u202e": {"type": "string"}},
        "additionalProperties": False,
    }
    path = tmp_path / "hostile.schema.json"
    path.write_text(json.dumps(schema), encoding="utf-8")
    run = run_toolguard("lint", path)
    assert run.status == 1
    assert b"\x1b" not in run.stdout
    assert b"\\x1b[31mred\\u202e" in run.stdout


def test_refused_schema_or_contract_exits_3(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """A schema toolguard refuses, or a missing contract, is exit 3 with nothing on stdout."""
    typo = tmp_path / "typo.schema.json"
    typo.write_text('{"type": "string", "maxLenght": 3}', encoding="utf-8")
    for target in (typo, tmp_path / "absent.toml"):
        run = run_toolguard("lint", target)
        assert run.status == 3
        assert run.stdout == b""
        assert str(target).encode() in run.stderr


def test_json_format_reports_a_refusal_as_json_on_stderr(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """With --format json, exits 3 and 2 say why in JSON records on stderr, as test and diff do."""
    bad = tmp_path / "contract.toml"
    bad.write_text('tool = "x"\n', encoding="utf-8")
    run = run_toolguard("lint", "--format", "json", OPEN_REF, bad)
    assert (run.status, run.stdout) == (3, b"")
    records = [json.loads(line) for line in run.stderr.splitlines()]
    assert records
    assert {record["exit_status"] for record in records} == {3}
    assert all(str(bad) in record["message"] for record in records)
    empty = tmp_path / "empty"
    empty.mkdir()
    run = run_toolguard("lint", "--format", "json", empty)
    assert (run.status, run.stdout) == (2, b"")
    assert run.diagnostics()["exit_status"] == 2
    for output in ("text", "sarif"):  # the other formats keep the line a person reads
        run = run_toolguard("lint", "--format", output, bad)
        assert run.status == 3
        assert run.stderr.startswith(b"toolguard: error: ")


def test_usage_errors_exit_2(run_toolguard: RunToolguard) -> None:
    """No target, or an unknown --format, is a usage error."""
    assert run_toolguard("lint").status == 2
    assert run_toolguard("lint", "--format", "xml", OPEN_REF).status == 2
