"""`.pre-commit-hooks.yaml` under the real pre-commit: `pre-commit try-repo` in a throwaway repo.

pre-commit installs the hooks' environment from the hook repository (a copy of this checkout,
committed, so uncommitted work is tested too) with pip, as it does for a user: this needs
PyPI for click and the other dependencies, and takes 15 to 25 seconds.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import yaml  # pre-commit's own dependency: its hooks files are YAML

from toolguard import scaffold

REPO = Path(__file__).resolve().parents[1]
HOOKS = REPO / ".pre-commit-hooks.yaml"
SHIPPED = ("pyproject.toml", "README.md", "LICENSE", "bin", "toolguard", "schemas", HOOKS.name)


def git(folder: Path, *args: str) -> None:
    identity = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")
    subprocess.run(
        ["git", "-C", str(folder), *identity, *args],
        check=True,
        capture_output=True,
        env=_environment(),
    )


def _environment() -> dict[str, str]:
    """This environment without git's own variables (a hook running these tests sets some)."""
    return {key: value for key, value in os.environ.items() if not key.startswith("GIT_")}


def _hook_repository(folder: Path) -> Path:
    folder.mkdir()
    for name in SHIPPED:
        source = REPO / name
        if source.is_dir():
            shutil.copytree(source, folder / name, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(source, folder / name)
    git(folder, "init", "-q")
    git(folder, "add", "-A")
    git(folder, "commit", "-q", "-m", "toolguard")
    return folder


def test_the_hooks_file_declares_lint_test_and_diff() -> None:
    """Three hooks, each run once over the repository when a contract's files change."""
    hooks = {hook["id"]: hook for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8"))}
    assert set(hooks) == {"toolguard-lint", "toolguard-test", "toolguard-diff"}
    for hook in hooks.values():
        assert hook["language"] == "python"
        assert hook["pass_filenames"] is False
        assert hook["args"] == ["."]
    assert hooks["toolguard-diff"]["entry"] == "toolguard diff --against HEAD"


def test_the_hooks_run_under_pre_commit_try_repo(tmp_path: Path) -> None:
    """A staged schema change: lint and test pass, diff fails for the missing version bump."""
    hook = _hook_repository(tmp_path / "hook")
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    scaffold.write(scaffold.build("ticket_status"), work / "ticket_status")
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "contract")
    schema = work / "ticket_status" / "response.schema.json"
    text = schema.read_text(encoding="utf-8")
    schema.write_text(text.replace('"ok", "failed", "pending"', '"ok", "failed"'), "utf-8")
    git(work, "add", "-A")
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(hook)],
        cwd=work,
        capture_output=True,
        text=True,
        env={**_environment(), "PRE_COMMIT_HOME": str(tmp_path / "cache")},
        timeout=300,
        check=False,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    results = {
        line.rsplit(".", 1)[0].rstrip("."): line.rsplit(".", 1)[1]
        for line in output.splitlines()
        if line.startswith("toolguard ") and line.endswith(("Passed", "Failed"))
    }
    assert results == {
        "toolguard lint": "Passed",
        "toolguard test": "Passed",
        "toolguard diff --against HEAD": "Failed",
    }, output
    assert 'enum value removed: "pending"' in output
    assert "version bump missing" in output
