"""Loading contracts: good ones become frozen `Contract`s, bad ones name their file and field."""

from __future__ import annotations

import inspect
import json
import tomllib
from pathlib import Path
from typing import Any

import pytest
from signing import ISSUER, ed25519_signer, key_set

import toolguard
from toolguard import ContractError, SchemaError, compile_schema, load_contract
from toolguard.contract import read_contract_document, referenced_files
from toolguard.contract.load import named_paths
from toolguard.pipeline import check
from toolguard.rules import RULE_BY_KIND
from toolguard.shipped import shipped_schema

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted(path.parent for path in (ROOT / "examples").glob("*/contract.toml"))
CONTRACTS = Path(__file__).resolve().parents[1] / "data" / "contracts"
BAD = sorted(path for path in (CONTRACTS / "bad").iterdir() if path.is_dir())
GOOD = sorted(path for path in (CONTRACTS / "good").iterdir() if path.is_dir())
ERROR_BY_NAME = {"ContractError": ContractError, "SchemaError": SchemaError}


def test_fixture_folders_are_not_empty() -> None:
    """Every fixture folder holds a contract, so an empty folder cannot pass silently."""
    assert EXAMPLES
    assert BAD
    assert GOOD
    for case in [*EXAMPLES, *BAD, *GOOD]:
        assert (case / "contract.toml").is_file(), case
    for case in BAD:
        assert (case / "expected.toml").is_file(), case


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
def test_example_contract_loads(example: Path) -> None:
    """Each shipped example loads into a Contract carrying the TOML's tool and projection."""
    document = tomllib.loads((example / "contract.toml").read_text(encoding="utf-8"))
    contract = load_contract(example / "contract.toml")
    assert isinstance(contract, toolguard.Contract)
    assert contract.tool == document["tool"]
    assert contract.version == document["version"]
    assert dict(contract.projection.fields) == document["projection"]
    assert [rule.name for rule in contract.rules] == [
        rule["name"] for rule in document.get("rules", [])
    ]
    assert contract.limits == toolguard.Limits(**document.get("limits", {}))


@pytest.mark.parametrize("case", GOOD, ids=lambda path: path.name)
def test_fixture_contract_loads(case: Path) -> None:
    """Each good fixture contract loads and keeps its tool name."""
    document = tomllib.loads((case / "contract.toml").read_text(encoding="utf-8"))
    assert load_contract(case / "contract.toml").tool == document["tool"]


def test_contract_path_holding_a_nul_is_a_contract_error() -> None:
    """A contract path with a NUL character names no file: a `ContractError`, never a crash."""
    with pytest.raises(ContractError, match="NUL") as info:
        load_contract(str(EXAMPLES[0] / "contract.toml") + "\0")
    assert type(info.value) is ContractError


def test_load_contract_accepts_a_string_path() -> None:
    """load_contract takes a str as well as a Path and records the path it read."""
    path = EXAMPLES[0] / "contract.toml"
    assert load_contract(str(path)).path == path


@pytest.mark.parametrize("example", EXAMPLES, ids=lambda path: path.name)
@pytest.mark.parametrize("attribute", ["tool", "rules", "projection", "limits", "validator"])
def test_contract_is_frozen(example: Path, attribute: str) -> None:
    """Assigning any attribute of a loaded Contract raises instead of changing it."""
    contract = load_contract(example / "contract.toml")
    with pytest.raises(AttributeError):
        setattr(contract, attribute, None)


def test_contract_does_not_grow_new_attributes() -> None:
    """A loaded Contract cannot be given an attribute it was not built with."""
    contract = load_contract(EXAMPLES[0] / "contract.toml")
    # NOTE: CPython 3.11's frozen+slots dataclass raises TypeError here (its generated
    # __setattr__ calls super() on the pre-slots class); either way the write is refused.
    with pytest.raises((AttributeError, TypeError)):
        contract.extra = 1  # type: ignore[attr-defined]
    assert not hasattr(contract, "extra")


