"""`toolguard init`: a tool name (and a sample answer) -> a contract folder that passes its tests.

What it writes passes its own `toolguard lint` (notices aside) and `toolguard test` as written.

`example` drafts a small working contract to replace; `sample` drafts one from a real answer;
`near_misses` adds the article's near misses as reject fixtures; `render` writes the text.
`build` checks the accepted fixture through the real pipeline (its golden envelope is that
check's answer) before anything is written (a draft the contract schema refuses is a usage
error naming the sample, never a contract error about a temporary file); `write` refuses to
overwrite a file unless told to, and writes each one atomically. Told to, it replaces what
init writes: init's fixtures an earlier run left (by name, `GENERATED`) go too, so the
folder's fixtures are this draft's; a file init never names is the author's, never touched.
"""

from __future__ import annotations

import contextlib
import os
import shlex
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from toolguard import envelope
from toolguard.contract import load_contract
from toolguard.contract.names import is_tool_name
from toolguard.errors import ContractError, UsageError
from toolguard.files import public_mode, refuse_special_target, scratch_folder, staged
from toolguard.pipeline import check
from toolguard.scaffold.draft_contract import SCHEMA_FILE, Draft
from toolguard.scaffold.left_out import LeftOut
from toolguard.scaffold.near_misses import Plan, near_misses
from toolguard.scaffold.render import expect_text, json_bytes, json_text, toml_string
from toolguard.text import clean

REQUEST_ID = "req.fixture.0001"
CONTRACT_FILE = "contract.toml"
# The files init writes per fixture folder: the response, then its golden or expectation.
SUFFIXES = {"accept": (".json", ".expected.json"), "reject": (".json", ".expect.toml")}
# Every fixture name init writes, in any draft (the example's and a sample's near misses, the
# accepted answer): what `--force` replaces, and removes where the new draft has none of that
# name. A test keeps it complete.
GENERATED = {
    "accept": frozenset({"example", "sample"}),
    "reject": frozenset(
        {
            "array_instead_of_object",
            "duplicate_member",
            "empty_identifier",
            "empty_response",
            "extra_property",
            "future",
            "hidden_character",
            "injection",
            "limits_string_too_long",
            "limits_too_deep",
            "limits_too_large",
            "not_a_number",
            "null_instead_of_object",
            "over_long_string",
            "stale",
            "state_not_in_enum",
            "success_with_error",
            "truncated",
            "wrong_item",
            "wrong_type",
        }
    ),
}


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
    left_out: tuple[LeftOut, ...] = ()  # members not projected, as the projection refuses them


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
        Plan(
            draft.sample,
            draft.raw,
            draft.schema,
            draft.limits,
            draft.projected,
            draft.edits,
            draft.ruled,
        )
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
    response, golden = (
        f"fixtures/accept/{draft.accepted}{suffix}" for suffix in SUFFIXES["accept"]
    )
    files.append(File(response, draft.raw, private))
    source = "the example" if sample is None else f"--from {sample[1]}"
    files.append(File(golden, _golden(draft, files, source), private))
    for miss in misses:
        response, expect = (f"fixtures/reject/{miss.name}{suffix}" for suffix in SUFFIXES["reject"])
        files.append(File(response, miss.raw, private))
        files.append(File(expect, expect_text(miss.note, miss.expect).encode()))
    return Scaffold(tool, tuple(files), 1, len(misses), tuple(draft.left_out))


def _golden(draft: Draft, files: Sequence[File], source: str) -> bytes:
    """The accepted fixture's envelope, as `toolguard test` will check it: loaded, checked."""
    with scratch_folder("toolguard-init-") as folder:
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


def write(scaffold: Scaffold, folder: Path, *, force: bool = False) -> tuple[str, ...]:
    """Write every file under `folder`; refuse (`UsageError`) if one exists, unless `force`.

    Init's fixtures of an earlier run that this one does not write count as existing: with
    `force` they are removed (after every file is written), so `toolguard test` checks this
    draft's fixtures only. Returns the removed files, relative to `folder`.
    """
    targets = [(folder / file.path, file) for file in scaffold.files]
    stale = _stale(folder, {file.path for file in scaffold.files})
    # NOTE: `Path.exists` raises on a name too long for the system; `lexists` says False.
    existing = [path for path, _ in targets if os.path.lexists(path)]
    existing += [folder / path for path in stale]
    if existing and not force:
        shown = ", ".join(clean(str(path)) for path in existing[:3])
        more = f" and {len(existing) - 3} more" if len(existing) > 3 else ""
        raise UsageError(f"{shown}{more} already exist: pass --force to replace them")
    # NOTE: every file staged before any is renamed into place: a full disk part way leaves
    # no half scaffold (a later init would need --force, a later test read a partial set).
    temporaries: list[str] = []
    try:
        for path, file in targets:
            path.parent.mkdir(parents=True, exist_ok=True)
            mode = 0o600 if file.private else public_mode(path)
            refuse_special_target(path)
            temporaries.append(staged(path, file.data, mode=mode))
        for temporary, (path, _) in zip(temporaries, targets, strict=False):
            Path(temporary).replace(path)
    except OSError as exc:
        raise UsageError(f"cannot write {clean(str(path))}: {exc.strerror}") from None
    finally:
        for temporary in temporaries:
            with contextlib.suppress(OSError):
                Path(temporary).unlink()
    for leftover in stale:
        try:
            (folder / leftover).unlink()
        except OSError as exc:
            shown = clean(str(folder / leftover))
            raise UsageError(f"cannot remove {shown}: {exc.strerror}") from None
    return stale


def _stale(folder: Path, written: set[str]) -> tuple[str, ...]:
    """Files init writes (by name and suffix, `GENERATED`) that this scaffold does not."""
    found = []
    for kind, names in GENERATED.items():
        try:
            entries = sorted(Path(folder, "fixtures", kind).iterdir())
        except OSError:  # no such folder (or not one): nothing of init's there
            continue
        for entry in entries:
            name, _, suffix = entry.name.partition(".")
            path = f"fixtures/{kind}/{entry.name}"
            init_wrote = name in names and f".{suffix}" in SUFFIXES[kind]
            if init_wrote and path not in written and not entry.is_dir():
                found.append(path)
    return tuple(found)


def summary(scaffold: Scaffold, folder: Path, removed: Sequence[str] = ()) -> str:
    """What was written (and removed) and what to run next, for people."""
    context = ", context.json" if any(f.path == "context.json" for f in scaffold.files) else ""
    fixtures = f"fixtures/ ({scaffold.accepted} accept, {scaffold.rejected} reject)"
    shown = clean(shlex.quote(str(folder)))
    contract = clean(shlex.quote(str(folder / CONTRACT_FILE)))
    lines = [f"wrote {clean(str(folder))}/: {CONTRACT_FILE}, {SCHEMA_FILE}{context}, {fixtures}"]
    if removed:
        gone = sorted({path.split(".", 1)[0].removeprefix("fixtures/") for path in removed})
        lines.append(f"removed the earlier init's fixtures this draft has not: {', '.join(gone)}")
    causes = dict.fromkeys(member.cause for member in scaffold.left_out)
    for cause in causes:  # one line per cause, in the order the sample first shows it
        pointers = [member.pointer for member in scaffold.left_out if member.cause == cause]
        members = ", ".join(clean(pointer, 40) for pointer in pointers[:5])
        if len(pointers) > 5:
            members += f" and {len(pointers) - 5} more"
        lines.append(f"left out of [projection], as they hold {cause}: {members}")
    lines.append(f"next: toolguard test {shown} && toolguard lint {contract}")
    return "".join(f"{line}\n" for line in lines)
