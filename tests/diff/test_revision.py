"""`diff --against REV`: the old contract (and every file it names) read from a git commit.

Each test builds a throwaway repository with real git, commits, edits the work tree, then
compares; nothing here touches the project's own repository.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from toolguard.diff.revision import diff_against, load_committed
from toolguard.errors import ContractError, UsageError

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(repo), "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        capture_output=True,
        check=True,
        text=True,
    )
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository with review_status and review_status_signed committed (no fixtures)."""
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    for name in ("review_status", "review_status_signed"):
        shutil.copytree(
            EXAMPLES / name, root / "tools" / name, ignore=shutil.ignore_patterns("fixtures")
        )
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "contracts")
    return root


def edit_json(path: Path, change: object) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)  # type: ignore[operator]
    path.write_text(json.dumps(document), encoding="utf-8")


def test_an_unchanged_contract_has_no_changes(repo: Path) -> None:
    """The committed contract equals the work tree's: no changes, the verdict is ok."""
    [result] = diff_against([repo / "tools" / "review_status" / "contract.toml"], "HEAD")
    assert result.changes == ()
    assert result.verdict.ok
    assert result.old is not None
    assert str(result.old.contract) == "HEAD:tools/review_status/contract.toml"


def test_a_schema_edit_is_compared_with_the_committed_schema(repo: Path) -> None:
    """An enum value removed in the work tree's schema is breaking against HEAD."""
    schema = repo / "tools" / "review_status" / "response.schema.json"
    edit_json(schema, lambda d: d["properties"]["decision"]["enum"].remove("pending"))
    [result] = diff_against([schema.with_name("contract.toml")], "HEAD")
    assert [(c.where, c.what, c.breaking) for c in result.changes] == [
        ("/properties/decision/enum", "enum value removed", True)
    ]
    assert not result.verdict.ok


def test_a_renamed_schema_is_read_under_its_old_name(repo: Path) -> None:
    """The old contract names the old file, read from the commit though gone from the tree."""
    folder = repo / "tools" / "review_status"
    git(repo, "mv", "tools/review_status/response.schema.json", "tools/review_status/v2.json")
    contract = folder / "contract.toml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("response.schema.json", "v2.json"),
        encoding="utf-8",
    )
    [result] = diff_against([contract], "HEAD")
    assert result.changes == ()


def test_a_key_set_is_read_from_the_revision(repo: Path) -> None:
    """A key removed from the signed rule's key set is a change against the committed set."""
    keys = repo / "tools" / "review_status_signed" / "review-service.jwks.json"
    edit_json(keys, lambda d: d["keys"].pop())
    [result] = diff_against([keys.with_name("contract.toml")], "HEAD")
    assert [change.where for change in result.changes] == ["rules.approval_is_signed"]
    assert result.breaking == 1


