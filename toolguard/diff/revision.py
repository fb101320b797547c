"""A contract as committed at a git revision, for `toolguard diff --against REV CONTRACT`.

git runs as a subprocess (`git.py`), with no shell and no network (a partial clone must not
fetch what it lacks). The contract and every file it names (`contract.referenced_files`: its
schema, its error documents' schemas, a `signed` rule's key set) are read from the commit with
`git ls-tree` and `git cat-file` and written into a private temporary folder that mirrors
the repository, so the contract's relative names resolve there as they did at REV. It is
loaded from there without the artefact cache, and errors name `REV:path`, not the folder.
A contract missing at REV is looked for where git sees it moved from, before it is called new.
"""

from __future__ import annotations

import dataclasses
import os
import posixpath
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from toolguard.contract import Contract, load_contract, read_contract_document, referenced_files
from toolguard.contract.find import contract_paths
from toolguard.diff import Change, ContractDiff, added, diff_contracts
from toolguard.diff.change import NONE
from toolguard.diff.git import GitFailed, git, git_bytes
from toolguard.diff.version import verdict
from toolguard.errors import ContractError, MissingExtra, UsageError
from toolguard.files import scratch_folder, write_atomic
from toolguard.schema.refs import SCHEMA_LIMITS

_MISSING_REVISION_HINT = (
    "this clone is shallow: fetch more history (git fetch --deepen=100, or fetch-depth: 0 "
    "with actions/checkout) or the branch itself, under the name you give (for origin/main: "
    "git fetch --depth=1 origin main:refs/remotes/origin/main)"
)


@dataclass(frozen=True, slots=True)
class Committed:
    """The contract at a revision: how to name it, and the loaded contract (None: not there)."""

    shown: str  # "HEAD:examples/job_run/contract.toml"
    contract: Contract | None
    moved: bool = False  # git sees the contract moved or renamed since: `shown` is where it was


def load_committed(path: Path, revision: str) -> Committed:
    """The contract at `path` as committed at `revision`, loaded; None if it did not exist.

    `UsageError` when git is missing, `path` is not in a work tree, or the revision is not in
    the clone; `ContractError` (naming `REV:path`) when the committed contract does not load.
    """
    if revision.startswith("-") or not revision:
        raise UsageError(f"--against {revision!r} is not a revision")
    folder = path.absolute().parent
    top = Path(git(folder, "rev-parse", "--show-toplevel", what="find the work tree").strip())
    commit = _commit(top, revision)
    try:
        relative = PurePosixPath(path.resolve().relative_to(top.resolve()).as_posix())
    except ValueError:
        raise UsageError(f"{path} is not inside the git work tree {top}") from None
    shown = f"{revision}:{relative}"
    if commit is None:
        return Committed(shown, None)
    raw = _blob(top, commit, relative, shown)
    moved = None if raw is not None else _moved_from(top, commit, relative, shown)
    if moved is not None:
        relative, shown = moved, f"{revision}:{moved}"
        raw = _blob(top, commit, relative, shown)
    if raw is None:
        return Committed(shown, None)
    with scratch_folder("toolguard-diff-") as root:
        extracted = _write(root, relative, raw)
        try:
            document = read_contract_document(extracted)
            for name in referenced_files(document):
                target = _inside(relative.parent, name, shown)
                content = _blob(top, commit, target, f"{revision}:{target}")
                if content is not None:
                    _write(root, target, content)
            return Committed(shown, load_contract(extracted, cache=False), moved is not None)
        except ContractError as exc:
            raise _renamed(exc, f"{root}{os.sep}", f"{revision}:") from None


def _renamed(exc: ContractError, folder: str, revision: str) -> ContractError:
    """The same error, its source named `REV:path` instead of the temporary folder's path."""
    source = exc.source.replace(folder, revision)
    if isinstance(exc, MissingExtra):
        return MissingExtra(exc.extra, exc.message, source=source, field=exc.field)
    return type(exc)(exc.message, source=source, field=exc.field)


def _commit(top: Path, revision: str) -> str | None:
    """The commit `revision` names, or a `UsageError` that says how to get it.

    None for `HEAD` on a branch with no commit yet (a new repository's first commit, as a
    pre-commit hook sees it): nothing was committed, so every contract is new.
    """
    try:
        return git(top, "rev-parse", "--verify", "--quiet", f"{revision}^{{commit}}").strip()
    except GitFailed:
        if revision == "HEAD" and _unborn(top):
            return None
        shallow = git(top, "rev-parse", "--is-shallow-repository", what="inspect the clone")
        hint = _MISSING_REVISION_HINT if shallow.strip() == "true" else "check its name"
        raise UsageError(f"--against {revision}: no such commit in this clone; {hint}") from None


