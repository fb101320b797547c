"""Contract diff: two loaded contracts -> every change, classified, and a version verdict.

`toolguard diff OLD NEW` compares what the upstream may send (the payload schema, limits,
rules, the text adapter, how the command is run, `[mcp]`) and what the agent receives (the
envelope's `data`), keyword by keyword. Each change says whether the new contract lets
through more responses, fewer, some of each, or the same ones, and whether the agent may see
something different; whatever cannot be compared precisely is reported as `both` (breaking),
never skipped. The verdict applies the version rule in `version.py`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from toolguard.contract import Contract
from toolguard.diff.change import Change
from toolguard.diff.fields import limit_changes, projection_changes, rule_changes, tool_changes
from toolguard.diff.mcp import mcp_changes
from toolguard.diff.operations import retry_changes, run_changes, text_changes
from toolguard.diff.payload import payload_changes
from toolguard.diff.version import Verdict, verdict

__all__ = ["Change", "ContractDiff", "Side", "Verdict", "diff_contracts"]


@dataclass(frozen=True, slots=True)
class Side:
    """One of the two contracts compared."""

    contract: Path
    tool: str
    version: str


@dataclass(frozen=True, slots=True)
class ContractDiff:
    """Every change from `old` to `new`, in contract order, and the version verdict."""

    old: Side
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
