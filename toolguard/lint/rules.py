"""The registry of lint rules: id -> rule, in id order (README, SARIF and waivers use it)."""

from __future__ import annotations

from collections.abc import Mapping

from toolguard.lint.contract_rules import BUILT_RULES, CONTRACT_RULES, UNMATCHED_WAIVER
from toolguard.lint.findings import LintRule
from toolguard.lint.mcp_rules import MCP_RULES
from toolguard.lint.schema_rules import DOCUMENT_RULES, VIEW_RULES

LINT_RULES: Mapping[str, LintRule] = {
    rule.id: rule
    for rule in sorted(
        (*VIEW_RULES, *DOCUMENT_RULES, *CONTRACT_RULES, *BUILT_RULES, *MCP_RULES, UNMATCHED_WAIVER),
        key=lambda r: r.id,
    )
}