def test_contract_projection_map_is_read_only() -> None:
    """The projection field map of a loaded (frozen) Contract cannot be edited in place."""
    contract = load_contract(EXAMPLES[0] / "contract.toml")
    with pytest.raises(TypeError):
        contract.projection.fields["leak"] = "/environment"  # type: ignore[index]


@pytest.mark.parametrize("case", BAD, ids=lambda path: path.name)
def test_bad_contract_names_file_and_field(case: Path) -> None:
    """A bad contract raises the expected error whose source, field and text point at the fault."""
    expected = tomllib.loads((case / "expected.toml").read_text(encoding="utf-8"))
    error_class = ERROR_BY_NAME[expected["error"]]
    with pytest.raises(ContractError) as info:
        load_contract(case / "contract.toml")
    error = info.value
    assert type(error) is error_class
    assert Path(error.source) == case / expected["source"]
    assert error.field == expected["field"]
    text = str(error)
    assert error.source in text
    assert expected["field"] in text
    for needle in expected["mentions"]:
        assert needle in text, f"{needle!r} not in {text!r}"


def test_missing_contract_file_is_a_contract_error(tmp_path: Path) -> None:
    """A contract path that does not exist raises ContractError naming that path."""
    path = tmp_path / "absent.toml"
    with pytest.raises(ContractError) as info:
        load_contract(path)
    assert info.value.source == str(path)
    assert type(info.value) is ContractError


def test_schema_error_is_a_contract_error() -> None:
    """SchemaError subclasses ContractError, so one except clause covers every bad contract."""
    assert issubclass(SchemaError, ContractError)
    assert ContractError("m").exit_status == SchemaError("m").exit_status == 3


def _contract_schema() -> dict[str, Any]:
    return json.loads(shipped_schema("contract.schema.json").read_text(encoding="utf-8"))


def _then_branch(kind: str) -> dict[str, Any]:
    branches = _contract_schema()["$defs"]["rule"]["allOf"]
    matching = [
        branch["then"]
        for branch in branches
        if branch["if"]["properties"]["kind"].get("const") == kind
    ]
    assert len(matching) == 1, f"{kind}: {len(matching)} if/then branches"
    return matching[0]


# A value of the right type for each factory parameter a rule kind may take.
SAMPLE_OPTION = {
    "context": "project",
    "max_age_seconds": 300,
    "max_future_seconds": 30,
    "pattern": "{project}-[0-9]+",
    "keys": "keys.jwks.json",
    "algorithms": ["EdDSA"],
    "issuer": ISSUER,
}


def _factory_options(kind: str) -> tuple[dict[str, Any], set[str]]:
    """(required options with sample values, every option name) of a rule factory.

    Keyword-only parameters are the loader's (`need_library`), never written in a contract.
    """
    parameters = {
        name: parameter
        for name, parameter in inspect.signature(RULE_BY_KIND[kind].build).parameters.items()
        if parameter.kind is not inspect.Parameter.KEYWORD_ONLY
    }
    names = set(parameters) - {"name", "pointer"}
    required = {
        name: SAMPLE_OPTION[name]
        for name, parameter in parameters.items()
        if name in names and parameter.default is inspect.Parameter.empty
    }
    return required, names


def _path_fields(node: Any, field: tuple[str, ...] = ()) -> set[str]:
    """Dotted fields whose schema is `$defs/path` or `$defs/schema_file` (array items: "0")."""
    if not isinstance(node, dict):
        return set()
    if node.get("$ref") in {"#/$defs/path", "#/$defs/schema_file"}:
        return {".".join(field)}
    found = set()
    for name, child in node.get("properties", {}).items():
        found |= _path_fields(child, (*field, name))
    if "items" in node:
        found |= _path_fields(node["items"], (*field, "0"))
    return found


def test_every_path_a_contract_can_name_is_checked_on_load() -> None:
    """`named_paths` yields every field the contract schema types as a path (NUL is refused)."""
    every_path = {
        "schema": "s",
        "run": {"error_documents": [{"schema": "e"}]},
        "audit": {"log": "l", "raw_dir": "r"},
    }
    named = {field for field, _ in named_paths(every_path)}
    assert named == _path_fields(_contract_schema())


