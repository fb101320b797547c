"""A one-shot command's start: toolguard's modules from the bundle, exactly as imported.

The bundle is code the command runs, so the tests hold it to the cache folder's rules (a file
another user could have written is never served), to its staleness rule (a changed source is
imported again, then taken again), and to the one promise that matters: a command served from
the bundle answers exactly as one that imported its modules the usual way.
"""

from __future__ import annotations

import ast
import gc
import marshal
import os
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from toolguard import cache_folder, one_shot

if TYPE_CHECKING:
    from collections.abc import Iterator

REPO = Path(__file__).resolve().parent.parent
EXAMPLES = REPO / "examples"
# NOTE: as `bin/toolguard` starts, then reports how each of toolguard's modules was loaded.
_PROBE = """
import io, os, sys
sys.argv = ["toolguard", *sys.argv[1:]]
stdout = sys.stdout
sys.stdout = io.StringIO()
os._exit = sys.exit  # a check leaves with os._exit; the probe reports first
from toolguard.one_shot import start
start(sys.argv)
try:
    from toolguard.cli import main
    main()
except SystemExit as exit:
    status = exit.code
loaders = {
    name: type(module.__spec__.loader).__name__
    for name, module in sys.modules.items()
    if name.startswith("toolguard.") and module.__spec__ is not None
}
stdout.write(repr((int(status or 0), sys.stdout.getvalue(), loaders)))
"""
# Loaded before `start` can serve anything: the package and what reads the bundle.
_BEFORE_START = {
    "toolguard.one_shot",
    "toolguard.cache_folder",
    "toolguard.files",
    "toolguard.standins",
    "toolguard.text",
    "toolguard.digest",
}


def _check_arguments(example: str, response: str | None = None) -> list[str]:
    folder = EXAMPLES / example
    arguments = ["check", str(folder / "contract.toml"), "--request-id", "req.bundle.0001"]
    arguments += ["--input", str(folder / (response or "response.json"))]
    if (folder / "context.json").exists():
        arguments += ["--context-file", str(folder / "context.json")]
    return [*arguments, "--now", "2026-03-14T09:28:00Z"]


def _probe(arguments: list[str], cache: Path) -> tuple[int, str, dict[str, str]]:
    """A command run as `bin/toolguard` runs it: status, stdout, each module's loader."""
    environment = {**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)}
    for name in ("TOOLGUARD_AUDIT_LOG", "TOOLGUARD_RAW_DIR"):
        environment.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *arguments],
        capture_output=True,
        env=environment,
        check=True,
    )
    status, stdout, loaders = ast.literal_eval(done.stdout.decode())
    return status, stdout, loaders


def _bundle(cache: Path, command: str = "check") -> Path:
    return cache / one_shot._name(command)


def test_the_second_check_runs_toolguard_from_the_bundle_and_answers_the_same(
    tmp_path: Path,
) -> None:
    """The first run imports as usual and writes the bundle; the second is served from it."""
    cache = tmp_path / "cache"
    first = _probe(_check_arguments("job_run"), cache)
    assert _bundle(cache).is_file()
    assert "_Loader" not in first[2].values()
    second = _probe(_check_arguments("job_run"), cache)
    assert second[:2] == first[:2]
    assert second[0] == 0
    assert '"outcome":"success"' in second[1]
    served = {name for name, loader in second[2].items() if loader == "_Loader"}
    assert served == set(second[2]) - _BEFORE_START
    assert len(served) > 30


def _drop(bundle: Path, name: str) -> None:
    """Rewrite `bundle` without module `name` (its code stays, unreferenced)."""
    blob = bundle.read_bytes()
    start = 4 + int.from_bytes(blob[:4], "little")
    index = marshal.loads(blob[4:start])
    del index[name]
    head = marshal.dumps(index)
    bundle.write_bytes(len(head).to_bytes(4, "little") + head + blob[start:])


def test_a_module_the_bundle_lacks_is_imported_and_then_added(tmp_path: Path) -> None:
    """A module missing from the bundle is imported as usual, then bundled for the next run."""
    cache = tmp_path / "cache"
    _probe(_check_arguments("job_run"), cache)
    _drop(_bundle(cache), "toolguard.pipeline")
    status, _, loaders = _probe(_check_arguments("job_run"), cache)
    assert status == 0
    usual = {name for name, loader in loaders.items() if loader == "SourceFileLoader"}
    assert usual == _BEFORE_START | {"toolguard.pipeline"}
    status, _, loaders = _probe(_check_arguments("job_run"), cache)
    assert status == 0
    assert loaders["toolguard.pipeline"] == "_Loader"


