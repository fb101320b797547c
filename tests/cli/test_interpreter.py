"""The command under an unusual interpreter: `-OO`, a dependency missing, `PYTHONINSPECT`."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
from conftest import RunToolguard

from toolguard.errors import DEPENDENCIES, broken_install

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
CONTEXT = ("--context", "change_id=CR-1042")

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

# `toolguard ARGS...` with the module named first hidden, as if it were not installed.
_WITHOUT = (
    "import sys; sys.modules[sys.argv.pop(1)] = None; "
    "from toolguard.launch import run; run(['toolguard', *sys.argv[1:]])"
)


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


@pytest.mark.parametrize(
    ("module", "argv"),
    [
        ("click", ("lint", REVIEW / "contract.toml")),
        ("click", ("validate", REVIEW / "response.schema.json", REVIEW / "response.json")),
        ("rich", ("lint", REVIEW / "contract.toml")),
        ("re2", ("lint", REPO / "examples")),
        ("fastjsonschema", ("check", REVIEW / "contract.toml", *CONTEXT)),
    ],
    ids=lambda value: value if isinstance(value, str) else value[0],
)
def test_a_missing_dependency_says_what_to_install(
    run_toolguard: RunToolguard, tmp_path: Path, module: str, argv: tuple[str | Path, ...]
) -> None:
    """Not an internal error with a trace: one line naming the package, exit 4."""
    done = run_toolguard(
        module,
        *argv,
        stdin=(REVIEW / "response.json").read_bytes(),
        command=[sys.executable, "-c", _WITHOUT],
        extra_env={"TOOLGUARD_CACHE_DIR": str(tmp_path / "cold")},  # the schema is compiled
    )
    assert done.status == 4
    assert done.stdout == b""
    wanted = f"toolguard: error: toolguard's dependency {DEPENDENCIES[module]} is not installed"
    assert done.stderr.decode() == f"{wanted} (pip install {DEPENDENCIES[module]})\n"


def test_a_missing_dependency_in_a_check_is_named_beside_its_envelope(
    run_toolguard: RunToolguard,
) -> None:
    """ijson is needed only for what the fast parser refuses: the agent gets its envelope."""
    done = run_toolguard(
        "ijson",
        "check",
        REVIEW / "contract.toml",
        *CONTEXT,
        stdin=b'{"a": 1, "a": 2}',
        command=[sys.executable, "-c", _WITHOUT],
    )
    assert done.status == 4
    assert done.envelope()["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}
    assert b"message: toolguard's dependency ijson is not installed" in done.stderr
    assert b"Traceback" not in done.stderr


def test_python_without_site_packages_says_what_to_install(run_toolguard: RunToolguard) -> None:
    """`python -S` finds toolguard (on PYTHONPATH) but none of its dependencies."""
    done = run_toolguard(
        "lint",
        REVIEW / "contract.toml",
        command=[sys.executable, "-S", "-m", "toolguard"],
        extra_env={"PYTHONPATH": str(REPO)},
    )
    assert done.status == 4
    assert b"toolguard's dependency click is not installed" in done.stderr


def test_a_check_without_site_packages_says_what_to_install(
    run_toolguard: RunToolguard, tmp_path: Path
) -> None:
    """`check` needs no click: fastjsonschema, found missing without an import, is named as
    any missing dependency is (exit 4), not blamed on the contract (exit 3)."""
    done = run_toolguard(
        "check",
        REVIEW / "contract.toml",
        *CONTEXT,
        stdin=(REVIEW / "response.json").read_bytes(),
        command=[sys.executable, "-S", "-m", "toolguard"],
        extra_env={"PYTHONPATH": str(REPO), "TOOLGUARD_CACHE_DIR": str(tmp_path / "cold")},
    )
    assert done.status == 4
    wanted = "toolguard's dependency fastjsonschema is not installed (pip install fastjsonschema)"
    assert done.stderr.decode() == f"toolguard: error: {wanted}\n"


def test_a_missing_module_of_toolguards_own_is_still_a_bug() -> None:
    """Only a runtime dependency is a broken install: anything else keeps its trace."""
    assert broken_install(ModuleNotFoundError("gone", name="toolguard.gone")) is None
    assert broken_install(ModuleNotFoundError("gone", name="pygments")) is None
    assert broken_install(ValueError("re2")) is None
    found = broken_install(ModuleNotFoundError("gone", name="re2"))
    assert found is not None
    assert "google-re2" in str(found)


@pytest.mark.parametrize(
    ("argv", "status"),
    [
        (("lint", "missing.toml"), 3),
        (("lint", REVIEW / "contract.toml"), 0),
        (("validate", REVIEW / "response.schema.json", REVIEW / "response.json"), 0),
        (("--help",), 0),
        (("check", REVIEW / "contract.toml", "--request-id", "req.inspect1", *CONTEXT), 0),
        (("check", REVIEW / "contract.toml"), 2),
    ],
    ids=lambda value: value if isinstance(value, int) else " ".join(map(str, value[:2])),
)
def test_pythoninspect_changes_no_status_and_prints_no_traceback(
    run_toolguard: RunToolguard, argv: tuple[str | Path, ...], status: int
) -> None:
    """Under PYTHONINSPECT every command ends as without it: same output, same status."""
    stdin = (REVIEW / "response.json").read_bytes()
    plain = run_toolguard(*argv, stdin=stdin)
    inspected = run_toolguard(*argv, stdin=stdin, extra_env={"PYTHONINSPECT": "1"})
    assert plain.status == inspected.status == status
    assert inspected.stdout == plain.stdout
    assert b"Traceback" not in inspected.stderr
    assert inspected.stderr.count(b"\n") == plain.stderr.count(b"\n")
