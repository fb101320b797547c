"""Lint: contracts and schemas -> findings (rule id, message, file, JSON Pointer), or none.

The article's advice as checks CI can run before any response is: closed objects, bounded
strings, arrays and maps, no free-form maps, required and well-typed fields for the rules and
the projection, asserted formats, Draft 2020-12, no remote references, sane limits. A
contract may waive a finding, with a reason (`[[lint.waive]]`).
"""

from toolguard.lint.findings import Finding, LintReport, LintRule, Waived
from toolguard.lint.rules import LINT_RULES
from toolguard.lint.targets import lint_paths

__all__ = ["LINT_RULES", "Finding", "LintReport", "LintRule", "Waived", "lint_paths"]
