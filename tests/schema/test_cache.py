"""The compile cache: served on a repeat, private, verified, and never a point of failure."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import toolguard.schema.cache
import toolguard.schema.generator
import toolguard.schema.keywords
from toolguard.errors import SchemaError
from toolguard.parse import parse
from toolguard.schema import compile_schema
from toolguard.shipped import shipped_schema

SCHEMA = {
    "type": "object",
    "required": ["change_id"],
    "properties": {"change_id": {"type": "string", "pattern": "^CR-[0-9]{1,10}$"}},
    "additionalProperties": False,
}
SAMPLES = [{"change_id": "CR-1"}, {"change_id": "CR-1\n"}, {"change_id": 1}, {}, {"x": 1}]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    # The metaschema checker is built once per process: build it before the folder is set, so
    # each test's folder holds only the entries of the schemas it compiles.
    toolguard.schema._metaschema()
    folder = tmp_path / "cache"
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(folder))
    return folder


@pytest.fixture
def no_compiler(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make fastjsonschema's code generator fail, so only a cache hit can succeed."""

    def refuse(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("compiled instead of loading from the cache")

    monkeypatch.setattr(toolguard.schema.generator, "generate_source", refuse)


def entries(folder: Path) -> list[Path]:
    return sorted(folder.glob("*.bin"))


def test_second_compile_of_the_same_schema_is_served_from_the_cache(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Compiling a schema again loads the stored code instead of generating it."""
    fresh = compile_schema(SCHEMA)
    stored = entries(cache_dir)
    assert len(stored) == 1

    def refuse(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("compiled instead of loading from the cache")

    monkeypatch.setattr(toolguard.schema.generator, "generate_source", refuse)
    cached = compile_schema(SCHEMA)
    assert entries(cache_dir) == stored
    assert [cached.is_valid(s) for s in SAMPLES] == [fresh.is_valid(s) for s in SAMPLES]
    assert [cached.is_valid(s) for s in SAMPLES] == [True, False, False, False, False]


def test_formats_on_and_off_are_cached_apart(cache_dir: Path) -> None:
    """The same schema with formats asserted or not gives two entries and two behaviours."""
    schema = {"type": "string", "format": "date"}
    assert not compile_schema(schema).is_valid("2026-02-30")
    assert compile_schema(schema, formats=False).is_valid("2026-02-30")
    assert not compile_schema(schema).is_valid("2026-02-30")
    assert len(entries(cache_dir)) == 2


def test_cache_directory_is_private_and_entries_are_owner_only(cache_dir: Path) -> None:
    """The folder is created 0700 and each entry is 0600."""
    compile_schema(SCHEMA)
    assert stat.S_IMODE(cache_dir.stat().st_mode) == 0o700
    assert [stat.S_IMODE(entry.stat().st_mode) for entry in entries(cache_dir)] == [0o600]


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(lambda blob: blob[:-1] + bytes([blob[-1] ^ 1]), id="flipped-bit"),
        pytest.param(lambda blob: blob[: len(blob) // 2], id="truncated"),
        pytest.param(lambda blob: b"", id="empty"),
        pytest.param(lambda blob: blob[:32] + b"\x00" * 64, id="garbage-body"),
    ],
)
def test_damaged_entry_is_ignored_and_rewritten(cache_dir: Path, damage: Any) -> None:
    """An entry that fails its checksum is never loaded: the schema is compiled again."""
    compile_schema(SCHEMA)
    [entry] = entries(cache_dir)
    good = entry.read_bytes()
    entry.write_bytes(damage(good))
    validator = compile_schema(SCHEMA)
    assert [validator.is_valid(s) for s in SAMPLES] == [True, False, False, False, False]
    assert entry.read_bytes() == good


def test_a_directory_others_can_write_is_not_used(cache_dir: Path, no_compiler: None) -> None:
    """A cache folder that is group- or world-writable is ignored (compiling would be needed)."""
    cache_dir.mkdir(mode=0o700)
    cache_dir.chmod(0o777)
    with pytest.raises(AssertionError, match="compiled instead"):
        compile_schema(SCHEMA)
    assert entries(cache_dir) == []


def test_empty_cache_setting_turns_the_cache_off(monkeypatch: pytest.MonkeyPatch) -> None:
    """TOOLGUARD_CACHE_DIR='' compiles in memory and writes nothing."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")
    assert compile_schema(SCHEMA).is_valid({"change_id": "CR-7"})


def test_unusable_cache_location_still_compiles(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cache path under a regular file cannot be created; the schema compiles anyway."""
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(blocker / "cache"))
    assert compile_schema(SCHEMA).is_valid({"change_id": "CR-7"})


RACE = """
import sys
from toolguard.errors import SchemaError
from toolguard.parse import parse
from toolguard.schema import compile_schema
schema = {"type": "object", "properties": {"n": {"type": "integer", "maximum": 41}}}
validator = compile_schema(schema)
sys.exit(0 if validator.is_valid({"n": 41}) and not validator.is_valid({"n": 42}) else 1)
"""


def test_processes_racing_on_one_cache_all_succeed(cache_dir: Path) -> None:
    """Eight processes compiling the same new schema at once all get a correct validator."""
    env = {**os.environ, "TOOLGUARD_CACHE_DIR": str(cache_dir)}
    racers = [
        subprocess.Popen([sys.executable, "-c", RACE], env=env, stderr=subprocess.PIPE)
        for _ in range(8)
    ]
    results = []
    for racer in racers:
        _, stderr = racer.communicate(timeout=60)
        results.append((racer.returncode, stderr))
    assert all(status == 0 for status, _ in results), results
    alone = cache_dir.parent / "alone"
    subprocess.run(
        [sys.executable, "-c", RACE], env={**env, "TOOLGUARD_CACHE_DIR": str(alone)}, check=True
    )
    assert len(entries(cache_dir)) == len(entries(alone))  # one entry per schema, not per racer
    assert not list(cache_dir.glob(".tmp-*"))


def test_a_changed_toolguard_is_a_new_cache_entry(cache_dir: Path) -> None:
    """Code generated by older toolguard sources is never reused once a source file changes."""
    compile_schema(SCHEMA)
    generator = Path(toolguard.schema.generator.__file__)
    before = generator.stat()
    try:
        os.utime(generator, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000_000))
        toolguard.schema.cache._fingerprint.cache_clear()
        compile_schema(SCHEMA)
    finally:
        os.utime(generator, ns=(before.st_atime_ns, before.st_mtime_ns))
        toolguard.schema.cache._fingerprint.cache_clear()
    assert len(entries(cache_dir)) == 2


def test_a_hit_skips_checking_and_generating(
    cache_dir: Path, no_compiler: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A schema seen before is not walked, metaschema-checked or generated again."""
    monkeypatch.undo()  # compile once for real, then forbid every step of a compile
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(cache_dir))
    compile_schema(SCHEMA)

    def refuse(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("checked again instead of loading from the cache")

    monkeypatch.setattr(toolguard.schema.keywords, "prepare", refuse)
    monkeypatch.setattr(toolguard.schema, "_conforms_to_metaschema", refuse)
    validator = compile_schema(SCHEMA)
    assert [validator.is_valid(s) for s in SAMPLES] == [True, False, False, False, False]
    assert validator.schema == SCHEMA


def test_an_edited_registry_file_is_never_served_stale(cache_dir: Path, tmp_path: Path) -> None:
    """A `$ref` target edited after a compile makes the next compile see the new file."""
    folder = tmp_path / "registry"
    folder.mkdir()
    target = folder / "n.json"
    target.write_text('{"type": "integer", "maximum": 5}')
    refs = {"https://example.com/": folder}
    schema = {"$ref": "https://example.com/n.json"}
    assert not compile_schema(schema, refs=refs).is_valid(6)
    target.write_text('{"type": "integer", "maximum": 9}')
    assert compile_schema(schema, refs=refs).is_valid(6)
    assert len(entries(cache_dir)) == 1  # one key: the entry was replaced


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ({"const": 1}, {"const": True}),
        ({"const": 1}, {"const": 1.0}),
        ({"enum": [1, 2]}, {"enum": (1, 2)}),
    ],
    ids=["1-vs-true", "1-vs-1.0", "list-vs-tuple"],
)
def test_values_equal_in_python_are_keyed_apart(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch, first: Any, second: Any
) -> None:
    """1, 1.0 and True (or a list and a tuple) compare equal but are different schemas."""
    compile_schema(first)
    from_cache = outcome(lambda: compile_schema(second))
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")
    assert from_cache == outcome(lambda: compile_schema(second))