def test_meta_schema_kind_enum_equals_registry() -> None:
    """The contract schema's rule-kind enum lists exactly the kinds in RULE_BY_KIND."""
    enum = _contract_schema()["$defs"]["rule"]["properties"]["kind"]["enum"]
    assert len(enum) == len(set(enum))
    assert set(enum) == set(RULE_BY_KIND)


@pytest.mark.parametrize("kind", sorted(RULE_BY_KIND))
def test_every_registered_kind_is_accepted_by_the_meta_schema(kind: str) -> None:
    """A contract using each registered kind with its required options passes the meta-schema."""
    options, _ = _factory_options(kind)
    document = {
        "tool": "probe",
        "version": "1",
        "schema": "response.schema.json",
        "rules": [{"kind": kind, "name": "probe_rule", "pointer": "/field", **options}],
        "projection": {"field": "/field"},
    }
    compile_schema(_contract_schema()).validate(document)
    for option in RULE_BY_KIND[kind].files:  # the loader hands the factory the file's bytes
        options[option] = key_set(ed25519_signer().jwk(), name=options[option])
    rule = RULE_BY_KIND[kind].build(name="probe_rule", pointer="/field", **options)
    assert rule.name == "probe_rule"


@pytest.mark.parametrize("kind", sorted(RULE_BY_KIND))
def test_meta_schema_rule_options_match_factory_parameters(kind: str) -> None:
    """Each kind's meta-schema branch allows exactly its factory's parameters (plus kind)."""
    required, names = _factory_options(kind)
    branch = _then_branch(kind)
    assert set(branch["properties"]) == {"kind", "name", "pointer", *names}
    assert branch["additionalProperties"] is False
    assert set(branch.get("required", [])) == set(required)


def test_every_registered_kind_is_reachable_from_a_contract_file() -> None:
    """The all_rules fixture builds one rule of every registered kind through load_contract."""
    contract = load_contract(CONTRACTS / "good" / "all_rules" / "contract.toml")
    built = {rule.name: type(rule) for rule in contract.rules}
    document = tomllib.loads(
        (CONTRACTS / "good" / "all_rules" / "contract.toml").read_text(encoding="utf-8")
    )
    assert {rule["kind"] for rule in document["rules"]} == set(RULE_BY_KIND)
    assert len(set(built.values())) == len(RULE_BY_KIND)