@pytest.mark.parametrize(
    "response",
    [
        "response.json",
        "fixtures/reject/decision_not_in_enum.json",
        "fixtures/reject/duplicate_member.json",
    ],
)
def test_served_and_imported_code_give_the_same_answers(tmp_path: Path, response: str) -> None:
    """The envelope and the status are the same with the bundle as without one."""
    if not (EXAMPLES / "review_status" / response).exists():
        pytest.fail(f"missing fixture {response}")
    arguments = [*_check_arguments("review_status", response), "--diagnostics", "json"]
    usual = subprocess.run(
        [sys.executable, "-m", "toolguard", *arguments],
        capture_output=True,
        env={**os.environ, "TOOLGUARD_CACHE_DIR": ""},  # no cache, so no bundle
        check=False,
    )
    cache = tmp_path / "cache"
    for _ in range(2):
        bundled = subprocess.run(
            [sys.executable, "-m", "toolguard", *arguments],
            capture_output=True,
            env={**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)},
            check=False,
        )
    assert _bundle(cache).is_file()
    assert (bundled.returncode, bundled.stdout) == (usual.returncode, usual.stdout)
    assert _without_times(bundled.stderr) == _without_times(usual.stderr)


def _without_times(stderr: bytes) -> list[Any]:
    """Diagnostics as JSON lines, without the milliseconds a run took."""
    import json  # noqa: PLC0415

    lines = [json.loads(line) for line in stderr.splitlines()]
    for line in lines:
        del line["duration_ms"]
    return lines


def _poisoned_bundle(cache: Path) -> None:
    """A bundle whose `toolguard.pipeline` writes a marker and stops: served, it shows."""
    source = REPO / "toolguard" / "pipeline.py"
    info = source.stat()
    code = marshal.dumps(compile("import os\nos.write(1, b'POISON')\nos._exit(42)\n", "x", "exec"))
    entry = (str(source), info.st_size, info.st_mtime_ns, False, 0, len(code))
    head = marshal.dumps({"toolguard.pipeline": entry})
    cache.mkdir(mode=0o700, exist_ok=True)
    _bundle(cache).write_bytes(len(head).to_bytes(4, "little") + head + code)
    _bundle(cache).chmod(0o600)


def _run_check(cache: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, str(REPO / "bin" / "toolguard"), *_check_arguments("job_run")],
        capture_output=True,
        env={**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)},
        check=False,
    )


def test_a_bundle_this_user_alone_could_write_is_served(tmp_path: Path) -> None:
    """The counterpart of the refusals below: the same poisoned file, trusted, is run."""
    cache = tmp_path / "cache"
    _poisoned_bundle(cache)
    done = _run_check(cache)
    assert (done.returncode, done.stdout) == (42, b"POISON")


@pytest.mark.parametrize("how", ["group-writable", "symbolic link", "hard link"])
def test_a_bundle_others_could_have_written_is_never_served(tmp_path: Path, how: str) -> None:
    """Served code must come from this user alone: otherwise modules are imported as usual."""
    cache = tmp_path / "cache"
    _poisoned_bundle(cache)
    bundle = _bundle(cache)
    if how == "group-writable":
        bundle.chmod(0o620)
    else:
        elsewhere = tmp_path / "elsewhere.bin"
        bundle.rename(elsewhere)
        if how == "symbolic link":
            bundle.symlink_to(elsewhere)
        else:
            os.link(elsewhere, bundle)
    done = _run_check(cache)
    assert done.returncode == 0, done.stderr
    assert b"POISON" not in done.stdout
    assert b'"outcome":"success"' in done.stdout


def test_a_bundle_in_a_folder_others_can_write_is_never_served(tmp_path: Path) -> None:
    """The folder's rule too: one warning (from the compile cache), the usual imports."""
    cache = tmp_path / "cache"
    _poisoned_bundle(cache)
    cache.chmod(0o770)
    done = _run_check(cache)
    assert done.returncode == 0
    assert b"POISON" not in done.stdout
    assert done.stderr.decode().count("compile cache not used") == 1


def _index_only(offset: int, length: int) -> bytes:
    """A bundle whose one entry, `toolguard.pipeline` (unchanged), claims the code at
    `offset` for `length` bytes, and which holds 10 bytes of code."""
    source = REPO / "toolguard" / "pipeline.py"
    info = source.stat()
    entry = (str(source), info.st_size, info.st_mtime_ns, False, offset, length)
    head = marshal.dumps({"toolguard.pipeline": entry})
    return len(head).to_bytes(4, "little") + head + b"N" * 10


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00",
        b"\xff\xff\xff\x7f",
        b"\x05\x00\x00\x00garbage",
        b"\x03\x00\x00\x00N",
        _index_only(0, 11),
        _index_only(5, -1),
        _index_only(-1, 2),
        _index_only(0, 1 << 40),
    ],
    ids=[
        "empty",
        "short",
        "huge index",
        "garbage",
        "not a dict",
        "code past the end",
        "negative length",
        "negative offset",
        "absurd length",
    ],
)
def test_a_malformed_bundle_costs_time_only_and_is_written_again(
    tmp_path: Path, content: bytes
) -> None:
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    _bundle(cache).write_bytes(content)
    _bundle(cache).chmod(0o600)
    done = _run_check(cache)
    assert done.returncode == 0, done.stderr
    assert b'"outcome":"success"' in done.stdout
    assert len(_bundle(cache).read_bytes()) > 100_000  # taken again, whole