def outcome(make: Any) -> Any:
    """What a compile gives: the verdicts on a few values, or the refusal."""
    try:
        validator = make()
    except SchemaError as exc:
        return f"refused: {exc}"
    return [validator.is_valid(value) for value in (1, 1.0, True, [1, 2], 2)]


def test_a_schema_marshal_cannot_write_is_compiled_not_cached(cache_dir: Path) -> None:
    """Objects that are not plain data (a dict subclass) never become a cache key."""

    class Schema(dict[str, Any]):
        pass

    outcome(lambda: compile_schema(Schema(type="integer")))
    assert entries(cache_dir) == []


def test_the_stamp_covers_every_shipped_schema(monkeypatch: pytest.MonkeyPatch) -> None:
    """The contract schema is compiled into artefacts: editing it must change the cache key."""
    stamped: list[str] = []
    monkeypatch.setattr(toolguard.schema.cache, "_stamp", lambda root, _: stamped.append(root))
    toolguard.schema.cache._fingerprint.__wrapped__()
    shipped = shipped_schema("contract.schema.json")
    assert any(shipped.is_relative_to(root) for root in stamped)
    assert any(shipped_schema("audit-record.schema.json").is_relative_to(root) for root in stamped)


def test_a_schema_number_written_with_more_digits_than_its_float_is_cached_as_written(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bounds that differ only past their float (an ExactFloat) get entries of their own, and a
    cached one is served with its exact number, in its code and in `Validator.schema`."""
    at_9 = {"maximum": parse(b"9007199254740992.9"), "not": {"const": parse(b"1e300")}}
    at_8 = {"maximum": parse(b"9007199254740992.8"), "not": {"const": parse(b"1e300")}}
    compile_schema(at_9)
    compile_schema(at_8)
    assert len(entries(cache_dir)) == 2
    monkeypatch.setattr(toolguard.schema.generator, "generate_source", _refuse)
    instance = parse(b"9007199254740992.9")
    assert compile_schema(at_9).is_valid(instance)
    assert not compile_schema(at_8).is_valid(instance)
    served = compile_schema(at_9).schema
    assert served == at_9
    assert served["maximum"].exact == Decimal("9007199254740992.9")
    assert served["not"]["const"].integer is False


def _refuse(*args: Any, **kwargs: Any) -> str:
    raise AssertionError("compiled instead of loading from the cache")
