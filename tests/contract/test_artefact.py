"""The contract artefact: a warm load skips TOML, the contract schema and every compile."""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import HOSTILE_FRAGMENTS, mutated_json_texts

import toolguard.contract.envelope_schema
import toolguard.contract.load
import toolguard.schema
import toolguard.schema.locate
import toolguard.schema.refs
from toolguard.contract import Contract, artefact, load_contract
from toolguard.fixtures.discover import Suite, discover
from toolguard.frozen import replace
from toolguard.pipeline import check
from toolguard.request import read_context_file
from toolguard.schema import cache

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "review_status"
RESPONSE = (EXAMPLE / "response.json").read_bytes()
CONTEXT = {"change_id": "CR-1042"}


@pytest.fixture
def contract_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of review_status and an empty cache of its own."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "review_status"
    shutil.copytree(EXAMPLE, folder)
    return folder / "contract.toml"


def _refuse(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError("a warm load did work the artefact should have saved")


def test_a_warm_load_reads_no_toml_checks_no_contract_and_compiles_nothing(
    contract_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The second load is built from the artefact alone, and checks responses the same way."""
    first = load_contract(contract_copy)
    monkeypatch.setattr(toolguard.contract.load, "_decode_toml", _refuse)
    monkeypatch.setattr(toolguard.contract.load, "_contract_validator", _refuse)
    monkeypatch.setattr(toolguard.schema.refs, "read_schema", _refuse)
    monkeypatch.setattr(toolguard.schema.locate, "declared_location", _refuse)
    # what is checked of the document past the contract schema (nothing given twice, ...)
    monkeypatch.setattr(toolguard.contract.load, "_repeats", _refuse)
    monkeypatch.setattr(toolguard.contract.load, "_unprojected_allowances", _refuse)
    monkeypatch.setattr(toolguard.contract.envelope_schema, "envelope_schema", _refuse)
    monkeypatch.setattr(toolguard.contract.load, "compile_schema", _refuse)
    second = load_contract(contract_copy)
    assert second.digest == first.digest
    assert check(second, RESPONSE, request_id="req.00000001", context=CONTEXT).envelope == (
        check(first, RESPONSE, request_id="req.00000001", context=CONTEXT).envelope
    )
    assert second.envelope_schema == first.envelope_schema


def test_an_edited_schema_is_a_miss_never_a_stale_validator(contract_copy: Path) -> None:
    """Narrowing the schema after a load makes the next load reject what it accepted."""
    assert check(load_contract(contract_copy), RESPONSE, context=CONTEXT).envelope["outcome"] == (
        "success"
    )
    schema = contract_copy.parent / "response.schema.json"
    schema.write_text(schema.read_text().replace('"approved"', '"approved-no-more"'))
    reloaded = load_contract(contract_copy)
    assert check(reloaded, RESPONSE, context=CONTEXT).envelope["outcome"] == "failure"


def test_an_edited_contract_is_a_miss(contract_copy: Path) -> None:
    """A changed TOML (here its version) is a new key: the artefact is not reused."""
    load_contract(contract_copy)
    contract_copy.write_text(
        contract_copy.read_text().replace('version = "1.0.0"', 'version = "1.0.1"')
    )
    assert load_contract(contract_copy).version == "1.0.1"


def test_a_corrupt_artefact_is_ignored_and_rebuilt(contract_copy: Path) -> None:
    """Flipped bytes fail the checksum: the contract is compiled again, not trusted."""
    load_contract(contract_copy)
    key = artefact.key(contract_copy, contract_copy.read_bytes())
    assert key is not None
    stored = contract_copy.parents[1] / "cache" / f"contract-{key}.bin"
    blob = bytearray(stored.read_bytes())
    blob[-1] ^= 0xFF
    stored.write_bytes(bytes(blob))
    assert artefact.read(key) is None
    assert check(load_contract(contract_copy), RESPONSE, context=CONTEXT).envelope["outcome"] == (
        "success"
    )
    assert artefact.read(key) is not None


def test_an_empty_cache_setting_turns_the_artefact_off(
    contract_copy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TOOLGUARD_CACHE_DIR='' means every load compiles, and nothing is written."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")
    load_contract(contract_copy)
    monkeypatch.setattr(toolguard.schema, "_conforms_to_metaschema", _refuse)
    with pytest.raises(AssertionError, match="artefact should have saved"):
        load_contract(contract_copy)


def test_a_relative_load_checks_the_same_files_from_any_folder(
    contract_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loaded once by a relative path, the artefact still watches the contract's own schema.

    Another folder holding an old copy of the schema under the same relative name must not
    make an edited schema look unchanged.
    """
    folder = contract_copy.parent
    monkeypatch.chdir(folder)
    load_contract(Path("contract.toml"))
    schema = folder / "response.schema.json"
    decoy = tmp_path / "elsewhere"
    decoy.mkdir()
    shutil.copy(schema, decoy / "response.schema.json")
    schema.write_text(schema.read_text().replace('"approved"', '"approved-no-more"'))
    monkeypatch.chdir(decoy)
    reloaded = load_contract(contract_copy)
    assert check(reloaded, RESPONSE, context=CONTEXT).envelope["outcome"] == "failure"


def test_the_same_contract_in_another_folder_is_checked_against_its_own_schema(
    contract_copy: Path, tmp_path: Path
) -> None:
    """Byte-identical contracts in two folders are two artefacts: each reads the schema beside it.

    The key holds the contract's absolute path: with its bytes alone, the twin would be served
    the first folder's validator, whose schema files are unchanged.
    """
    assert check(load_contract(contract_copy), RESPONSE, context=CONTEXT).envelope["outcome"] == (
        "success"
    )
    twin = tmp_path / "twin"
    shutil.copytree(contract_copy.parent, twin)
    schema = twin / "response.schema.json"
    schema.write_text(schema.read_text().replace('"approved"', '"approved-no-more"'))
    reloaded = load_contract(twin / "contract.toml")
    assert check(reloaded, RESPONSE, context=CONTEXT).envelope["outcome"] == "failure"


SIGNED = EXAMPLE.parent / "review_status_signed"


@pytest.fixture
def signed_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private copy of review_status_signed and an empty cache of its own."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(tmp_path / "cache"))
    folder = tmp_path / "review_status_signed"
    shutil.copytree(SIGNED, folder)
    return folder / "contract.toml"


def test_an_edited_key_set_is_never_served_stale(signed_copy: Path) -> None:
    """Rotating the key set after a warm load: the next load verifies with the new keys only."""
    response = (signed_copy.parent / "response.json").read_bytes()

    def outcome(contract: Any) -> str:
        answer = check(contract, response, context=CONTEXT, now="2026-03-14T09:30:00Z")
        return str(answer.envelope["outcome"])

    first = load_contract(signed_copy)
    warm = load_contract(signed_copy)
    assert outcome(first) == outcome(warm) == "success"
    keys = signed_copy.parent / "review-service.jwks.json"
    document = json.loads(keys.read_text(encoding="utf-8"))
    document["keys"] = document["keys"][1:]  # the Ed25519 key that signed response.json: gone
    keys.write_text(json.dumps(document), encoding="utf-8")
    rotated = load_contract(signed_copy)
    assert outcome(rotated) == "failure"
    assert rotated.digest != first.digest  # the audit record's contract.sha256 follows


def test_the_artefact_records_the_key_set_it_was_built_beside(signed_copy: Path) -> None:
    """The key set's path and digest are among the files a warm load re-hashes."""
    load_contract(signed_copy)
    keys = signed_copy.parent / "review-service.jwks.json"
    raw = signed_copy.read_bytes()
    key = artefact.key(signed_copy, raw)
    assert key is not None
    stored = cache.load(f"contract-{key}")
    files = dict(stored[3])
    assert files[str(keys.absolute())] == cache.file_digest(keys.read_bytes())
    keys.write_text(keys.read_text(encoding="utf-8") + " ", encoding="utf-8")
    assert artefact.read(key) is None  # one byte more: a miss


def test_adding_or_removing_the_hidden_character_opt_out_is_never_served_stale(
    contract_copy: Path,
) -> None:
    """Each edit of [allow_hidden_characters] is a new key: the next check follows the TOML."""
    tagged = RESPONSE.replace(b'"alice@example.com"', b'"alice@example.com\\udb40\\udc41"')
    assert tagged != RESPONSE
    original = contract_copy.read_text()
    opted_out = original + '\n[allow_hidden_characters]\nreviewed_by = "a test of the opt-out"\n'
    outcomes = []
    for text in (original, opted_out, original, opted_out):
        contract_copy.write_text(text)
        for _ in range(2):  # cold, then warm
            contract = load_contract(contract_copy)
            outcomes.append(check(contract, tagged, context=CONTEXT).envelope["outcome"])
    assert outcomes == ["failure"] * 2 + ["success"] * 2 + ["failure"] * 2 + ["success"] * 2


# The warm load is specialised: it takes what a cold load checked and derived from the
# artefact instead of doing it again. A differential test holds it to the cold load: the whole
# bundled fixture corpus, then generated responses, give identical envelopes and diagnostics.
BUNDLED = tuple(
    path
    for path in sorted((EXAMPLE.parent).glob("*/contract.toml"))
    if "signed" not in path.parent.name  # the JOSE extra: its own tests
)


@dataclass(frozen=True)
class _Pair:
    cold: Contract
    warm: Contract
    suite: Suite
    context: dict[str, Any]


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, _Pair]:
    """Each bundled contract loaded cold (no cache) and warm (from its artefact)."""
    found = {}
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(tmp_path_factory.mktemp("warm") / "cache"))
        for path in BUNDLED:
            cold = load_contract(path, cache=False)
            load_contract(path)  # builds the artefact
            assert artefact.read(artefact.key(str(path), path.read_bytes()) or "") is not None
            with pytest.MonkeyPatch.context() as compiling:
                compiling.setattr(toolguard.contract.load, "compile_schema", _refuse)
                warm = load_contract(path)
            shared = path.parent / "context.json"
            context = read_context_file(shared) if shared.exists() else {}
            found[path.parent.name] = _Pair(cold, warm, discover(path), context)
    return found


