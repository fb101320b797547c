"""The compile cache: served on a repeat, private, verified, and never a point of failure."""

from __future__ import annotations

import os
import re
import stat
import subprocess
import sys
import tomllib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest

import toolguard.cache_folder
import toolguard.schema.cache
import toolguard.schema.generator
import toolguard.schema.keywords
from toolguard.errors import SchemaError
from toolguard.parse import parse
from toolguard.schema import compile_schema
from toolguard.shipped import shipped_schema

REPO = Path(__file__).resolve().parents[2]

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


@pytest.fixture
def overlapping(tmp_path: Path) -> tuple[Path, Path]:
    """Two registry folders whose prefixes overlap: `/` holds s/x.json, `/s/` holds x.json."""
    outer, inner = tmp_path / "outer", tmp_path / "inner"
    (outer / "s").mkdir(parents=True)
    inner.mkdir()
    (outer / "s" / "x.json").write_text('{"type": "string"}')
    (inner / "x.json").write_text('{"type": "integer"}')
    return outer, inner


def test_overlapping_registry_prefixes_answer_alike_in_any_order(
    cache_dir: Path, overlapping: tuple[Path, Path]
) -> None:
    """The longest prefix serves a URI: the order the registry is given in changes nothing,
    so the entry of one order is right for the other."""
    outer, inner = overlapping
    schema = {"$ref": "https://example.com/s/x.json"}
    given = [("https://example.com/", outer), ("https://example.com/s/", inner)]
    for registry in (dict(given), dict(given[::-1])):
        assert compile_schema(schema, refs=registry).is_valid(5)
        assert not compile_schema(schema, refs=registry).is_valid("five")
    assert len(entries(cache_dir)) == 1


def test_a_file_appearing_under_a_shorter_prefix_changes_nothing(
    cache_dir: Path, overlapping: tuple[Path, Path]
) -> None:
    """A document served by the longest prefix is not shadowed by a file added elsewhere."""
    outer, inner = overlapping
    (outer / "s" / "x.json").unlink()
    schema = {"$ref": "https://example.com/s/x.json"}
    refs = {"https://example.com/": outer, "https://example.com/s/": inner}
    assert compile_schema(schema, refs=refs).is_valid(5)
    (outer / "s" / "x.json").write_text('{"type": "string"}')
    assert compile_schema(schema, refs=refs).is_valid(5)
    (inner / "x.json").unlink()  # the longest prefix's file gone: no other folder stands in
    with pytest.raises(SchemaError, match="unknown reference"):
        compile_schema(schema, refs=refs)


def test_a_registry_link_pointed_elsewhere_is_never_served_stale(
    cache_dir: Path, tmp_path: Path
) -> None:
    """A registered document that is a symbolic link is re-read through the link."""
    folder = tmp_path / "registry"
    folder.mkdir()
    (folder / "v1.json").write_text('{"type": "integer"}')
    (folder / "v2.json").write_text('{"type": "string"}')
    (folder / "n.json").symlink_to("v1.json")
    refs = {"https://example.com/": folder}
    schema = {"$ref": "https://example.com/n.json"}
    assert compile_schema(schema, refs=refs).is_valid(5)
    (folder / "n.json").unlink()
    (folder / "n.json").symlink_to("v2.json")
    assert not compile_schema(schema, refs=refs).is_valid(5)


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
    monkeypatch.setattr(
        toolguard.schema.cache, "_stamp", lambda root, *_, **__: stamped.append(root)
    )
    toolguard.schema.cache._fingerprint.__wrapped__()
    shipped = shipped_schema("contract.schema.json")
    assert any(shipped.is_relative_to(root) for root in stamped)
    assert any(shipped_schema("audit-record.schema.json").is_relative_to(root) for root in stamped)


# --- who may write the cache: the whole path, and each entry --------------------------------------

NEEDS_ROOT = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to chown to another uid")
OTHER_UID = 65534  # nobody


@pytest.fixture
def warnings(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> Any:
    """The warnings this test's process writes on stderr (the once-per-process flag reset)."""
    monkeypatch.setattr(toolguard.cache_folder, "_warned", False, raising=False)
    return lambda: [line for line in capsys.readouterr().err.splitlines() if line]


def cached_here(folder: Path, monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether compiling SCHEMA with the cache at `folder` writes an entry and then serves it."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(folder))
    toolguard.schema._metaschema()
    compile_schema(SCHEMA)
    if not folder.is_dir() or not entries(folder):
        return False
    with monkeypatch.context() as patch:
        patch.setattr(toolguard.schema.generator, "generate_source", _refuse_compile)
        compile_schema(SCHEMA)
    return True


def _refuse_compile(*args: Any, **kwargs: Any) -> str:
    raise AssertionError("compiled instead of loading from the cache")


@pytest.mark.parametrize("mode", [0o775, 0o777], ids=["group-writable", "world-writable"])
def test_an_ancestor_others_can_write_bypasses_the_cache_with_one_warning(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warnings: Any, mode: int
) -> None:
    """A non-sticky folder above the cache that others may write: compile in memory, warn once."""
    shared = tmp_path / "shared"
    (shared / "home").mkdir(parents=True)
    shared.chmod(mode)
    assert not cached_here(shared / "home" / "cache", monkeypatch)
    compile_schema({"type": "integer"})
    assert not (shared / "home" / "cache").exists()  # nothing written, not even the folder
    assert warnings() == [
        f"toolguard: warning: compile cache not used: {shared} is writable by group or others "
        "(and not sticky); every run compiles in memory, as slowly as a first run: make that "
        "path writable by you alone, or set TOOLGUARD_CACHE_DIR to a folder only you can write "
        "(set empty: no cache, no warning)"
    ]


def test_a_sticky_world_writable_ancestor_keeps_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warnings: Any
) -> None:
    """A /tmp-like folder (1777) two levels up is allowed: the cache is used, silently."""
    sticky = tmp_path / "tmp"
    (sticky / "mine").mkdir(parents=True, mode=0o700)
    sticky.chmod(0o1777)
    assert cached_here(sticky / "mine" / "cache", monkeypatch)
    assert warnings() == []


@pytest.mark.parametrize("where", ["folder", "parent"])
def test_a_sticky_world_writable_cache_or_parent_is_bypassed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warnings: Any, where: str
) -> None:
    """The cache folder itself, or its parent, sticky and world-writable: not used."""
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    cache = sticky if where == "folder" else sticky / "cache"
    assert not cached_here(cache, monkeypatch)
    assert list(sticky.iterdir()) == []
    assert len(warnings()) == 1


