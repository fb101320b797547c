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
from toolguard.launch import run
try:
    run(sys.argv)
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
    "toolguard.launch",
    "toolguard.signals",
    "toolguard.one_shot",
    "toolguard.cache_folder",
    "toolguard.trusted_paths",
    "toolguard.standins",
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
    return cache / one_shot._name(str(REPO / "toolguard"), command)


def _entry(source: Path, offset: int, length: int) -> tuple[Any, ...]:
    """An index entry for `source` as it is now."""
    return (str(source), one_shot._stamp(source.stat()), False, offset, length)


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
    usual = {name for name, loader in loaders.items() if loader == "SourceFileLoader"}
    assert usual == _BEFORE_START  # the others were kept, the missing one added


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
    written = _bundle(cache).stat()
    bundled = subprocess.run(
        [sys.executable, "-m", "toolguard", *arguments],
        capture_output=True,
        env={**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)},
        check=False,
    )
    assert one_shot._stamp(_bundle(cache).stat()) == one_shot._stamp(written)  # all served
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
    code = marshal.dumps(compile("import os\nos.write(1, b'POISON')\nos._exit(42)\n", "x", "exec"))
    head = marshal.dumps({"toolguard.pipeline": _entry(source, 0, len(code))})
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


def _index_only(offset: int, length: int, code: bytes = b"N" * 10) -> bytes:
    """A bundle whose one entry, `toolguard.pipeline` (unchanged), claims the code at
    `offset` for `length` bytes, and which holds `code`."""
    head = marshal.dumps(
        {"toolguard.pipeline": _entry(REPO / "toolguard" / "pipeline.py", offset, length)}
    )
    return len(head).to_bytes(4, "little") + head + code


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
        _index_only(0, 1),
        _index_only(0, 4, b"\xff\xff\xff\xff"),
        _index_only(0, len(marshal.dumps(b"pass")), marshal.dumps(b"pass")),
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
        "code that is None",
        "code that is no marshal data",
        "code that is bytes",
    ],
)
def test_a_malformed_bundle_costs_time_only_and_is_written_again(
    tmp_path: Path, content: bytes
) -> None:
    """Whatever the bundle holds, the check answers; then the bundle is whole again."""
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
    monkeypatch.setattr(cache_folder, "_warned", False)
    monkeypatch.setattr(one_shot, "_finder", None)
    thresholds = gc.get_threshold()
    path = list(sys.meta_path)
    yield cache
    if cache_folder._opened is not None and cache_folder._opened[1] is not None:
        os.close(cache_folder._opened[1])
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
    """`check` and `run` get the finder and the collector's threshold; nothing else does."""
    one_shot.start(["toolguard", "lint", "contract.toml"])
    assert one_shot._finder is None
    one_shot.start(["toolguard"])
    assert one_shot._finder is None
    default = gc.get_threshold()
    one_shot.start(["toolguard", "run", "--", "true"])
    assert one_shot._finder is not None
    assert sys.meta_path[0] is one_shot._finder
    assert gc.get_threshold() == (one_shot._COLLECT_AFTER, *default[1:])


