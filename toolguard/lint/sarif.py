"""A lint report as a SARIF 2.1.0 log, so code hosts show each finding on its line.

One run; the driver lists every registered rule (id, name, rationale, level); each result
names its rule, file (a relative URI reference as given, or a `file:` URI) and line, with the
JSON Pointer as its logical location. Waived findings are results with an `inSource`
suppression whose justification is the waiver's reason.
"""

from __future__ import annotations

import os
from pathlib import PurePath
from typing import Any
from urllib.parse import quote

from toolguard.lint.findings import Finding, LintReport, Severity
from toolguard.lint.rules import LINT_RULES
from toolguard.version import __version__

SARIF_SCHEMA = (
    "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"
)
# SARIF's levels (§3.58.6): a notice is a "note", which code hosts show without failing a check.
LEVEL: dict[Severity, str] = {"error": "error", "warning": "warning", "notice": "note"}


def sarif_log(report: LintReport) -> dict[str, Any]:
    """The SARIF 2.1.0 log of `report`."""
    index = {rule_id: position for position, rule_id in enumerate(LINT_RULES)}
    results = [_result(finding, index) for finding in report.findings]
    for item in report.waived:
        result = _result(item.finding, index)
        result["suppressions"] = [
            {
                "kind": "inSource",
                "justification": item.reason,
                "location": _location(item.waiver_file, item.waiver_line, item.waiver_pointer),
            }
        ]
        results.append(result)
    rules = [
        {
            "id": rule.id,
            "name": rule.name,
            "shortDescription": {"text": rule.rationale},
            "fullDescription": {"text": " ".join(rule.description.split())},
            "defaultConfiguration": {"level": LEVEL[rule.severity]},
        }
        for rule in LINT_RULES.values()
    ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {"driver": {"name": "toolguard", "version": __version__, "rules": rules}},
                "results": results,
                "columnKind": "unicodeCodePoints",
            }
        ],
    }


def _result(finding: Finding, index: dict[str, int]) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": LEVEL[finding.severity],
        "message": {"text": finding.message},
        "locations": [_location(finding.file, finding.line, finding.pointer)],
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    return result


def _location(file: str, line: int, pointer: str) -> dict[str, Any]:
    return {
        "physicalLocation": {
            "artifactLocation": {"uri": _uri(file)},
            "region": {"startLine": line},
        },
        "logicalLocations": [{"fullyQualifiedName": pointer, "kind": "member"}],
    }


def _uri(file: str) -> str:
    """A relative path as a URI reference (what code hosts match to the checkout); else file:.

    NOTE: percent-encoded from the name's bytes, as the OS has them: a name that is not UTF-8
    holds lone surrogates in Python (`surrogateescape`), which UTF-8 cannot encode.
    """
    path = PurePath(file)
    quoted = quote(os.fsencode(path.as_posix()))
    return f"file://{quoted}" if path.is_absolute() else quoted
