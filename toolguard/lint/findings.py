"""Lint results as values: findings, waived findings, and the registry of rules that make them.

A rule is one check function registered by `lint_rule` with its description, whose first line
is the rationale (from the article) that the README, `--format sarif` and the rich output all
quote. Checks decide; `render.py` only renders what they decided.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

# A notice points at something worth a look that may well be right (free text the agent
# receives, a key a contract sets aside, a field a signature does not cover): it is reported
# like any finding, may be waived, and never fails a run.
Severity = Literal["error", "warning", "notice"]
FAILING: frozenset[Severity] = frozenset({"error", "warning"})


class Hit(NamedTuple):
    """What a check yields: where (file, JSON Pointer) and what is wrong there."""

    file: str
    pointer: str
    message: str


@dataclass(frozen=True, slots=True)
class Finding:
    """One weakness lint found: rule id, message, and location (file, JSON Pointer, line)."""

    rule: str  # the id, `TG001`
    name: str  # the rule's name, `open-object`
    message: str
    file: str
    pointer: str
    severity: Severity = "error"
    line: int = 1


@dataclass(frozen=True, slots=True)
class Waived:
    """A finding a contract's `[[lint.waive]]` entry accepted, with the entry's reason."""

    finding: Finding
    reason: str
    waiver_file: str
    waiver_pointer: str
    waiver_line: int = 1


@dataclass(frozen=True, slots=True)
class LintReport:
    """Everything one `toolguard lint` run decided, in a stable order."""

    findings: tuple[Finding, ...]
    waived: tuple[Waived, ...]
    files: tuple[str, ...]

    @property
    def clean(self) -> bool:
        """Whether nothing is left to fix (waived findings and notices do not count)."""
        return not any(finding.severity in FAILING for finding in self.findings)


Check = Callable[[Any], Iterable[Hit]]


@dataclass(frozen=True, slots=True)
class LintRule:
    """A registered rule: `TG001` `open-object`, what it checks, and the check that applies it.

    NOTE: `description` is data, never the check's docstring: `python -OO` strips docstrings,
    and SARIF's rule descriptions must not depend on how Python was started.
    """

    id: str
    name: str
    description: str  # its first line is the rationale; the rest, what the rule checks
    check: Check
    severity: Severity = "error"

    @property
    def rationale(self) -> str:
        """The description's first line: why the rule exists, from the article."""
        return self.description.splitlines()[0]

    def __call__(self, subject: Any) -> Iterator[Finding]:
        """The findings of this rule on `subject` (a schema view, document or contract)."""
        for file, pointer, message in self.check(subject):
            yield Finding(self.id, self.name, message, file, pointer, self.severity)


def lint_rule(
    rule_id: str,
    name: str,
    description: str,
    *,
    severity: Severity = "error",
) -> Callable[[Check], LintRule]:
    """Register the decorated check as rule `rule_id` `name`, described by `description`.

    The description is written as a docstring would be (indented lines, a blank line between
    paragraphs) and kept as `inspect.cleandoc` reads one.
    """
    text = inspect.cleandoc(description)
    return lambda check: LintRule(rule_id, name, text, check, severity)
