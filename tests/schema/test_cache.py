"""The compile cache: served on a repeat, private, verified, and never a point of failure."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import toolguard.schema.cache
import toolguard.schema.generator
from toolguard.schema import compile_schema

SCHEMA = {
    "type": "object",
    "required": ["change_id"],
    "properties": {"change_id": {"type": "string", "pattern": "^CR-[0-9]{1,10}$"}},
    "additionalProperties": False,
}
SAMPLES = [{"change_id": "CR-1"}, {"change_id": "CR-1\n"}, {"change_id": 1}, {}, {"x": 1}]


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
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
    assert len(entries(cache_dir)) == 1

    def refuse(*args: Any, **kwargs: Any) -> str:
        raise AssertionError("compiled instead of loading from the cache")

    monkeypatch.setattr(toolguard.schema.generator, "generate_source", refuse)
    cached = compile_schema(SCHEMA)
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


def test_a_changed_generator_is_a_new_cache_entry(
    cache_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Code generated by an older generator is never reused once the generator changes."""
    compile_schema(SCHEMA)
    monkeypatch.setattr(toolguard.schema.cache, "_generator_digest", lambda: "another generator")
    compile_schema(SCHEMA)
    assert len(entries(cache_dir)) == 2