def test_payload_schema_with_ids_and_anchors_loads_and_projects(tmp_path: Path) -> None:
    """A payload schema that uses $id scopes and $anchor refs gives a working envelope schema."""
    schema = {
        "$id": "https://example.invalid/review.json",
        "type": "object",
        "required": ["decision"],
        "properties": {"decision": {"$ref": "#decision"}},
        "additionalProperties": False,
        "$defs": {"d": {"$anchor": "decision", "enum": ["approved", "rejected"]}},
    }
    (tmp_path / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    (tmp_path / "contract.toml").write_text(
        'tool = "review"\nversion = "1"\nschema = "schema.json"\n'
        '[projection]\ndecision = "/decision"\n',
        encoding="utf-8",
    )
    contract = load_contract(tmp_path / "contract.toml")
    envelope, _ = check(contract, b'{"decision": "approved"}', request_id="req.anchor.01")
    assert envelope["data"] == {"decision": "approved"}
    failure, diagnostics = check(contract, b'{"decision": "maybe"}', request_id="req.anchor.01")
    assert failure["outcome"] == "failure"
    assert diagnostics.layer == "schema"


def test_allow_hidden_characters_is_read_into_the_projection_read_only() -> None:
    """[allow_hidden_characters] becomes the projection's field -> reason map, frozen."""
    contract = load_contract(CONTRACTS / "good" / "hidden_characters" / "contract.toml")
    assert list(contract.projection.allow_hidden) == ["token"]
    assert contract.projection.allow_hidden["token"].startswith("an opaque upstream token")
    with pytest.raises(TypeError):
        contract.projection.allow_hidden["author"] = "no"  # type: ignore[index]


def test_the_mcp_table_is_loaded_as_data() -> None:
    """[mcp]: payload, the server's tool name, the listed description, the context pointers."""
    contract = load_contract(CONTRACTS / "good" / "mcp" / "contract.toml")
    assert contract.mcp.payload == "structured"
    assert contract.mcp.server_tool(contract.tool) == "reviews.get-status"
    assert contract.mcp.description == "Whether a change request is approved."
    assert dict(contract.mcp.context) == {"change_id": "/change/id"}
    assert load_contract(EXAMPLES[0] / "contract.toml").mcp.server_tool("x") == "x"


ALL_CONTRACTS = sorted(
    [*(ROOT / "examples").glob("*/contract*.toml"), *CONTRACTS.glob("good/*/contract.toml")]
)


@pytest.mark.parametrize(
    "contract", ALL_CONTRACTS, ids=lambda path: f"{path.parent.name}/{path.name}"
)
def test_referenced_files_are_every_file_the_loader_reads(contract: Path, tmp_path: Path) -> None:
    """A copy holding only the contract and its referenced files loads like the original."""
    document = read_contract_document(contract)
    names = referenced_files(document)
    assert names[0] == document["schema"]
    copy = tmp_path / "copy" / contract.name
    copy.parent.mkdir()
    copy.write_bytes(contract.read_bytes())
    for name in names:
        (copy.parent / name).parent.mkdir(parents=True, exist_ok=True)
        (copy.parent / name).write_bytes((contract.parent / name).read_bytes())
    assert load_contract(copy).digest == load_contract(contract).digest


def test_referenced_files_name_key_sets_and_error_schemas() -> None:
    """A signed rule's key set and each error document's schema are referenced files."""
    signed = ROOT / "examples" / "review_status_signed" / "contract.toml"
    document = read_contract_document(signed)
    assert referenced_files(document) == (
        "response.schema.json",
        "review-service.jwks.json",
    )
    deploy = ROOT / "examples" / "deploy_status" / "contract.toml"
    document = read_contract_document(deploy)
    assert referenced_files(document) == (
        "response.schema.json",
        "not_found.schema.json",
    )


def test_a_load_without_cache_neither_reads_nor_writes_the_artefact(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """cache=False compiles from the files and stores nothing (a temporary folder's contract)."""
    from toolguard.contract import artefact  # noqa: PLC0415

    def refuse(*args: Any) -> Any:
        raise AssertionError("the artefact was used")

    monkeypatch.setattr(artefact, "read", refuse)
    monkeypatch.setattr(artefact, "write", refuse)
    contract = load_contract(ROOT / "examples" / "job_run" / "contract.toml", cache=False)
    assert contract.tool == "job_run"


def test_a_missing_extra_names_the_extra_the_file_and_the_rule(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Without joserfc, the signed example is refused naming `signed`, its file and its rule."""
    import sys  # noqa: PLC0415

    from toolguard.errors import MissingExtra  # noqa: PLC0415

    monkeypatch.setitem(sys.modules, "joserfc", None)
    contract = ROOT / "examples" / "review_status_signed" / "contract.toml"
    with pytest.raises(MissingExtra) as caught:
        load_contract(contract, cache=False)
    assert (caught.value.extra, caught.value.source, caught.value.field) == (
        "signed",
        str(contract),
        "rules.1",
    )
    assert load_contract(contract, need_extras=False, cache=False).tool == "review_status_signed"


@pytest.mark.parametrize(
    ("holds_contract", "hint"),
    [
        (True, "give the contract file, {folder}/contract.toml"),
        (False, "give a contract file (.toml)"),
    ],
)
def test_a_folder_given_as_the_contract_says_which_file_to_give(
    tmp_path: Path, holds_contract: bool, hint: str
) -> None:
    """`check DIR` (as `test DIR` takes one) names the contract in the folder, or asks for one."""
    folder = tmp_path / "review_status"
    folder.mkdir()
    if holds_contract:
        (folder / "contract.toml").write_text('tool = "x"\n')
    with pytest.raises(ContractError) as raised:
        load_contract(folder)
    expected = f"cannot read contract: not a regular file (a folder): {hint.format(folder=folder)}"
    assert raised.value.message == expected