def entry_for(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Compile SCHEMA with the cache at `folder`; the one entry it wrote."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(folder))
    toolguard.schema._metaschema()
    compile_schema(SCHEMA)
    [entry] = entries(folder)
    return entry


def served(monkeypatch: pytest.MonkeyPatch) -> bool:
    """Whether compiling SCHEMA again is served from the cache (no code generated)."""
    with monkeypatch.context() as patch:
        patch.setattr(toolguard.schema.generator, "generate_source", _refuse_compile)
        try:
            compile_schema(SCHEMA)
        except AssertionError:
            return False
    return True


def test_an_intact_entry_of_this_user_is_served(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The control for the entry tests below: an untouched entry is a hit."""
    entry_for(cache_dir, monkeypatch)
    assert served(monkeypatch)


def test_an_entry_that_is_a_symbolic_link_is_not_read(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry name linking to a valid entry elsewhere is never followed: compiled again."""
    entry = entry_for(cache_dir, monkeypatch)
    elsewhere = tmp_path / "planted.bin"
    entry.rename(elsewhere)
    entry.symlink_to(elsewhere)
    assert not served(monkeypatch)
    compile_schema(SCHEMA)
    assert not entry.is_symlink()  # replaced by a fresh entry, not written through


def test_a_hard_linked_entry_is_not_read(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry with a second link (another path's file too) is not read."""
    entry = entry_for(cache_dir, monkeypatch)
    os.link(entry, tmp_path / "second-link")
    assert not served(monkeypatch)


def test_an_entry_others_can_write_is_not_read(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry writable by group or others is not read, intact as it may be."""
    entry = entry_for(cache_dir, monkeypatch)
    entry.chmod(0o622)
    assert not served(monkeypatch)


@NEEDS_ROOT
def test_an_entry_of_another_user_is_not_read(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An entry owned by another uid is not read."""
    entry = entry_for(cache_dir, monkeypatch)
    os.chown(entry, OTHER_UID, -1)
    assert not served(monkeypatch)


@NEEDS_ROOT
def test_an_ancestor_of_another_user_bypasses_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, warnings: Any
) -> None:
    """A folder above the cache owned by someone else (not root) could be swapped: bypass."""
    theirs = tmp_path / "theirs"
    theirs.mkdir(mode=0o755)
    os.chown(theirs, OTHER_UID, -1)
    assert not cached_here(theirs / "cache", monkeypatch)
    assert "belongs to uid 65534" in warnings()[0]


WARN_ONCE = """
from toolguard.schema import compile_schema
for maximum in range(3):
    compile_schema({"type": "integer", "maximum": maximum})
"""


def test_an_untrusted_cache_warns_once_per_process(tmp_path: Path) -> None:
    """Three compiles (three loads, three stores refused) give one line on stderr."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    env = {**os.environ, "TOOLGUARD_CACHE_DIR": str(shared / "cache")}
    done = subprocess.run(
        [sys.executable, "-c", WARN_ONCE], env=env, capture_output=True, check=True, timeout=60
    )
    assert done.stderr.decode().count("toolguard: warning: compile cache not used") == 1
    assert not (shared / "cache").exists()


def test_the_path_is_walked_once_per_process(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Loads and stores after the first reuse the folder opened then: one walk per process."""
    walks: list[str] = []
    real = toolguard.cache_folder.open_folder

    def counted(path: str, **options: bool) -> int:
        walks.append(path)
        return real(path, **options)

    monkeypatch.setattr(toolguard.cache_folder, "open_folder", counted)
    monkeypatch.setattr(toolguard.cache_folder, "_opened", None)
    for maximum in range(3):
        compile_schema({"type": "integer", "maximum": maximum})  # a load and a store each
    assert walks == [str(cache_dir)]
    assert len(entries(cache_dir)) == 3


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


def test_the_stamp_leaves_out_exactly_the_layers_above_contract() -> None:
    """What the stamp skips is what the import rule keeps `contract` and the stages from
    importing: the layers above `contract` in pyproject.toml, each a folder or a module."""
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    layers = next(
        contract["layers"]
        for contract in config["tool"]["importlinter"]["contracts"]
        if contract.get("type") == "layers"
    )
    above = [
        name.strip()
        for layer in layers[: layers.index("contract")]
        for name in re.split("[|:]", layer)
    ]
    package = REPO / "toolguard"
    expected = {name if (package / name).is_dir() else f"{name}.py" for name in above}
    assert all((package / name).exists() for name in expected)
    assert expected == toolguard.schema.cache.NEVER_BUILD_CACHED
