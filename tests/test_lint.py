"""toolguard lint: every rule on its fixtures, the subtle compositions, waivers, and SARIF 2.1.0."""

from __future__ import annotations

import io
import json
import os
import shutil
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from toolguard import ContractError, SchemaError, load_contract
from toolguard.cli.flags import LINT_FORMATS
from toolguard.lint import LINT_RULES, LintReport, lint_paths
from toolguard.lint.patterns import bounded_pattern
from toolguard.lint.render import RENDERERS
from toolguard.lint.sarif import sarif_log
from toolguard.parse import parse
from toolguard.shipped import shipped_schema

REPO = Path(__file__).resolve().parents[1]
LINT = Path(__file__).resolve().parent / "data" / "lint"
SHARED = {"shared"}  # payload schemas the contract fixtures share: not a rule's folder
EXAMPLE_CONTRACTS = sorted((REPO / "examples").glob("*/contract*.toml"))
# OASIS's schema, vendored with its notice (tests/conformance/sarif/NOTICE: not MIT).
SARIF_SCHEMA = REPO / "tests" / "conformance" / "sarif" / "sarif-schema-2.1.0.json"


def cases(folder: Path) -> list[Path]:
    """The lint targets of a fixture folder: contracts and bare schemas (not payload files)."""
    return sorted([*folder.glob("*.toml"), *folder.glob("*.schema.json")])


def fixtures(kind: str) -> list[Any]:
    return [
        pytest.param(rule, path, id=f"{rule}/{kind}/{path.name}")
        for rule in LINT_RULES
        for path in cases(LINT / rule / kind)
    ]


def rules_of(report: LintReport) -> set[str]:
    return {finding.rule for finding in report.findings}


def only(path: Path) -> LintReport:
    return lint_paths([path])


@pytest.mark.parametrize("rule", sorted(LINT_RULES))
def test_every_rule_has_failing_and_passing_fixtures(rule: str) -> None:
    """Each registered rule has at least one failing and one passing fixture file."""
    assert cases(LINT / rule / "fail"), f"no failing fixture for {rule}"
    assert cases(LINT / rule / "pass"), f"no passing fixture for {rule}"


def test_fixture_folders_are_registered_rules() -> None:
    """A folder under tests/data/lint/ names a registered rule, so none is silently skipped."""
    folders = {path.name for path in LINT.iterdir() if path.is_dir()} - SHARED
    assert folders == set(LINT_RULES)


@pytest.mark.parametrize(("rule", "path"), fixtures("fail"))
def test_failing_fixture_is_reported_under_its_rule(rule: str, path: Path) -> None:
    """A failing fixture yields at least one finding of its rule, located in a linted file."""
    report = only(path)
    assert rule in rules_of(report), [(f.rule, f.pointer) for f in report.findings]
    for finding in report.findings:
        assert finding.file in report.files
        assert finding.line >= 1


@pytest.mark.parametrize(("rule", "path"), fixtures("pass"))
def test_passing_fixture_is_clean(rule: str, path: Path) -> None:
    """A passing fixture is clean (notices of other rules aside) and has none of its rule."""
    report = only(path)
    assert report.clean, [(f.rule, f.pointer, f.message) for f in report.findings]
    assert rule not in rules_of(report), [(f.rule, f.pointer) for f in report.findings]


def test_allof_of_closed_base_and_open_extension_reports_the_extension_member() -> None:
    """additionalProperties: false in the base rejects the extension's member: said there."""
    report = only(LINT / "TG001" / "fail" / "allof_closed_base_open_extension.schema.json")
    (finding,) = report.findings
    assert (finding.rule, finding.pointer) == ("TG001", "/allOf/1/properties/source")
    assert "/allOf/0" in finding.message
    assert "unevaluatedProperties: false" in finding.message


