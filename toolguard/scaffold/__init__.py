"""`toolguard init`: a tool name (and a sample answer) -> a contract folder that passes its tests.

What it writes passes its own `toolguard lint` (notices aside) and `toolguard test` as written.

`example` drafts a small working contract to replace; `sample` drafts one from a real answer;
`near_misses` adds the article's near misses as reject fixtures; `render` writes the text.
`build` checks the accepted fixture through the real pipeline (its golden envelope is that
check's answer) before anything is written (a draft the contract schema refuses is a usage
error naming the sample, never a contract error about a temporary file); `write` refuses to
overwrite a file unless told to, and writes each one atomically.
"""

from __future__ import annotations

import shlex
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolguard import envelope
from toolguard.contract import load_contract
from toolguard.contract.names import is_tool_name
from toolguard.errors import ContractError, UsageError
from toolguard.files import public_mode, write_atomic
from toolguard.pipeline import check
from toolguard.scaffold.draft_contract import SCHEMA_FILE, Draft
from toolguard.scaffold.near_misses import Plan, near_misses
from toolguard.scaffold.render import expect_text, json_bytes, json_text, toml_string
from toolguard.text import clean

REQUEST_ID = "req.fixture.0001"
CONTRACT_FILE = "contract.toml"


@dataclass(frozen=True, slots=True)
class File:
    """One file of the folder: its path inside it, its bytes, and whether only you may read it."""

    path: str
    data: bytes
    private: bool = False


@dataclass(frozen=True, slots=True)
class Scaffold:
    """Everything `toolguard init` writes, and how many fixtures of each kind."""

    tool: str
    files: tuple[File, ...]
    accepted: int
    rejected: int


def check_tool_name(tool: str) -> None:
    """Refuse a tool name lint would flag (`TG013`) before anything is drafted."""
    if not is_tool_name(tool):
        raise UsageError(
            f"{tool!r} is not a tool name: snake_case words (a-z, 0-9, single underscores, "
            "starting with a letter), at most 64 characters, such as ticket_status"
        )


def build(tool: str, sample: tuple[bytes, str] | None = None) -> Scaffold:
    """The folder for `tool`: the example, or a draft from `sample` (its bytes and name)."""
    from toolguard.scaffold.example import example  # noqa: PLC0415 - one kind per call
    from toolguard.scaffold.sample import from_sample  # noqa: PLC0415

    check_tool_name(tool)
    draft = example(tool) if sample is None else from_sample(tool, *sample)
    misses = near_misses(
        Plan(draft.sample, draft.raw, draft.schema, draft.limits, draft.projected, draft.edits)
    )
    private = draft.private
    files = [
        File(CONTRACT_FILE, draft.contract.encode()),
        File(SCHEMA_FILE, json_text(draft.schema).encode()),
    ]
    if draft.context is not None:
        files.append(File("context.json", json_bytes(draft.context) + b"\n"))
    settings = f"now = {toml_string(draft.now)}\nrequest_id = {toml_string(REQUEST_ID)}\n"
    files.append(File("fixtures/fixtures.toml", settings.encode()))
    accept = f"fixtures/accept/{draft.accepted}"
    files.append(File(f"{accept}.json", draft.raw, private))
    source = "the example" if sample is None else f"--from {sample[1]}"
    files.append(File(f"{accept}.expected.json", _golden(draft, files, source), private))
    for miss in misses:
        reject = f"fixtures/reject/{miss.name}"
        files.append(File(f"{reject}.json", miss.raw, private))
        files.append(File(f"{reject}.expect.toml", expect_text(miss.note, miss.expect).encode()))
    return Scaffold(tool, tuple(files), 1, len(misses))


def _golden(draft: Draft, files: Sequence[File], source: str) -> bytes:
    """The accepted fixture's envelope, as `toolguard test` will check it: loaded, checked."""
    with tempfile.TemporaryDirectory(prefix="toolguard-init-") as folder:
        for file in files:
            target = Path(folder, file.path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(file.data)
        try:
            contract = load_contract(Path(folder, CONTRACT_FILE), cache=False)
        except ContractError as exc:
            # NOTE: a bound `sample.py` does not check yet: say what, not where the draft sat.
            found = "; ".join(
                ": ".join(part for part in (problem.field, problem.message) if part)
                for problem in exc.problems
            )
            raise UsageError(
                f"cannot draft a contract from {source}: toolguard would refuse it ({found}); "
                "keep in the sample one typical answer with only what the agent needs"
            ) from None
    outcome = check(
        contract, draft.raw, request_id=REQUEST_ID, context=draft.context, now=draft.now
    )
    diagnostics = outcome.diagnostics
    if diagnostics.outcome != "success":
        raise UsageError(
            f"the drafted contract rejects the sample itself ({diagnostics.layer}, "
            f"{diagnostics.reason}): {diagnostics.message}"
        )
    return envelope.dumps(outcome.envelope).encode("ascii")


def write(scaffold: Scaffold, folder: Path, *, force: bool = False) -> None:
    """Write every file under `folder`; refuse (`UsageError`) if one exists, unless `force`."""
    targets = [(folder / file.path, file) for file in scaffold.files]
    existing = [path for path, _ in targets if path.exists() or path.is_symlink()]
    if existing and not force:
        shown = ", ".join(str(path) for path in existing[:3])
        more = f" and {len(existing) - 3} more" if len(existing) > 3 else ""
        raise UsageError(f"{shown}{more} already exist: pass --force to overwrite them")
    for path, file in targets:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            write_atomic(path, file.data, mode=0o600 if file.private else public_mode(path))
        except OSError as exc:
            raise UsageError(f"cannot write {path}: {exc.strerror}") from None


def summary(scaffold: Scaffold, folder: Path) -> str:
    """What was written and what to run next, for people."""
    context = ", context.json" if any(f.path == "context.json" for f in scaffold.files) else ""
    fixtures = f"fixtures/ ({scaffold.accepted} accept, {scaffold.rejected} reject)"
    shown = clean(shlex.quote(str(folder)))
    contract = clean(shlex.quote(str(folder / CONTRACT_FILE)))
    return (
        f"wrote {clean(str(folder))}/: {CONTRACT_FILE}, {SCHEMA_FILE}{context}, {fixtures}\n"
        f"next: toolguard test {shown} && toolguard lint {contract}\n"
    )