# --- in process: the finder itself ---------------------------------------------------------------


@pytest.fixture
def isolated(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A private cache, no finder left behind, the collector's thresholds restored."""
    cache = tmp_path / "cache"
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(cache))
    monkeypatch.setattr(cache_folder, "_opened", None)
    monkeypatch.setattr(one_shot, "_finder", None)
    thresholds = gc.get_threshold()
    path = list(sys.meta_path)
    yield cache
    sys.meta_path[:] = path
    gc.set_threshold(*thresholds)
    for name in [name for name in sys.modules if name.startswith("toolguard.probe_")]:
        del sys.modules[name]


def _import_from(source: Path, name: str) -> Any:
    """Import `source` as `name` the usual way (through the path finder's own loader)."""
    from importlib.util import module_from_spec, spec_from_file_location  # noqa: PLC0415

    spec = spec_from_file_location(name, source)
    assert spec is not None
    assert spec.loader is not None
    module = module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def test_only_the_one_shot_commands_start_from_a_bundle(isolated: Path) -> None:
    one_shot.start(["toolguard", "lint", "contract.toml"])
    assert one_shot._finder is None
    one_shot.start(["toolguard"])
    assert one_shot._finder is None
    default = gc.get_threshold()
    one_shot.start(["toolguard", "run", "--", "true"])
    assert one_shot._finder is not None
    assert sys.meta_path[0] is one_shot._finder
    assert gc.get_threshold() == (one_shot._COLLECT_AFTER, *default[1:])


def test_a_changed_source_is_imported_again_then_taken_again(isolated: Path) -> None:
    """Served while size and mtime hold; a change is a miss, and `finish` takes the new code."""
    source = isolated.parent / "probe.py"
    source.write_text("VALUE = 1\n")
    one_shot.start(["toolguard", "check"])
    _import_from(source, "toolguard.probe_value")
    assert one_shot._finder is not None
    one_shot._finder.missed.add("toolguard.probe_value")  # as if the finder had been asked
    one_shot.finish()

    def value() -> Any:
        """What a new process's finder serves for the module, or None."""
        folder, name = cache_folder.opened(), one_shot._name("check")
        assert folder is not None
        finder = one_shot._Finder(folder, name, cache_folder.open_file(folder, name))
        spec = finder.find_spec("toolguard.probe_value")
        if spec is None:
            assert finder.missed == {"toolguard.probe_value"}
            return None
        assert isinstance(spec.loader, one_shot._Loader)
        assert spec.origin == str(source)
        code = spec.loader.get_code("toolguard.probe_value")
        assert spec.loader.code is None  # not kept for the process's life once read
        namespace: dict[str, Any] = {}
        exec(code, namespace)
        return namespace["VALUE"]

    assert value() == 1
    stamp = source.stat()
    source.write_text("VALUE = 2\n")  # the same size...
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert value() == 1  # ... and the same time: served (the rule is the stat, as for a .pyc)
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns + 1))
    assert value() is None  # a nanosecond later
    source.write_text("VALUE = 333\n")
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert value() is None  # another size

    del sys.modules["toolguard.probe_value"]
    _import_from(source, "toolguard.probe_value")
    one_shot._finder.missed.add("toolguard.probe_value")
    one_shot.finish()
    assert value() == 333


def test_code_asked_for_again_is_importlibs_own(isolated: Path) -> None:
    """The bundle's bytes are dropped once read; a second `get_code` reads the source."""
    source = isolated.parent / "probe.py"
    source.write_text("VALUE = 7\n")
    loader = one_shot._Loader(
        "toolguard.probe_again",
        str(source),
        marshal.dumps(compile("VALUE = 7\n", str(source), "exec", dont_inherit=True)),
    )
    first = loader.get_code("toolguard.probe_again")
    assert loader.code is None
    assert loader.get_code("toolguard.probe_again") == first


def test_names_outside_toolguard_are_never_served(isolated: Path) -> None:
    one_shot.start(["toolguard", "check"])
    finder = one_shot._finder
    assert finder is not None
    assert finder.find_spec("json") is None
    assert finder.find_spec("toolguardian.x") is None
    assert finder.missed == set()
    finder.entries["json"] = ("/dev/null", 0, 0, False, 0, 0)  # even if an index said so
    assert finder.find_spec("json") is None