def test_allof_of_open_parts_is_reported_at_the_composition() -> None:
    """An allOf of open parts without unevaluatedProperties: false is open at its root."""
    (finding,) = only(LINT / "TG001" / "fail" / "allof_open_parts.schema.json").findings
    assert (finding.rule, finding.pointer) == ("TG001", "")
    assert "allOf" in finding.message


def test_ref_to_open_defs_entry_is_reported_at_the_ref_naming_its_target() -> None:
    """A closed parent's $ref to an open $defs entry: reported where the $ref is used."""
    (finding,) = only(LINT / "TG001" / "fail" / "ref_to_open_defs_entry.schema.json").findings
    assert (finding.rule, finding.pointer, finding.line) == ("TG001", "/properties/item", 6)
    assert "/$defs/item" in finding.message


def test_unevaluated_properties_after_composition_closes_it() -> None:
    """The article's identity object (allOf + unevaluatedProperties: false) has no finding."""
    assert only(LINT / "TG001" / "pass" / "allof_unevaluated_closed.schema.json").clean
    assert only(LINT / "TG001" / "pass" / "ref_base_unevaluated.schema.json").clean


def test_free_form_map_outside_the_projection_is_an_open_object(tmp_path: Path) -> None:
    """Unprojected, additionalProperties: {} is open-object; projected, it is free-form-map."""
    source = LINT / "TG005" / "pass"
    for name in ("free_form_map_outside_projection.toml", "provider.json"):
        shutil.copy(source / name, tmp_path / name)
    contract = tmp_path / "free_form_map_outside_projection.toml"
    text = contract.read_text(encoding="utf-8")
    contract.write_text(text[: text.index("[[lint.waive]]")], encoding="utf-8")
    pointer = "/properties/metadata/additionalProperties"
    assert [(f.rule, f.pointer) for f in only(contract).findings] == [("TG001", pointer)]
    projected = only(LINT / "TG005" / "fail" / "projected_free_form_map.toml")
    assert ("TG005", pointer) in [(f.rule, f.pointer) for f in projected.findings]


def test_waiver_moves_its_finding_to_waived_with_the_reason() -> None:
    """A matching [[lint.waive]] entry waives the finding and keeps its reason and location."""
    report = only(LINT / "TG005" / "pass" / "free_form_map_outside_projection.toml")
    (waived,) = report.waived
    assert waived.finding.rule == "TG001"
    assert waived.reason.startswith("provider metadata")
    assert waived.waiver_pointer == "/lint/waive/0"
    assert waived.waiver_line == 13


def test_unmatched_waiver_is_a_warning_at_the_waiver() -> None:
    """A waiver that matches nothing is itself a finding (a warning), on the waiver's line."""
    (finding,) = only(LINT / "TG017" / "fail" / "waiver_matches_nothing.toml").findings
    assert (finding.rule, finding.severity) == ("TG017", "warning")
    assert (finding.pointer, finding.line) == ("/lint/waive/0", 20)


def test_notices_are_reported_but_leave_the_report_clean() -> None:
    """A free-text projected field is a TG019 notice: listed, yet the report stays clean."""
    report = only(LINT / "TG019" / "fail" / "free_text_projected.toml")
    (finding,) = report.findings
    assert (finding.rule, finding.severity) == ("TG019", "notice")
    assert finding.pointer == "/properties/reviewed_by"
    assert "[display_text]" in finding.message
    assert report.clean


def test_free_text_is_found_at_any_depth_of_a_projected_field() -> None:
    """A free string inside a projected object is reported where its schema declares it."""
    report = only(LINT / "TG019" / "fail" / "free_text_nested_in_projected_object.toml")
    assert [(f.rule, f.pointer) for f in report.findings] == [
        ("TG019", "/properties/details/properties/reviewer")
    ]


def test_display_text_and_unprojected_free_text_are_no_notice() -> None:
    """Display text is where free text belongs, and a dropped field never reaches the agent."""
    report = only(LINT / "TG019" / "pass" / "identifiers_and_display_text.toml")
    assert report.findings == ()