def _same_outcome(pair: _Pair, raw: bytes, context: dict[str, Any]) -> None:
    settings = pair.suite.settings
    assert settings is not None
    outcomes = [
        check(contract, raw, request_id=settings.request_id, context=context, now=settings.now)
        for contract in (pair.cold, pair.warm)
    ]
    cold, warm = ((o.envelope, replace(o.diagnostics, duration_ms=0.0)) for o in outcomes)
    assert warm == cold


def test_warm_and_cold_contracts_hold_the_same_values(pairs: dict[str, _Pair]) -> None:
    """What a check reads of a contract is the same whether it was built cold or warm."""
    for pair in pairs.values():
        for name in ("tool", "version", "limits", "rules", "projection", "run", "retry", "mcp"):
            assert repr(getattr(pair.warm, name)) == repr(getattr(pair.cold, name)), name
        assert pair.warm.digest == pair.cold.digest
        assert pair.warm.envelope_schema_json == pair.cold.envelope_schema_json
        assert pair.warm.audit == pair.cold.audit


def test_warm_and_cold_agree_on_every_bundled_fixture(pairs: dict[str, _Pair]) -> None:
    """Every accept, reject and history fixture: the same envelope and the same diagnostics."""
    checked = 0
    for pair in pairs.values():
        for case in pair.suite.cases:
            context = read_context_file(case.context_file) if case.context_file else pair.context
            _same_outcome(pair, case.response.read_bytes(), context)
            checked += 1
    assert checked > 100


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_warm_and_cold_agree_on_generated_responses(
    pairs: dict[str, _Pair], data: st.DataObject
) -> None:
    """A fixture with bytes edited, inserted or deleted, or any JSON: the same answers."""
    pair = pairs[data.draw(st.sampled_from(sorted(pairs)))]
    cases = [case for case in pair.suite.cases if case.kind != "reject"]
    base = bytearray(data.draw(st.sampled_from(cases)).response.read_bytes())
    for _ in range(data.draw(st.integers(0, 3))):
        at = data.draw(st.integers(0, len(base)))
        edit = data.draw(st.sampled_from(["insert", "delete", "replace"]))
        if edit == "insert":
            base[at:at] = data.draw(st.sampled_from(HOSTILE_FRAGMENTS))
        elif edit == "delete":
            del base[at : at + data.draw(st.integers(1, 3))]
        else:
            base[at : at + 1] = bytes([data.draw(st.integers(0, 255))])
    raw = data.draw(st.just(bytes(base)) | mutated_json_texts())
    _same_outcome(pair, raw, pair.context)
