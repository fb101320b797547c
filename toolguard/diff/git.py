"""Run git to read a repository, for `diff --against`: no shell, no network, no lock taken.

`git -C FOLDER ARGS` with git's own variables naming a repository left out (a hook's
`GIT_DIR` must not pick the work tree) and toolguard's never passed on. A failure is a
`UsageError` in git's words (its reason, not its warnings) with what to do when that is
known, or `GitFailed` for the caller to explain.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping
from pathlib import Path

from toolguard.errors import UsageError
from toolguard.run.environment import without_toolguard
from toolguard.run.program import RelativeMatch, locate

GIT_TIMEOUT_SECONDS = 60
# NOTE: git's "local" variables (`git rev-parse --local-env-vars`) name one repository: the
# one a git command that runs a hook is working on. `git commit` in a linked worktree sets
# GIT_DIR for its hooks, and git then takes the contract's folder (`-C`) as the top of the work
# tree, so every contract read "new": git must find the repository from the contract's folder.
_REPOSITORY_VARIABLES = frozenset(
    {
        "GIT_ALTERNATE_OBJECT_DIRECTORIES",
        "GIT_CONFIG",
        "GIT_CONFIG_PARAMETERS",
        "GIT_CONFIG_COUNT",
        "GIT_OBJECT_DIRECTORY",
        "GIT_DIR",
        "GIT_WORK_TREE",
        "GIT_IMPLICIT_WORK_TREE",
        "GIT_GRAFT_FILE",
        "GIT_INDEX_FILE",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_REPLACE_REF_BASE",
        "GIT_PREFIX",
        "GIT_INTERNAL_SUPER_PREFIX",
        "GIT_SHALLOW_FILE",
        "GIT_COMMON_DIR",
    }
)
_ENVIRONMENT = {
    "GIT_NO_LAZY_FETCH": "1",  # a partial clone reports a missing blob instead of fetching it
    "GIT_TERMINAL_PROMPT": "0",
    "GIT_OPTIONAL_LOCKS": "0",  # reading never takes the index lock a commit in progress holds
    "GIT_LITERAL_PATHSPECS": "1",  # a schema named `[A].json` is that name, never a pattern
}
# NOTE: `git diff --stat REV` fetches exactly the files that differ from REV, whose content
# toolguard reads (files REV shares with the work tree are there already).
_PARTIAL_CLONE_HINT = (
    "this clone is partial (cloned with --filter) and toolguard never fetches: let git fetch "
    "what differs from the revision first (git diff --stat REV), or clone without --filter"
)


class GitFailed(Exception):
    """git ran and exited non-zero (its message is on `stderr`)."""

    def __init__(self, stderr: str) -> None:
        super().__init__(stderr)
        self.stderr = stderr


def _inherited(environ: Mapping[str, str]) -> dict[str, str]:
    """`environ` less toolguard's own variables and git's variables naming a repository."""
    return {
        name: value
        for name, value in without_toolguard(environ).items()
        if name not in _REPOSITORY_VARIABLES
    }


def git(folder: Path, *args: str, what: str = "") -> str:
    """`git_bytes`, its output decoded as the file system names paths."""
    return os.fsdecode(git_bytes(folder, *args, what=what))


def git_bytes(folder: Path, *args: str, what: str = "") -> bytes:
    """Run `git -C folder ARGS` and return its stdout; `what` names the step in a usage error.

    Without `what`, a non-zero exit raises `GitFailed` for the caller to explain.
    """
    command = ["git", "-C", str(folder), "-c", "protocol.allow=never", *args]
    environment = {**_inherited(os.environ), **_ENVIRONMENT}
    try:
        done = subprocess.run(  # noqa: S603 - a fixed argv, no shell
            command,
            executable=locate("git", environment),
            capture_output=True,
            env=environment,
            timeout=GIT_TIMEOUT_SECONDS,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except FileNotFoundError:
        raise UsageError(
            "git is not installed (or not on PATH): diff --against needs it; "
            "compare two files instead (toolguard diff OLD_CONTRACT NEW_CONTRACT)"
        ) from None
    except RelativeMatch as exc:  # a `git` in the working folder, through PATH's `.`
        raise UsageError(f"diff --against: {exc.strerror}") from None
    except OSError as exc:  # a `git` without execute permission, no process left (EAGAIN)
        why = exc.strerror or str(exc)
        raise UsageError(f"diff --against: cannot run git: {why}") from None
    except subprocess.TimeoutExpired:
        raise UsageError(f"git did not answer within {GIT_TIMEOUT_SECONDS} s") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip()
        if not what:
            raise GitFailed(message)
        raise UsageError(f"diff --against: cannot {what}: {_why(message, done.returncode)}")
    return done.stdout


def _why(message: str, status: int) -> str:
    """The reason git gives (its first line that is not a warning), and what to do, if known."""
    lines = [line for line in message.splitlines() if not line.startswith("warning: ")]
    why = lines[0].removeprefix("fatal: ") if lines else f"exit status {status}"
    return f"{why}; {_PARTIAL_CLONE_HINT}" if "promisor remote" in message else why