def test_a_notice_with_a_warning_still_fails(tmp_path: Path) -> None:
    """Only notices are harmless: a report with a notice and a warning is not clean."""
    shutil.copy(LINT / "shared" / "review.json", tmp_path / "review.json")
    source = LINT / "TG019" / "fail" / "free_text_projected.toml"
    text = source.read_text(encoding="utf-8").replace("../../shared/review.json", "review.json")
    waiver = '[[lint.waive]]\nrule = "TG001"\npointer = "/nowhere"\nreason = "matches nothing"\n'
    (tmp_path / "contract.toml").write_text(text + waiver, encoding="utf-8")
    report = only(tmp_path / "contract.toml")
    assert {(f.rule, f.severity) for f in report.findings} == {
        ("TG019", "notice"),
        ("TG017", "warning"),
    }
    assert not report.clean


def test_sarif_gives_notices_the_note_level() -> None:
    """SARIF has no "notice": a notice is a result, and a rule, of level "note"."""
    run = sarif_log(only(LINT / "TG019" / "fail" / "free_text_projected.toml"))["runs"][0]
    (result,) = run["results"]
    assert (result["ruleId"], result["level"]) == ("TG019", "note")
    (rule,) = [rule for rule in run["tool"]["driver"]["rules"] if rule["id"] == "TG019"]
    assert rule["defaultConfiguration"]["level"] == "note"


def test_contract_schema_lists_exactly_the_waivable_rules() -> None:
    """`[[lint.waive]] rule` is an enum of every registered rule but unmatched-waiver."""
    schema = json.loads(shipped_schema("contract.schema.json").read_text(encoding="utf-8"))
    waiver = schema["properties"]["lint"]["properties"]["waive"]["items"]
    assert set(waiver["properties"]["rule"]["enum"]) == set(LINT_RULES) - {"TG017"}
    assert waiver["properties"]["reason"]["minLength"] >= 10


@pytest.mark.parametrize("rule", LINT_RULES.values(), ids=lambda rule: rule.id)
def test_each_rule_has_an_id_a_name_and_a_one_line_rationale(rule: Any) -> None:
    """Rule ids are TGnnn, names kebab-case, rationales one sentence that fits in a table."""
    assert rule.id.startswith("TG")
    assert rule.id[2:].isdigit()
    assert rule.name.replace("-", "").isalpha()
    assert rule.name == rule.name.lower()
    assert rule.rationale.endswith(".")
    assert len(rule.rationale) <= 90
    assert len(rule.description) > len(rule.rationale)


@pytest.mark.parametrize("contract", EXAMPLE_CONTRACTS, ids=lambda path: str(path.parent.name))
def test_example_contracts_pass_lint(contract: Path) -> None:
    """The bundled examples are lint-clean (the project dogfoods its own rules)."""
    report = only(contract)
    assert report.clean, [(f.rule, f.file, f.pointer, f.message) for f in report.findings]


def test_renderers_are_the_cli_formats() -> None:
    """`--format` offers exactly the registered renderers."""
    assert tuple(RENDERERS) == LINT_FORMATS


@pytest.mark.parametrize(
    ("pattern", "bounded"),
    [
        ("^CR-[0-9]{1,10}$", True),
        ("^(?:a{1,3}|b)$", True),
        ("^a$|^b{2}$", True),
        ("^[a-z*+]{1,4}$", True),
        ("^\\+{1,2}$", True),
        ("^[a-z]+$", False),
        ("^a*$", False),
        ("^\\d+$", False),  # the character after an escape is skipped, not the next
        ("^\\.*$", False),
        ("^a{2,}$", False),
        ("^/", False),
        ("[a-z]{1,4}$", False),
        ("^a$|b", False),
        ("^a|b$", False),  # each alternative is anchored at one end only
        ("^(?:a|b)$", True),  # a `|` in a group splits no top-level alternative
        ("^a\\$", False),
    ],
)
def test_bounded_pattern(pattern: str, bounded: bool) -> None:
    """Bounded: every alternative anchored at both ends, no *, + or {n,} outside classes."""
    assert bounded_pattern(pattern) is bounded


