"""`.pre-commit-hooks.yaml` under the real pre-commit: `pre-commit try-repo` in a throwaway repo.

pre-commit installs the hooks' environment from the hook repository (a copy of this checkout,
committed, so uncommitted work is tested too) with pip, as it does for a user: this needs
PyPI for click and the other dependencies, and takes 15 to 25 seconds. The other tests run
each hook's `entry` and `args` from a plain git hook, offline, under a real `git commit`.
"""

from __future__ import annotations

import os
import shlex
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


def _commit_with_the_hooks(work: Path, bin_dir: Path) -> subprocess.CompletedProcess[str]:
    """`git commit` in `work`, its pre-commit hook running every hook's `entry` and `args`.

    As pre-commit runs them: from the top of the work tree, with git's hook environment (which
    sets GIT_DIR in a linked worktree); `toolguard` is this checkout's, on PATH.
    """
    bin_dir.mkdir(exist_ok=True)
    shim = bin_dir / "toolguard"
    shim.write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} -m toolguard "$@"\n', "utf-8")
    shim.chmod(0o755)
    lines = ["#!/bin/sh", "status=0"]
    for hook in yaml.safe_load(HOOKS.read_text(encoding="utf-8")):
        lines.append(f"{hook['entry']} {shlex.join(hook['args'])} || status=1")
    lines.append("exit $status")
    hooks = Path(
        subprocess.run(
            ["git", "-C", str(work), "rev-parse", "--git-path", "hooks"],
            check=True,
            capture_output=True,
            text=True,
            env=_environment(),
        ).stdout.strip()
    )
    hooks = hooks if hooks.is_absolute() else work / hooks
    hooks.mkdir(parents=True, exist_ok=True)
    (hooks / "pre-commit").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (hooks / "pre-commit").chmod(0o755)
    identity = ("-c", "user.name=t", "-c", "user.email=t@example.invalid")
    return subprocess.run(
        ["git", "-C", str(work), *identity, "commit", "-q", "-m", "change"],
        capture_output=True,
        text=True,
        env={**_environment(), "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}"},
        timeout=120,
        check=False,
    )


def _new_repository_with_a_contract(tmp_path: Path) -> Path:
    """A git repository holding a scaffolded contract, staged and not committed."""
    work = tmp_path / "work"
    work.mkdir()
    git(work, "init", "-q")
    scaffold.write(scaffold.build("ticket_status"), work / "ticket_status")
    git(work, "add", "-A")
    return work


def test_the_first_commit_of_a_new_repository_passes_the_hooks(tmp_path: Path) -> None:
    """Before any commit, HEAD names nothing: every contract is new, and the commit is made."""
    work = _new_repository_with_a_contract(tmp_path)
    done = _commit_with_the_hooks(work, tmp_path / "bin")
    assert done.returncode == 0, done.stdout + done.stderr


def test_a_commit_in_a_linked_worktree_is_held_to_the_version_bump(tmp_path: Path) -> None:
    """`git worktree add`: a staged enum value dropped without a major bump fails the commit."""
    work = _new_repository_with_a_contract(tmp_path)
    git(work, "commit", "-q", "-m", "contract")
    linked = tmp_path / "linked"
    git(work, "worktree", "add", "-q", str(linked))
    schema = linked / "ticket_status" / "response.schema.json"
    text = schema.read_text(encoding="utf-8")
    schema.write_text(text.replace('"ok", "failed", "pending"', '"ok", "failed"'), "utf-8")
    git(linked, "add", "-A")
    done = _commit_with_the_hooks(linked, tmp_path / "bin")
    output = done.stdout + done.stderr
    assert done.returncode == 1, output
    assert 'enum value removed: "pending"' in output
    assert "version bump missing" in output