def _unborn(top: Path) -> bool:
    """HEAD names a branch that does not exist yet (git's "unborn" branch): no commit at all.

    A branch whose ref names a missing object is not unborn: `rev-parse` without `^{commit}`
    still reads the ref, and that stays a usage error.
    """
    try:
        git(top, "symbolic-ref", "--quiet", "HEAD")
    except GitFailed:
        return False  # a detached HEAD names a commit, or nothing git can read
    try:
        git(top, "rev-parse", "--verify", "--quiet", "HEAD")
    except GitFailed:
        return True
    return False


def _blob(top: Path, commit: str, path: PurePosixPath, shown: str) -> bytes | None:
    """The bytes of the file at `path` in `commit`; None if there is no file there."""
    listing = git(top, "ls-tree", "-z", "-l", commit, "--", str(path), what=f"list {shown}")
    entry = listing.split("\0", 1)[0]
    if not entry:
        return None
    info, _, _ = entry.partition("\t")
    mode, kind, oid, size = info.split()
    if kind != "blob":
        return None
    if mode == "120000":
        raise UsageError(f"{shown} is a symbolic link: diff --against reads only regular files")
    if int(size) > SCHEMA_LIMITS.max_bytes:
        raise UsageError(f"{shown} is larger than {SCHEMA_LIMITS.max_bytes} bytes")
    return git_bytes(top, "cat-file", "blob", oid, what=f"read {shown}")


def _moved_from(top: Path, commit: str, path: PurePosixPath, shown: str) -> PurePosixPath | None:
    """Where `path` was at `commit`, if git sees it moved or renamed since; None if it is new.

    A contract moved to another folder (or renamed) is not a new contract: read as new, its
    changes would need no version bump. git pairs a deleted and an added file by content
    (`--find-renames`, as `git status` does) between the commit and the work tree, for the
    files git knows: a move committed, or staged (`git mv`, `git add`), as pre-commit sees it.
    Only the `.toml` files deleted since are candidates, so git reads no other file's content
    (a partial clone lacks them; a large change has many).
    """
    what = f"find where {shown} was"
    deleted = git(
        top, "diff", "-z", "--name-only", "--no-renames", "--diff-filter=D", commit, "--", what=what
    )
    sources = [name for name in deleted.split("\0") if name.endswith(".toml")]
    if not sources:
        return None
    listing = git(
        top,
        "diff",
        "-z",
        "--name-status",
        "--find-renames",
        "--diff-filter=R",
        "--no-ext-diff",
        "--no-textconv",
        commit,
        "--",
        str(path),
        *sources,
        what=what,
    )
    fields = listing.split("\0")
    # NOTE: with --diff-filter=R every entry is three fields: `R<score>`, old path, new path.
    for status, old, new in zip(fields[0::3], fields[1::3], fields[2::3], strict=False):
        if status.startswith("R") and new == str(path):
            return PurePosixPath(old)
    return None


def _inside(folder: PurePosixPath, name: str, shown: str) -> PurePosixPath:
    """`name` (relative to the contract's folder) as a path in the repository, never outside it."""
    joined = posixpath.normpath(posixpath.join(str(folder), name))
    if posixpath.isabs(name) or joined == ".." or joined.startswith("../"):
        raise UsageError(
            f"{shown} names {name!r}, outside the repository: diff --against reads only "
            "committed files"
        )
    return PurePosixPath(joined)


def _write(root: Path, relative: PurePosixPath, raw: bytes) -> Path:
    target = root.joinpath(*relative.parts)
    target.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    write_atomic(target, raw)
    return target


def diff_against(targets: Sequence[Path], revision: str) -> list[ContractDiff]:
    """Each contract (or every contract under a folder) against itself at `revision`."""
    results = []
    for path in contract_paths(targets):
        new = load_contract(path)
        old = load_committed(path, revision)
        if old.contract is None:
            results.append(added(new, revision))
            continue
        result = diff_contracts(old.contract, new)
        shown = dataclasses.replace(result.old, contract=Path(old.shown)) if result.old else None
        if old.moved:  # said first, for a reviewer: no bump of its own (NONE, no agent change)
            moved = Change("contract", "contract moved", f"from {old.shown}", NONE)
            changes = (moved, *result.changes)
            judged = verdict(old.contract.version, new.version, changes)
            result = dataclasses.replace(result, changes=changes, verdict=judged)
        results.append(dataclasses.replace(result, old=shown))
    return results