def test_schema_toolguard_refuses_is_an_error_not_a_finding(tmp_path: Path) -> None:
    """A schema that does not compile (a typo'd keyword) raises SchemaError naming the file."""
    path = tmp_path / "typo.schema.json"
    path.write_text('{"type": "string", "maxLenght": 3}', encoding="utf-8")
    with pytest.raises(SchemaError) as caught:
        lint_paths([path])
    assert caught.value.source == str(path)


@pytest.mark.parametrize(
    "case",
    [
        "rule_pattern_invalid_regex",
        "run_env_toolguard_name",  # a TOOLGUARD_* variable can never reach the command
        "retry_budget_shorter_than_timeout",  # the budget would cut every attempt short
    ],
)
def test_contract_the_loader_refuses_is_an_error(case: str) -> None:
    """What only the loader checks (a rule's regex, `[run]`/`[retry]`) still refuses it."""
    with pytest.raises(ContractError):
        lint_paths([REPO / "tests/data/contracts/bad" / case / "contract.toml"])


def test_too_many_combinations_are_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    """Past the view budget lint refuses the schema rather than lint only part of it."""
    monkeypatch.setattr("toolguard.lint.walk.MAX_VIEWS", 2)
    with pytest.raises(SchemaError, match="too many"):
        lint_paths([LINT / "TG001" / "pass" / "oneof_closed_variants.schema.json"])


def _mixed_report() -> LintReport:
    """Findings of several rules, a warning, a notice and a waived finding."""
    return lint_paths(
        [
            LINT / "TG001" / "fail" / "ref_to_open_defs_entry.schema.json",
            LINT / "TG017" / "fail" / "waiver_matches_nothing.toml",
            LINT / "TG005" / "pass" / "free_form_map_outside_projection.toml",
            LINT / "TG019" / "fail" / "free_text_projected.toml",
        ]
    )


def test_sarif_output_validates_against_the_official_schema() -> None:
    """The SARIF log (findings, a warning, a note, a suppression) is valid SARIF 2.1.0."""
    assert SARIF_SCHEMA.is_file(), f"no SARIF 2.1.0 schema at {SARIF_SCHEMA}"
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    stream = io.StringIO()
    RENDERERS["sarif"](_mixed_report(), stream)
    log = json.loads(stream.getvalue())
    jsonschema.Draft4Validator.check_schema(schema)
    errors = sorted(jsonschema.Draft4Validator(schema).iter_errors(log), key=str)
    assert not errors, [f"{list(e.absolute_path)}: {e.message}" for e in errors]


