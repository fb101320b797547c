"""Lint targets -> one report: a contract (TOML, payload schema, error schemas) or a schema file.

A folder stands for every contract under it (`contract.toml`, `contract.NAME.toml`).

A `.toml` target is a contract: read and checked against the contract schema, its schemas
compiled fail-closed (a contract or schema toolguard refuses is a `ContractError`, exit 3, not
a finding), then every rule applied and the contract's waivers matched. Any other file is a
bare schema, linted as if the agent could see all of it.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path

from toolguard.contract import load_contract, read_contract_document
from toolguard.contract.find import contract_paths
from toolguard.contract.locate import file_lines, line_of
from toolguard.errors import SchemaError, SchemaUnreadable
from toolguard.lint.contract_rules import (
    BUILT_RULES,
    CONTRACT_RULES,
    UNMATCHED_WAIVER,
    BuiltSubject,
    ContractSubject,
    WaiverSubject,
)
from toolguard.lint.findings import Finding, LintReport, Waived
from toolguard.lint.mcp_rules import MCP_RULES
from toolguard.lint.schema_rules import DOCUMENT_RULES, VIEW_RULES
from toolguard.lint.views import Document, Reach
from toolguard.lint.walk import leaf_views
from toolguard.schema import compile_schema
from toolguard.schema.refs import read_schema

_UNDECLARED = "TG009"  # the one finding the loader also refuses: do not load on top of it


def lint_paths(paths: Iterable[str | Path]) -> LintReport:
    """Lint each contract (`.toml`), schema file or folder of contracts.

    Raise `ContractError` for a contract or schema toolguard refuses, `UsageError` for a
    folder holding no contract.
    """
    findings: list[Finding] = []
    waived: list[Waived] = []
    files: list[str] = []
    for path in contract_paths(map(Path, paths)):
        if path.suffix == ".toml":
            found, accepted, read = _lint_contract(path)
        else:
            document = _document(path, Reach.of(None))
            found, accepted, read = _schema_findings(document), [], [document.file]
        findings += found
        waived += accepted
        files += read
    return _report(findings, waived, list(dict.fromkeys(files)))


def _document(path: Path, reach: Reach) -> Document:
    raw = read_schema(path)
    try:
        validator = compile_schema(raw)
    except SchemaError as exc:
        raise SchemaError(exc.message, source=str(path), field=exc.field) from None
    return Document(validator.schema, raw, str(path), reach)


def _named(contract: Path, field: str, relative: str, reach: Reach) -> Document:
    """A schema the contract names: one that cannot be read blames the field, as `check` does."""
    try:
        return _document(contract.parent / relative, reach)
    except SchemaUnreadable as exc:
        raise exc.blamed_on(str(contract), field, relative) from None


def _schema_findings(document: Document) -> list[Finding]:
    found = [finding for rule in DOCUMENT_RULES for finding in rule(document)]
    try:
        for view in leaf_views(document):
            found += [finding for rule in VIEW_RULES for finding in rule(view)]
    except SchemaError as exc:
        raise SchemaError(exc.message, source=document.file) from None
    return found


def _lint_contract(path: Path) -> tuple[list[Finding], list[Waived], list[str]]:
    document = read_contract_document(path)
    seen = [*document["projection"].values()]
    if document.get("display_text"):
        seen.append(document["display_text"]["pointer"])
    schema = _named(path, "schema", document["schema"], Reach.of(seen))
    found = _schema_findings(schema)
    files = [str(path), schema.file]
    for index, entry in enumerate(document.get("run", {}).get("error_documents", [])):
        field = f"run.error_documents.{index}.schema"
        errors = _named(path, field, entry["schema"], Reach.of(()))  # never projected
        found += _schema_findings(errors)
        files.append(errors.file)
    subject = ContractSubject(str(path), document, schema)
    found += [finding for rule in (*CONTRACT_RULES, *MCP_RULES) for finding in rule(subject)]
    if not any(finding.rule == _UNDECLARED for finding in found):
        # Whatever else the loader refuses (a rule's pattern, [text]): exit 3. An optional
        # library (jc, the signed extra) is not needed to lint the contract that names it.
        built = BuiltSubject(str(path), load_contract(path, need_extras=False))
        found += [finding for rule in BUILT_RULES for finding in rule(built)]
    waivers = tuple(document.get("lint", {}).get("waive", []))
    kept, accepted = _waive(found, waivers, str(path))
    kept += UNMATCHED_WAIVER(WaiverSubject(str(path), waivers, tuple(found)))
    return kept, accepted, files


def _waive(
    found: list[Finding], waivers: tuple[dict[str, str], ...], contract: str
) -> tuple[list[Finding], list[Waived]]:
    """Split findings into kept and waived: by the first waiver of their rule at their pointer."""
    matching: dict[tuple[str, str], int] = {}
    for index, waiver in enumerate(waivers):
        matching.setdefault((waiver["rule"], waiver["pointer"]), index)
    kept: list[Finding] = []
    accepted: list[Waived] = []
    for finding in found:
        match = matching.get((finding.rule, finding.pointer))
        if match is None:
            kept.append(finding)
        else:
            reason = waivers[match]["reason"]
            accepted.append(Waived(finding, reason, contract, f"/lint/waive/{match}"))
    return kept, accepted


def _report(findings: list[Finding], waived: list[Waived], files: list[str]) -> LintReport:
    """Each finding once (by rule, file and pointer), on its line, in file then line order."""
    lines = {file: file_lines(file) for file in files}
    order = {file: index for index, file in enumerate(files)}

    def placed(finding: Finding) -> Finding:
        line = line_of(lines.get(finding.file, {}), finding.pointer)
        return dataclasses.replace(finding, line=line)

    def key(finding: Finding) -> tuple[int, int, str, str]:
        return (order.get(finding.file, len(order)), finding.line, finding.rule, finding.pointer)

    kept = {(f.rule, f.file, f.pointer): placed(f) for f in reversed(findings)}
    accepted = {
        (w.finding.rule, w.finding.file, w.finding.pointer): dataclasses.replace(
            w,
            finding=placed(w.finding),
            waiver_line=line_of(lines.get(w.waiver_file, {}), w.waiver_pointer),
        )
        for w in reversed(waived)
    }
    return LintReport(
        tuple(sorted(kept.values(), key=key)),
        tuple(sorted(accepted.values(), key=lambda item: key(item.finding))),
        tuple(files),
    )
