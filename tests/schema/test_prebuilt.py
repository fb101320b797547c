"""The shipped compiled validators: what the compiler generates, judging as it would."""

from __future__ import annotations

import json
import shutil
import tomllib
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import toolguard.schema.prebuilt
from toolguard.errors import ValidationError
from toolguard.schema import Validator, compile_schema, prebuilt_validator
from toolguard.schema.prebuilt import PREBUILT, source
from toolguard.schema.refs import read_schema
from toolguard.schema.vocabulary import DRAFT_2020_12
from toolguard.shipped import shipped_folder, shipped_schema

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = sorted({*ROOT.glob("examples/*/contract*.toml"), *ROOT.glob("tests/data/**/*.toml")})
SCHEMAS = sorted({*ROOT.glob("examples/*/*.schema.json"), *ROOT.glob("tests/data/**/*.json")})


@pytest.mark.parametrize("name", PREBUILT)
def test_the_shipped_modules_are_what_the_compiler_generates(name: str) -> None:
    """Regenerating gives the committed module byte for byte (else: regenerate and commit)."""
    committed = Path(toolguard.schema.prebuilt.__file__).with_name(f"prebuilt_{name}.py")
    assert source(name) == committed.read_text(encoding="utf-8"), (
        "run: python -m toolguard.schema.prebuilt"
    )


@pytest.fixture(scope="module")
def pairs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Validator, Validator]]:
    """Each validator shipped compiled, beside the same schema compiled now."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(tmp_path_factory.mktemp("c") / "cache"))
        contract = read_schema(shipped_schema("contract.schema.json"))
        compiled = {
            "contract": compile_schema(contract),
            "metaschema": compile_schema({"$ref": DRAFT_2020_12}, formats=False),
        }
    found = {}
    for name in PREBUILT:
        shipped = prebuilt_validator(name)
        assert shipped is not None
        found[name] = (shipped, compiled[name])
    return found


def _verdict(validator: Validator, instance: Any) -> tuple[str, ...] | None:
    try:
        validator.validate(instance)
    except ValidationError as exc:
        return (exc.reason, exc.message, exc.schema_path or "", exc.instance_path or "")
    return None


def _documents() -> list[Any]:
    documents: list[Any] = []
    for path in CONTRACTS:
        try:
            documents.append(tomllib.loads(path.read_text(encoding="utf-8")))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError):
            continue
    return documents


def _schemas() -> list[Any]:
    schemas: list[Any] = []
    for path in SCHEMAS:
        try:
            schemas.append(json.loads(path.read_bytes()))
        except (ValueError, UnicodeDecodeError):
            continue
    return schemas


def test_shipped_and_compiled_judge_every_corpus_document_alike(
    pairs: dict[str, tuple[Validator, Validator]],
) -> None:
    """Every contract and schema in the repository: the same verdict, message and paths."""
    for name, documents in (("contract", _documents()), ("metaschema", _schemas())):
        assert len(documents) > 20
        shipped, compiled = pairs[name]
        for document in documents:
            assert _verdict(shipped, document) == _verdict(compiled, document)


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-3, 70) | st.sampled_from(["", "x", "json", "/a"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner),
    max_leaves=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_shipped_and_compiled_judge_edited_documents_alike(
    pairs: dict[str, tuple[Validator, Validator]], data: st.DataObject
) -> None:
    """A corpus document with a member replaced, added or removed: the same judgement."""
    name = data.draw(st.sampled_from(PREBUILT))
    document = data.draw(st.sampled_from(_CORPUS[name]))
    edited = json.loads(json.dumps(document))
    node = edited
    while isinstance(node, dict) and node and data.draw(st.booleans()):
        child = node[data.draw(st.sampled_from(sorted(node)))]
        if not isinstance(child, dict):
            break
        node = child
    if isinstance(node, dict):
        names = st.sampled_from(sorted(node)) if node else st.nothing()
        key = data.draw(names | st.text(max_size=6))
        if data.draw(st.booleans()) and key in node:
            del node[key]
        else:
            node[key] = data.draw(_VALUES)
    shipped, compiled = pairs[name]
    assert _verdict(shipped, edited) == _verdict(compiled, edited)


_CORPUS = {"contract": _documents(), "metaschema": _schemas()}


def test_an_edited_shipped_schema_is_compiled_not_served_stale(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """When a shipped schema file differs from the one a module was built from: None."""
    folder = tmp_path / "schemas"
    shutil.copytree(shipped_folder(), folder)
    schema = folder / "contract.schema.json"
    schema.write_text(schema.read_text(encoding="utf-8") + "\n", encoding="utf-8")
    monkeypatch.setattr(toolguard.schema.prebuilt, "shipped_folder", lambda: str(folder))
    assert prebuilt_validator("contract") is None
    assert prebuilt_validator("metaschema") is not None