def test_sarif_results_locate_findings_and_suppress_waived_ones() -> None:
    """Each result names its rule, file, line and pointer; a waived one carries the reason."""
    report = _mixed_report()
    run = sarif_log(report)["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == list(LINT_RULES)
    first = run["results"][0]
    location = first["locations"][0]
    assert first["ruleId"] == "TG001"
    assert location["physicalLocation"]["region"]["startLine"] == 6
    assert location["logicalLocations"][0]["fullyQualifiedName"] == "/properties/item"
    levels = {result["ruleId"]: result["level"] for result in run["results"]}
    assert levels["TG017"] == "warning"
    (suppressed,) = [result for result in run["results"] if "suppressions" in result]
    assert suppressed["suppressions"][0]["justification"].startswith("provider metadata")


def test_json_output_lists_findings_and_waived() -> None:
    """--format json: one line with the files, each finding located, each waiver's reason."""
    stream = io.StringIO()
    RENDERERS["json"](_mixed_report(), stream)
    (line,) = stream.getvalue().splitlines()
    document = json.loads(line)
    assert {f["rule"] for f in document["findings"]} == {"TG001", "TG017", "TG019"}
    assert set(document["findings"][0]) == {
        "rule",
        "name",
        "message",
        "file",
        "pointer",
        "severity",
        "line",
    }
    (waived,) = document["waived"]
    assert waived["reason"].startswith("provider metadata")
    assert waived["waiver"]["pointer"] == "/lint/waive/0"


def test_a_contract_is_linted_without_the_extra_its_adapter_runs_with(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With jc hidden, lint still lints the jc contract; loading it to check stays refused."""
    monkeypatch.setitem(sys.modules, "jc", None)  # `import jc` raises ImportError
    jc_contract = REPO / "examples" / "disk_usage" / "contract.jc.toml"
    with pytest.raises(ContractError, match=r"toolguard-cli\[jc\]"):
        load_contract(jc_contract)
    report = lint_paths([jc_contract])
    assert report.clean


def test_a_signed_contract_is_linted_without_the_signed_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With joserfc hidden, lint still judges the key set; loading it to check is refused."""
    monkeypatch.setitem(sys.modules, "joserfc", None)
    signed = REPO / "examples" / "review_status_signed" / "contract.toml"
    with pytest.raises(ContractError, match=r"toolguard-cli\[signed\]"):
        load_contract(signed)
    assert lint_paths([signed]).clean
    notice = LINT / "TG020" / "fail" / "published_set_with_unusable_keys.toml"
    assert rules_of(lint_paths([notice])) == {"TG020"}


@pytest.mark.parametrize(
    ("kty", "member", "value", "why"),
    [
        ("EC", "y", "A" * 43, "the point is not on P-256"),
        ("OKP", "x", "AQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQEBAQ", "32 bytes long, this one 31"),
    ],
)
def test_lint_refuses_key_material_without_the_signed_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, kty: str, member: str, value: str, why: str
) -> None:
    """A point off its curve or a short Ed25519 key: lint refuses the set as check does."""
    monkeypatch.setitem(sys.modules, "joserfc", None)
    folder = tmp_path / "signed"
    shutil.copytree(REPO / "examples" / "review_status_signed", folder)
    key_file = folder / "review-service.jwks.json"
    key_set = json.loads(key_file.read_text(encoding="utf-8"))
    next(key for key in key_set["keys"] if key["kty"] == kty)[member] = value
    key_file.write_text(json.dumps(key_set), encoding="utf-8")
    with pytest.raises(ContractError, match=why):
        lint_paths([folder / "contract.toml"])


def test_notices_never_fail_the_run_and_are_sarif_notes() -> None:
    """A notice is reported (rich, JSON, SARIF level note) and leaves the report clean."""
    report = only(LINT / "TG021" / "fail" / "decision_not_bound.toml")
    (finding,) = report.findings
    assert (finding.rule, finding.severity, finding.pointer) == (
        "TG021",
        "notice",
        "/projection/decision",
    )
    assert report.clean
    (result,) = sarif_log(report)["runs"][0]["results"]
    assert result["level"] == "note"
    stream = io.StringIO()
    RENDERERS["text"](report, stream)
    assert "notice TG021 unbound-field" in stream.getvalue()
    assert stream.getvalue().rstrip().endswith("no findings, 1 notice in 2 files")


def test_ignored_keys_are_one_notice_naming_each_key() -> None:
    """Every key set aside is named in one notice at the rule's keys option."""
    report = only(LINT / "TG020" / "fail" / "published_set_with_unusable_keys.toml")
    (finding,) = report.findings
    assert (finding.pointer, finding.line) == ("/rules/0/keys", 14)
    assert "kid 'enc-1') is ignored: its use is 'enc', not 'sig'" in finding.message
    assert "kid 'rsa-1') is ignored: no listed algorithm (EdDSA) can use" in finding.message


def test_claims_pointers_are_read_like_rule_pointers(tmp_path: Path) -> None:
    """A [rules.claims] pointer the schema does not require is TG010, on the claim's line."""
    source = LINT / "TG021" / "pass" / "every_projected_field_bound.toml"
    text = source.read_text(encoding="utf-8").replace('details = "/details"', 'note = "/note"')
    text = text.replace("../../shared/", "")
    for name in ("attested.json", "review.jwks.json"):
        shutil.copy(LINT / "shared" / name, tmp_path / name)
    contract = tmp_path / "claims.toml"
    contract.write_text(text, encoding="utf-8")
    found = {(f.rule, f.pointer) for f in only(contract).findings}
    assert ("TG010", "/rules/0/claims/note") in found


@pytest.mark.parametrize("absolute", [False, True], ids=["relative", "absolute"])
def test_a_file_name_that_is_not_utf8_is_escaped_in_every_format(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, absolute: bool
) -> None:
    """A non-UTF-8 name: SARIF percent-encodes its bytes, JSON escapes it; strict JSON both."""
    folder = tmp_path / os.fsdecode(b"caf\xe9")
    folder.mkdir()
    shutil.copy(LINT / "TG001" / "fail" / "plain_open.schema.json", folder / "s.schema.json")
    monkeypatch.chdir(tmp_path)
    target = folder / "s.schema.json" if absolute else Path(folder.name) / "s.schema.json"
    report = lint_paths([target])
    outputs = {}
    for name, render in RENDERERS.items():
        stream = io.StringIO()
        render(report, stream)
        outputs[name] = stream.getvalue()
        outputs[name].encode("utf-8")  # no lone surrogate left
    for name in ("json", "sarif"):
        parse(outputs[name].encode("utf-8"))  # no lone surrogate escape: strict JSON
    (result,) = json.loads(outputs["sarif"])["runs"][0]["results"]
    uri = result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]
    assert uri.endswith("caf%E9/s.schema.json")
    assert uri.startswith("file:///") == absolute
    assert json.loads(outputs["json"])["files"] == [str(target).replace("\udce9", "\\udce9")]


