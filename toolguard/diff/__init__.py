"""Contract diff: two loaded contracts -> every change, classified, and a version verdict.

`toolguard diff OLD NEW` (or `--against REV CONTRACT`, with `revision.py` taking the old
version from git) compares what the upstream may send (the payload schema, limits,
rules, the text adapter, how the command is run, `[mcp]`) and what the agent receives (the
envelope's `data`), keyword by keyword. Each change says whether the new contract lets
through more responses, fewer, some of each, or the same ones, and whether the agent may see
something different; whatever cannot be compared precisely is reported as `both` (breaking),
never skipped. The verdict applies the version rule in `version.py`. A contract with no
earlier version is all added (`added`): every field and rule new, and no bump needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolguard.contract import Contract
from toolguard.diff.change import DATA, NONE, Change
from toolguard.diff.fields import limit_changes, projection_changes, rule_changes, tool_changes
from toolguard.diff.mcp import mcp_changes
from toolguard.diff.operations import retry_changes, run_changes, text_changes
from toolguard.diff.payload import payload_changes
from toolguard.diff.version import Verdict, first_version, verdict

__all__ = ["Change", "ContractDiff", "Side", "Verdict", "added", "diff_contracts"]


@dataclass(frozen=True, slots=True)
class Side:
    """One of the two contracts compared."""

    contract: Path
    tool: str
    version: str


@dataclass(frozen=True, slots=True)
class ContractDiff:
    """Every change from `old` to `new`, in contract order, and the version verdict.

    `old` is None when the contract has no earlier version: then everything is added.
    """

    old: Side | None
    new: Side
    changes: tuple[Change, ...]
    verdict: Verdict

    @property
    def breaking(self) -> int:
        """How many changes are breaking."""
        return sum(item.breaking for item in self.changes)

    @property
    def agent_facing(self) -> int:
        """How many changes the agent may notice."""
        return sum(item.agent != "none" for item in self.changes)


def diff_contracts(old: Contract, new: Contract) -> ContractDiff:
    """Compare two versions of a contract."""
    changes = (
        *tool_changes(old, new),
        *payload_changes(old, new),
        *projection_changes(old, new),
        *rule_changes(old, new),
        *limit_changes(old, new),
        *run_changes(old, new),
        *retry_changes(old, new),
        *text_changes(old, new),
        *mcp_changes(old, new),
    )
    return ContractDiff(
        Side(old.path, old.tool, old.version),
        Side(new.path, new.tool, new.version),
        changes,
        verdict(old.version, new.version, changes),
    )


def added(new: Contract, since: str) -> ContractDiff:
    """The diff of a contract that did not exist at `since`: all added, and no bump needed.

    One change says so, then one per projected field and per rule, for a reviewer to read
    what the agent will receive and what is checked; none is breaking, since no earlier
    version accepted anything.
    """
    changes = (
        Change("contract", "contract added", f"not in {since}", NONE, DATA),
        *(
            Change(f"projection.{name}", "projection field added", pointer, NONE, DATA)
            for name, pointer in new.projection.fields.items()
        ),
        *(Change(f"rules.{rule.name}", "rule added", repr(rule), NONE) for rule in new.rules),
    )
    side = Side(new.path, new.tool, new.version)
    return ContractDiff(None, side, changes, first_version(new.version, since))
