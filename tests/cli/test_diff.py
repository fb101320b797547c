"""`toolguard diff` end to end: exit 0/1/3, the table, the JSON document, errors on stderr."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from conftest import RunToolguard

CASES = Path(__file__).resolve().parents[1] / "data" / "diff"


def _pair(case: str) -> tuple[Path, Path]:
    return CASES / case / "old" / "contract.toml", CASES / case / "new" / "contract.toml"


def test_json_output_is_one_document_with_versions_changes_and_verdict(
    run_toolguard: RunToolguard,
) -> None:
    """A breaking change with a major bump: exit 0 and one JSON object on stdout, nothing else."""
    run = run_toolguard("diff", "--format", "json", *_pair("enum_tightened"))
    assert run.status == 0
    assert run.stderr == b""
    document = run.envelope()
    assert document["old"]["version"] == "1.0.0"
    assert document["new"]["version"] == "2.0.0"
    assert document["changes"] == [
        {
            "where": "/properties/decision/enum",
            "what": "enum value removed",
            "detail": '"pending"',
            "upstream": "accepts-less",
            "agent": "data-shape-changed",
            "breaking": True,
        }
    ]
    assert document["verdict"] == {
        "ok": True,
        "required_bump": "major",
        "message": "1 breaking change; 1.0.0 -> 2.0.0 is a major version bump",
    }


def test_missing_version_bump_exits_1_with_the_table(run_toolguard: RunToolguard) -> None:
    """A required member added under the same version: exit 1, the row and the reason shown."""
    run = run_toolguard("diff", *_pair("required_added"))
    assert run.status == 1
    text = run.stdout.decode()
    assert "\x1b" not in text  # piped: no colour
    header, *rows = text.splitlines()
    assert header == "review_status 1.0.0 -> 1.0.0: 1 change (1 breaking, 0 agent-facing)"
    assert rows[0].split() == ["where", "change", "upstream", "agent", "breaking"]
    row = ["/required", "required", "added:", '"comment"', "accepts-less", "none", "yes"]
    assert rows[2].split() == row
    assert rows[-1].startswith("version bump missing: 1 breaking change but the version is")


def test_agent_facing_change_without_a_minor_bump_exits_1_in_json(
    run_toolguard: RunToolguard,
) -> None:
    """maxLength raised on a projected field is not breaking, but 1.0.1 is not a minor bump."""
    run = run_toolguard("diff", "--format", "json", *_pair("max_length_raised"))
    assert run.status == 1
    document = run.envelope()
    assert [
        (item["upstream"], item["agent"], item["breaking"]) for item in document["changes"]
    ] == [("accepts-more", "data-shape-changed", False)]
    assert document["verdict"]["required_bump"] == "minor"
    assert document["verdict"]["ok"] is False


def test_identical_contracts_exit_0(run_toolguard: RunToolguard) -> None:
    """No change: exit 0 and a verdict saying so."""
    run = run_toolguard("diff", *_pair("identical"))
    assert run.status == 0
    assert run.stdout.decode().splitlines() == [
        "review_status 1.0.0 -> 1.0.0: 0 changes",
        "ok: no changes",
    ]


def test_unloadable_contract_exits_3_with_nothing_on_stdout(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """A contract that cannot be loaded: exit 3, the reason on stderr (JSON with --format json)."""
    old, _ = _pair("identical")
    run = run_toolguard("diff", "--format", "json", old, tmp_path / "missing.toml")
    assert run.status == 3
    assert run.stdout == b""
    record = run.diagnostics()
    assert record["exit_status"] == 3
    assert "missing.toml" in record["message"]
    bad = tmp_path / "contract.toml"
    bad.write_text('tool = "x"\n', encoding="utf-8")
    run = run_toolguard("diff", bad, old)
    assert run.status == 3
    assert run.stdout == b""
    assert run.stderr.startswith(b"toolguard: error: ")


def _repository(root: Path) -> Path:
    """A throwaway git repository holding two contracts from tests/data/diff, committed."""
    for case in ("enum_tightened", "identical"):
        shutil.copytree(CASES / case / "old", root / case)
    git = ["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    for args in (("init", "-q"), ("add", "-A"), ("commit", "-q", "-m", "contracts")):
        subprocess.run([*git, *args], check=True, capture_output=True)
    return root


def test_against_a_revision_compares_every_contract_under_a_folder(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """--against HEAD DIR: one JSON line per contract, exit 1 when one needs a bump."""
    root = _repository(tmp_path / "repo")
    shutil.copy(CASES / "enum_tightened" / "new" / "response.schema.json", root / "enum_tightened")
    run = run_toolguard("diff", "--against", "HEAD", "--format", "json", ".", cwd=root)
    assert run.status == 1, run.stderr
    assert run.stderr == b""
    first, second = (json.loads(line) for line in run.stdout.splitlines())
    assert first["old"]["contract"] == "HEAD:enum_tightened/contract.toml"
    assert first["new"]["contract"] == "enum_tightened/contract.toml"
    assert first["verdict"]["ok"] is False
    assert second["changes"] == []
    assert second["verdict"]["ok"] is True


def test_against_a_revision_titles_each_table_with_its_contract(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """In text, each contract's table is headed by its path; a new contract says it is new."""
    root = _repository(tmp_path / "repo")
    shutil.copytree(CASES / "identical" / "new", root / "added")
    run = run_toolguard("diff", "--against", "HEAD", "added", "identical", cwd=root)
    assert run.status == 0, run.stderr
    lines = run.stdout.decode().splitlines()
    assert lines[:2] == [
        "added/contract.toml",
        "review_status new at 1.0.0: 5 changes (0 breaking, 4 agent-facing)",
    ]
    assert "ok: new contract (not in HEAD): 1.0.0 needs no bump" in lines
    assert lines[-3:] == [
        "identical/contract.toml",
        "review_status 1.0.0 -> 1.0.0: 0 changes",
        "ok: no changes",
    ]


def test_against_without_git_is_a_usage_error(run_toolguard: RunToolguard, tmp_path: Path) -> None:
    """No git on PATH: exit 2 and a message that says so and what to do instead."""
    root = _repository(tmp_path / "repo")
    empty = tmp_path / "bin"
    empty.mkdir()
    run = run_toolguard(
        "diff", "--against", "HEAD", "identical", cwd=root, extra_env={"PATH": str(empty)}
    )
    assert (run.status, run.stdout) == (2, b"")
    assert b"git is not installed (or not on PATH)" in run.stderr


def test_two_files_are_needed_without_against(run_toolguard: RunToolguard) -> None:
    """One contract without --against, or three: exit 2, saying which forms exist."""
    old, new = _pair("identical")
    for args in ((old,), (old, new, old)):
        run = run_toolguard("diff", *args)
        assert (run.status, run.stdout) == (2, b"")
        assert b"diff takes OLD_CONTRACT NEW_CONTRACT, or --against REV" in run.stderr