@pytest.mark.parametrize(
    ("case", "field", "name"),
    [
        ("schema_missing_file", "schema", "missing.schema.json"),
        ("run_error_document_missing_file", "run.error_documents.0.schema", "absent.schema.json"),
    ],
)
def test_a_schema_that_cannot_be_read_blames_the_field_naming_it(
    case: str, field: str, name: str
) -> None:
    """As `check` says it: the contract and its field, then which file and why."""
    contract = Path(__file__).parent / "data" / "contracts" / "bad" / case / "contract.toml"
    with pytest.raises(ContractError) as raised:
        lint_paths([contract])
    error = raised.value
    assert type(error) is ContractError
    assert (error.source, error.field) == (str(contract), field)
    assert error.message == f"cannot read {name}: No such file or directory"


def test_a_passed_if_counts_as_evaluating_what_it_declares() -> None:
    """unevaluatedProperties: false admits what an `if` declares: it is judged where declared."""
    report = only(LINT / "TG001" / "fail" / "if_evaluates_open_member.schema.json")
    assert [(f.rule, f.pointer) for f in report.findings] == [("TG001", "/if/properties/extra")]


def test_dynamic_ref_is_judged_where_the_validator_lands() -> None:
    """A $dynamicRef resolves against its resource and may land on any anchor in scope."""
    for name in ("dynamic_ref_lands_on_open_anchor", "dynamic_ref_pointer_in_its_resource"):
        (finding,) = only(LINT / "TG001" / "fail" / f"{name}.schema.json").findings
        assert (finding.rule, finding.pointer) == ("TG001", "/$defs/list/items")
        assert "$dynamicRef target /$defs/list/$defs/" in finding.message


def test_a_pattern_or_format_that_lets_a_sentence_through_is_free_text() -> None:
    """TG019 notes a string whose pattern or format constrains the form but not the words."""
    report = only(LINT / "TG019" / "fail" / "pattern_or_format_lets_a_sentence_through.toml")
    assert report.clean
    noted = [finding.pointer for finding in report.findings if finding.rule == "TG019"]
    assert noted == ["/properties/note", "/properties/filter", "/properties/path"]