def test_any_folder_of_the_work_tree_will_do(repo: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """From a subfolder, a relative contract path and a folder target both work."""
    monkeypatch.chdir(repo / "tools" / "review_status")
    [result] = diff_against([Path("contract.toml")], "HEAD")
    assert result.changes == ()
    monkeypatch.chdir(repo / "tools")
    results = diff_against([Path()], "HEAD")
    assert [str(result.new.contract) for result in results] == [
        "review_status/contract.toml",
        "review_status_signed/contract.toml",
    ]


def test_a_contract_that_did_not_exist_is_all_added(repo: Path) -> None:
    """A contract new since REV: no old side, every field and rule added, no bump needed."""
    shutil.copytree(
        EXAMPLES / "job_run", repo / "tools" / "job_run", ignore=shutil.ignore_patterns("fixtures")
    )
    [result] = diff_against([repo / "tools" / "job_run" / "contract.toml"], "HEAD")
    assert result.old is None
    assert [change.where for change in result.changes] == [
        "contract",
        "projection.project_id",
        "projection.run_id",
        "projection.state",
        "projection.observed_at",
        "rules.project_matches",
        "rules.observation_fresh",
        "rules.run_belongs_to_project",
    ]
    assert result.breaking == 0
    assert result.verdict.ok
    assert result.verdict.message == "new contract (not in HEAD): 1.0.0 needs no bump"


@pytest.mark.parametrize("committed", [False, True], ids=["staged", "committed"])
def test_a_moved_contract_is_compared_with_itself_where_it_was(repo: Path, committed: bool) -> None:
    """A folder moved (git mv) with a breaking schema edit: compared with its old self, not new."""
    git(repo, "mv", "tools/review_status", "tools/review")
    schema = repo / "tools" / "review" / "response.schema.json"
    edit_json(schema, lambda d: d["properties"]["decision"]["enum"].remove("pending"))
    git(repo, "add", "-A")
    if committed:
        git(repo, "commit", "-q", "-m", "moved")
    [result] = diff_against([schema.with_name("contract.toml")], "HEAD~1" if committed else "HEAD")
    shown = ("HEAD~1" if committed else "HEAD") + ":tools/review_status/contract.toml"
    assert result.old is not None
    assert str(result.old.contract) == shown
    assert [(c.where, c.what, c.detail, c.breaking) for c in result.changes] == [
        ("contract", "contract moved", f"from {shown}", False),
        ("/properties/decision/enum", "enum value removed", '"pending"', True),
    ]
    assert not result.verdict.ok


def test_a_renamed_contract_in_its_folder_is_no_new_contract(repo: Path) -> None:
    """contract.toml renamed contract.v2.toml, its projection shrunk: a bump is still needed."""
    folder = repo / "tools" / "review_status"
    git(repo, "mv", "tools/review_status/contract.toml", "tools/review_status/contract.v2.toml")
    renamed = folder / "contract.v2.toml"
    text = renamed.read_text(encoding="utf-8")
    renamed.write_text(text.replace('reviewed_by = "/reviewed_by"\n', ""), encoding="utf-8")
    [result] = diff_against([renamed], "HEAD")
    assert result.old is not None
    assert str(result.old.contract) == "HEAD:tools/review_status/contract.toml"
    assert [c.where for c in result.changes] == ["contract", "projection.reviewed_by"]
    assert not result.verdict.ok


def test_a_move_alone_needs_no_bump(repo: Path) -> None:
    """A contract moved unchanged: one change saying so, compatible, the verdict ok."""
    git(repo, "mv", "tools/review_status", "tools/review")
    [result] = diff_against([repo / "tools" / "review" / "contract.toml"], "HEAD")
    assert [(c.what, c.upstream, c.agent) for c in result.changes] == [
        ("contract moved", "none", "none")
    ]
    assert result.verdict.ok
    assert result.verdict.message == "compatible changes only: no new version needed"


def test_an_older_revision_is_compared_too(repo: Path) -> None:
    """HEAD~1 names the commit before the last: the contract as it was then."""
    schema = repo / "tools" / "review_status" / "response.schema.json"
    edit_json(schema, lambda d: d["properties"]["reviewed_by"].update(maxLength=64))
    git(repo, "commit", "-q", "-am", "shorter reviewer")
    [last] = diff_against([schema.with_name("contract.toml")], "HEAD")
    [before] = diff_against([schema.with_name("contract.toml")], "HEAD~1")
    assert last.changes == ()
    assert [change.what for change in before.changes] == ["maxLength lowered"]


def test_an_unknown_revision_is_a_usage_error(repo: Path) -> None:
    """A revision the clone does not have: exit 2, saying to check its name."""
    with pytest.raises(UsageError, match=r"--against v9: no such commit in this clone; check"):
        load_committed(repo / "tools" / "review_status" / "contract.toml", "v9")


def test_a_shallow_clone_says_how_to_fetch_more(repo: Path, tmp_path: Path) -> None:
    """In a shallow CI clone, the missing parent commit comes with `git fetch --deepen`."""
    git(repo, "commit", "-q", "--allow-empty", "-m", "second")
    shallow = tmp_path / "shallow"
    git(tmp_path, "clone", "-q", "--depth", "1", f"file://{repo}", str(shallow))
    with pytest.raises(UsageError) as caught:
        load_committed(shallow / "tools" / "review_status" / "contract.toml", "HEAD~1")
    assert "this clone is shallow" in str(caught.value)
    assert "git fetch --deepen" in str(caught.value)


def test_a_single_branch_shallow_clone_fetches_the_base_by_the_hinted_command(
    repo: Path, tmp_path: Path
) -> None:
    """A CI checkout of one branch lacks origin/main; the command the message gives fetches it."""
    git(repo, "checkout", "-q", "-b", "feature")
    schema = repo / "tools" / "review_status" / "response.schema.json"
    edit_json(schema, lambda d: d["properties"]["decision"]["enum"].remove("pending"))
    git(repo, "commit", "-q", "-am", "narrow")
    shallow = tmp_path / "ci"
    git(tmp_path, "clone", "-q", "--depth", "1", "-b", "feature", f"file://{repo}", str(shallow))
    contract = shallow / "tools" / "review_status" / "contract.toml"
    with pytest.raises(UsageError) as caught:
        load_committed(contract, "origin/main")
    hinted = "git fetch --depth=1 origin main:refs/remotes/origin/main"
    assert hinted in str(caught.value)
    git(shallow, *hinted.split()[1:])
    [result] = diff_against([contract], "origin/main")
    assert [change.what for change in result.changes] == ["enum value removed"]


def test_a_partial_clone_says_what_to_fetch_and_then_sees_the_move(
    repo: Path, tmp_path: Path
) -> None:
    """A blobless clone lacks a moved contract's old content: exit 2 naming the fix, never new."""
    git(repo, "mv", "tools/review_status", "tools/review")
    schema = repo / "tools" / "review" / "response.schema.json"
    edit_json(schema, lambda d: d["properties"]["decision"]["enum"].remove("pending"))
    git(repo, "commit", "-q", "-am", "moved and narrowed")
    partial = _blobless_clone(repo, tmp_path)
    contract = partial / "tools" / "review" / "contract.toml"
    with pytest.raises(UsageError) as caught:
        diff_against([contract], "HEAD~1")
    assert "from promisor remote; this clone is partial" in str(caught.value)
    assert "warning:" not in str(caught.value)
    git(partial, "diff", "--stat", "HEAD~1")  # the command the message gives
    [result] = diff_against([contract], "HEAD~1")
    assert [change.what for change in result.changes] == ["contract moved", "enum value removed"]
    assert not result.verdict.ok


def test_a_partial_clone_lacking_a_committed_schema_says_what_to_fetch(
    repo: Path, tmp_path: Path
) -> None:
    """The old schema's content is not in a blobless clone: git's reason and the fix, no warning."""
    schema = repo / "tools" / "review_status" / "response.schema.json"
    edit_json(schema, lambda d: d["properties"]["decision"]["enum"].remove("pending"))
    git(repo, "commit", "-q", "-am", "narrowed")
    partial = _blobless_clone(repo, tmp_path)
    with pytest.raises(UsageError) as caught:
        load_committed(partial / "tools" / "review_status" / "contract.toml", "HEAD~1")
    message = str(caught.value)
    assert message.startswith("diff --against: cannot list HEAD~1:tools/review_status/response")
    assert "could not fetch" in message
    assert "git diff --stat REV" in message
    assert "warning:" not in message


def test_a_new_contract_in_a_partial_clone_reads_no_other_file(repo: Path, tmp_path: Path) -> None:
    """No .toml deleted since REV: nothing can have moved, and no missing content is asked for."""
    git(repo, "rm", "-q", "tools/review_status/response.json")
    shutil.copytree(
        EXAMPLES / "job_run", repo / "tools" / "job_run", ignore=shutil.ignore_patterns("fixtures")
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "a new contract")
    partial = _blobless_clone(repo, tmp_path)
    [result] = diff_against([partial / "tools" / "job_run" / "contract.toml"], "HEAD~1")
    assert result.old is None


def test_head_before_the_first_commit_has_every_contract_new(tmp_path: Path) -> None:
    """A new repository's first commit (what a pre-commit hook sees): every contract is new."""
    root = tmp_path / "new"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    shutil.copytree(EXAMPLES / "review_status", root / "review_status")
    git(root, "add", "-A")
    [result] = diff_against([root], "HEAD")
    assert result.old is None
    assert result.verdict.message == "new contract (not in HEAD): 1.0.0 needs no bump"
    with pytest.raises(UsageError, match="--against main: no such commit in this clone"):
        diff_against([root], "main")


def test_an_orphan_branch_has_every_contract_new(repo: Path) -> None:
    """`git checkout --orphan`: HEAD names a branch with no commit, as in a new repository."""
    git(repo, "checkout", "-q", "--orphan", "fresh")
    [result, _] = diff_against([repo / "tools"], "HEAD")
    assert result.old is None


def test_a_detached_head_is_never_taken_for_an_unborn_branch(repo: Path) -> None:
    """A HEAD that names a commit the clone lacks stays a usage error, never "all new"."""
    (repo / ".git" / "HEAD").write_text("0123456789abcdef0123456789abcdef01234567\n")
    with pytest.raises(UsageError, match="--against HEAD: no such commit"):
        diff_against([repo / "tools" / "review_status"], "HEAD")


def test_a_hooks_git_dir_does_not_pick_the_work_tree(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`git commit` in a linked worktree sets GIT_DIR for its hooks: the edit is still seen.

    With GIT_DIR inherited, git took the contract's folder for the top of the work tree, found
    no `contract.toml` there at HEAD, and reported every contract as new: a missing bump passed.
    """
    worktree = tmp_path / "worktree"
    git(repo, "worktree", "add", "-q", str(worktree))
    schema = worktree / "tools" / "review_status" / "response.schema.json"
    edit_json(schema, lambda d: d["properties"]["decision"]["enum"].remove("pending"))
    git_dir = git(worktree, "rev-parse", "--absolute-git-dir").strip()
    monkeypatch.setenv("GIT_DIR", git_dir)
    monkeypatch.setenv("GIT_INDEX_FILE", f"{git_dir}/index")
    monkeypatch.setenv("GIT_PREFIX", "")
    [result] = diff_against([schema.with_name("contract.toml")], "HEAD")
    assert result.old is not None
    assert [change.what for change in result.changes] == ["enum value removed"]


def test_a_revision_that_looks_like_an_option_is_refused(repo: Path) -> None:
    """`--against --output=x` never reaches git as an option."""
    with pytest.raises(UsageError, match="is not a revision"):
        load_committed(repo / "tools" / "review_status" / "contract.toml", "--output=x")


def test_outside_a_work_tree_is_a_usage_error(tmp_path: Path) -> None:
    """A contract in no git work tree: exit 2, with git's reason."""
    shutil.copytree(EXAMPLES / "review_status", tmp_path / "plain")
    with pytest.raises(UsageError, match="cannot find the work tree: not a git repository"):
        load_committed(tmp_path / "plain" / "contract.toml", "HEAD")


def test_a_committed_contract_that_does_not_load_is_named_by_revision(repo: Path) -> None:
    """The error names `REV:path`, never the temporary folder it was read from."""
    contract = repo / "tools" / "review_status" / "contract.toml"
    good = contract.read_text(encoding="utf-8")
    contract.write_text(good.replace('version = "1.0.0"', 'version = "1.0.0"\nsurprise = 1'))
    git(repo, "commit", "-q", "-am", "broken")
    contract.write_text(good, encoding="utf-8")
    with pytest.raises(ContractError) as caught:
        load_committed(contract, "HEAD")
    assert caught.value.source == "HEAD:tools/review_status/contract.toml"
    assert "toolguard-diff-" not in str(caught.value)


def test_a_file_named_outside_the_repository_is_refused(repo: Path) -> None:
    """A committed contract whose schema lies outside the repository cannot be compared."""
    contract = repo / "tools" / "review_status" / "contract.toml"
    good = contract.read_text(encoding="utf-8")
    contract.write_text(good.replace("response.schema.json", "../../../elsewhere.json"))
    git(repo, "commit", "-q", "-am", "outside")
    contract.write_text(good, encoding="utf-8")
    with pytest.raises(UsageError, match="outside the repository"):
        load_committed(contract, "HEAD")


def test_a_file_with_glob_characters_is_read_literally(repo: Path) -> None:
    """A schema named `[A].json` is that file, not a pattern that also matches `A.json`."""
    folder = repo / "tools" / "review_status"
    git(repo, "mv", "tools/review_status/response.schema.json", "tools/review_status/[A].json")
    other = folder / "A.json"
    shutil.copy(folder / "[A].json", other)
    edit_json(other, lambda d: d["properties"]["decision"]["enum"].remove("pending"))
    contract = folder / "contract.toml"
    contract.write_text(
        contract.read_text(encoding="utf-8").replace("response.schema.json", "[A].json")
    )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "odd name")
    [result] = diff_against([contract], "HEAD")
    assert result.changes == ()


def test_git_gets_none_of_toolguards_variables(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`TOOLGUARD_*` (the audit key's path among them) never reaches a process toolguard starts."""
    seen = tmp_path / "seen"
    spy = tmp_path / "bin" / "git"
    spy.parent.mkdir()
    spy.write_text(f"#!/bin/sh\nenv > {seen}\nexit 1\n", encoding="utf-8")
    spy.chmod(0o755)
    monkeypatch.setenv("PATH", f"{spy.parent}:/usr/bin:/bin")
    monkeypatch.setenv("TOOLGUARD_AUDIT_KEY", "/secret/key")
    with pytest.raises(UsageError):
        diff_against([repo / "tools" / "review_status" / "contract.toml"], "HEAD")
    names = [line.split("=", 1)[0] for line in seen.read_text(encoding="utf-8").splitlines()]
    assert "GIT_TERMINAL_PROMPT" in names
    assert not [name for name in names if name.startswith("TOOLGUARD_")]


def test_a_git_in_the_working_folder_never_runs_through_a_relative_path_entry(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A hostile repository's own `git` at its root, and `.` on PATH: refused, never run."""
    planted = repo / "git"
    planted.write_text(f"#!/bin/sh\ntouch {repo / 'ran'}\nexit 1\n", encoding="utf-8")
    planted.chmod(0o755)
    monkeypatch.chdir(repo)
    monkeypatch.setenv("PATH", ".:/usr/bin:/bin")
    with pytest.raises(UsageError, match=r"relative PATH entry '\.'"):
        diff_against([repo / "tools" / "review_status" / "contract.toml"], "HEAD")
    assert not (repo / "ran").exists()


def test_a_git_that_cannot_run_is_a_usage_error_that_says_so(
    repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The only `git` on PATH lacks execute permission: exit 2 naming git, not an internal error
    (nor, inside the temporary folder's body, a temporary folder that could not be used)."""
    unusable = tmp_path / "bin" / "git"
    unusable.parent.mkdir()
    unusable.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    unusable.chmod(0o644)
    monkeypatch.setenv("PATH", str(unusable.parent))
    with pytest.raises(UsageError, match=r"^diff --against: cannot run git: Permission denied$"):
        diff_against([repo / "tools" / "review_status" / "contract.toml"], "HEAD")


def _blobless_clone(repo: Path, tmp_path: Path) -> Path:
    """A `--filter=blob:none` clone of `repo`: git fetches a file's content only when asked."""
    git(repo, "config", "uploadpack.allowfilter", "true")
    partial = tmp_path / "partial"
    git(tmp_path, "clone", "-q", "--filter=blob:none", f"file://{repo}", str(partial))
    return partial