def test_a_changed_source_is_imported_again_then_taken_again(
    isolated: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Served while the file is the one taken; any change is a miss, and `finish` takes the
    new code.

    NOTE: without a `.pyc` beside the source: the replacement below keeps the size and the
    times, so importlib itself would run a `.pyc` of the old code, and `finish` takes what
    importlib runs.
    """
    monkeypatch.setattr(sys, "dont_write_bytecode", True)
    source = isolated.parent / "probe.py"
    source.write_text("VALUE = 1\n")
    one_shot.start(["toolguard", "check"])
    _import_from(source, "toolguard.probe_value")
    assert one_shot._finder is not None
    one_shot._finder.missed.add("toolguard.probe_value")  # as if the finder had been asked
    one_shot.finish()

    def value() -> Any:
        """What a new process's finder serves for the module, or None."""
        folder, name = cache_folder.opened(), one_shot._name(str(REPO / "toolguard"), "check")
        assert folder is not None
        finder = one_shot._Finder(folder, name, cache_folder.open_file(folder, name))
        spec = finder.find_spec("toolguard.probe_value")
        if spec is None:
            assert finder.missed == {"toolguard.probe_value"}
            return None
        assert isinstance(spec.loader, one_shot._Loader)
        assert spec.origin == str(source)
        code = spec.loader.get_code("toolguard.probe_value")
        assert spec.loader.code is None  # not kept for the process's life once given
        namespace: dict[str, Any] = {}
        exec(code, namespace)
        return namespace["VALUE"]

    assert value() == 1
    assert value() == 1  # served again: reading it changes nothing
    stamp = source.stat()
    source.write_text("VALUE = 2\n")  # the same size, the same times set back...
    os.utime(source, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    assert value() is None  # ... but the change time moved: a .pyc's rule would serve 1 here
    replaced = isolated.parent / "replaced.py"
    replaced.write_text("VALUE = 3\n")
    os.utime(replaced, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
    replaced.replace(source)  # another file at the same path: a reinstall
    assert value() is None

    del sys.modules["toolguard.probe_value"]
    _import_from(source, "toolguard.probe_value")
    one_shot._finder.missed.add("toolguard.probe_value")
    one_shot.finish()
    assert value() == 3


def test_nothing_is_written_when_nothing_could_be_taken(isolated: Path) -> None:
    """A miss with no source file behind it (a sourceless install) leaves the bundle alone."""
    one_shot.start(["toolguard", "check"])
    assert one_shot._finder is not None
    one_shot._finder.missed.add("toolguard.probe_nowhere")
    one_shot.finish()
    assert not _bundle(isolated).exists()


def test_the_name_tells_installs_commands_and_interpreters_apart() -> None:
    """Another folder or command is another bundle; a folder need not be UTF-8."""
    names = {
        one_shot._name("/opt/a/toolguard", "check"),
        one_shot._name("/opt/b/toolguard", "check"),
        one_shot._name("/opt/a/toolguard", "run"),
        one_shot._name("/opt/\udcff/toolguard", "check"),  # a byte of a non-UTF-8 path
    }
    assert len(names) == 4


def test_an_optimised_interpreter_has_a_bundle_of_its_own(tmp_path: Path) -> None:
    """`python -O` runs other byte-code (no asserts): it never reads the plain one's bundle."""
    cache = tmp_path / "cache"
    for flags in ([], ["-O"]):
        done = subprocess.run(
            [sys.executable, *flags, str(REPO / "bin" / "toolguard"), *_check_arguments("job_run")],
            capture_output=True,
            env={**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)},
            check=False,
        )
        assert done.returncode == 0, done.stderr
    assert len(list(cache.glob("modules-*.bin"))) == 2


def test_an_untrusted_cache_is_not_mentioned_by_a_check_that_does_not_use_it(
    tmp_path: Path,
) -> None:
    """The bundle's own look at the folder is quiet: a check refused before any compile says
    nothing about the cache (the compile cache warns when it is used)."""
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    cache.chmod(0o770)
    done = subprocess.run(
        [sys.executable, str(REPO / "bin" / "toolguard"), "check", str(tmp_path / "nothere.toml")],
        capture_output=True,
        env={**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)},
        check=False,
    )
    assert done.returncode == 3, done.stderr  # a contract that cannot be read
    assert b"compile cache not used" not in done.stderr


def test_code_asked_for_again_is_importlibs_own(isolated: Path) -> None:
    """The bundle's code is dropped once given; a second `get_code` reads the source."""
    source = isolated.parent / "probe.py"
    source.write_text("VALUE = 7\n")
    code = compile("VALUE = 7\n", str(source), "exec", dont_inherit=True)
    loader = one_shot._Loader("toolguard.probe_again", str(source), code)
    first = loader.get_code("toolguard.probe_again")
    assert loader.code is None
    assert loader.get_code("toolguard.probe_again") == first


def test_names_outside_toolguard_are_never_served(isolated: Path) -> None:
    """Only `toolguard.*` is looked up, whatever an index holds."""
    one_shot.start(["toolguard", "check"])
    finder = one_shot._finder
    assert finder is not None
    assert finder.find_spec("json") is None
    assert finder.find_spec("toolguardian.x") is None
    assert finder.missed == set()
    finder.entries["json"] = _entry(Path("/dev/null"), 0, 0)  # even if an index said so
    assert finder.find_spec("json") is None


_INTERRUPTED = """
import sys
sys.argv = ["toolguard", *sys.argv[1:]]
from toolguard import one_shot
one_shot.start(sys.argv)

def interrupted(name):
    raise KeyboardInterrupt  # as SIGTERM's handler does, while the bundle is being written

one_shot._taken = interrupted
from toolguard.cli import main
main()
"""


def test_an_interrupt_while_the_bundle_is_written_keeps_the_answer_and_its_status(
    tmp_path: Path,
) -> None:
    """Ctrl-C or SIGTERM during `finish`: the answer already out, its status, no traceback."""
    done = subprocess.run(
        [sys.executable, "-c", _INTERRUPTED, *_check_arguments("job_run")],
        capture_output=True,
        env={**os.environ, "TOOLGUARD_CACHE_DIR": str(tmp_path / "cache")},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert b'"outcome":"success"' in done.stdout
    assert b"Traceback" not in done.stderr


def test_an_index_longer_than_the_bundle_is_never_read_by_its_claim(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A length that claims 2 GiB in a 4-byte file: no buffer is sized by it, the index is empty."""
    bundle = tmp_path / "bundle.bin"
    bundle.write_bytes(b"\xff\xff\xff\x7f")
    asked: list[int] = []
    pread = os.pread

    def spied(fd: int, length: int, offset: int) -> bytes:
        asked.append(length)
        return pread(fd, length, offset)

    monkeypatch.setattr(os, "pread", spied)
    fd = os.open(bundle, os.O_RDONLY)
    try:
        assert one_shot._index(fd) == (0, {})
    finally:
        os.close(fd)
    assert max(asked) <= 1 << 16
