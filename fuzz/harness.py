"""What every target under `fuzz/` shares: instrumentation, the seed corpus, default flags.

`python fuzz/NAME.py [libFuzzer flags] [CORPUS_DIR or FILE ...]`. Without a corpus folder a
target fuzzes `fuzz/corpus/NAME/`, which `seeds.py` first fills from the test fixtures (the
folder is git-ignored: libFuzzer adds what it finds). A file argument replays that one input
(libFuzzer's own behaviour): that is how a finding is re-run. Findings are written to
`fuzz/artifacts/NAME/`. A target module is also importable without atheris, so that
`tests/fuzz/test_targets.py` runs each oracle over the seeds and the regression inputs.
"""

from __future__ import annotations

import atexit
import contextlib
import importlib
import itertools
import os
import pkgutil
import re
import shutil
import sys
import tempfile
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from types import CodeType
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FUZZ = REPO / "fuzz"
REGRESSIONS = REPO / "tests" / "data" / "fuzz"
# libFuzzer's defaults, unless the command line gives its own: an input that runs for more
# than TIMEOUT seconds is a finding (toolguard must answer every input promptly).
TIMEOUT = 25
_NOT_INSTRUMENTED = ("toolguard.__main__",)
# How many distinct generated validators are instrumented; those compiled after run plain.
_GENERATED_INSTRUMENTED = 256


def fuzzing() -> bool:
    """Whether this process is a fuzz target run as a script (not a test importing it)."""
    main = getattr(sys.modules.get("__main__"), "__file__", None)
    return main is not None and Path(main).resolve().parent == FUZZ


@contextlib.contextmanager
def instrumented() -> Iterator[None]:
    """Import toolguard inside this block: under atheris when fuzzing, plainly otherwise.

    Every toolguard module is imported here, so that the deferred imports inside functions
    (the package imports on first use) are instrumented too.
    """
    if not fuzzing():
        yield
        return
    import atheris  # noqa: PLC0415 - only a fuzzing process needs it

    with atheris.instrument_imports(include=["toolguard"]):
        import toolguard  # noqa: PLC0415

        for module in pkgutil.walk_packages(toolguard.__path__, "toolguard."):
            if module.name not in _NOT_INSTRUMENTED:
                with contextlib.suppress(ImportError):  # an optional extra that is absent
                    importlib.import_module(module.name)
    _instrument_generated_validators()
    yield


def _instrument_generated_validators() -> None:
    """Instrument the schema validators toolguard generates, as each is made a function.

    Their code is compiled at run time (or read back from the compile cache) and `exec`uted,
    which the import hook never sees: without this, libFuzzer has no feedback from inside
    schema validation, and cannot tell a response that passes one more keyword from another.
    """
    from atheris.instrument_bytecode import patch_code  # noqa: PLC0415 - fuzzing only

    from toolguard import schema  # noqa: PLC0415
    from toolguard.frozen import replace  # noqa: PLC0415

    plain = schema.function_of
    patched: dict[CodeType, CodeType] = {}

    def function_of(entry: Any) -> Callable[..., Any]:
        # NOTE: instrumenting gives code new counters: the same code must get the same ones
        # (or every input is new coverage), and only so many (they are never freed).
        code = patched.get(entry.code)
        if code is None and len(patched) < _GENERATED_INSTRUMENTED:
            code = patch_code(entry.code, trace_dataflow=True, trace_control_flow=True, nested=True)
            patched[entry.code] = code
        return plain(entry if code is None else replace(entry, code=code))

    schema.function_of = function_of  # the name `Validator.from_entry` looks up


REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})
_ASCII_CONTROLS = re.compile("[\x00-\x09\x0b-\x1f\x7f]")


def assert_escaped(shown: str, where: str) -> None:
    """Assert that text for the operator holds no raw control or hidden character but newlines.

    Diagnostics, notices, `explain`: what a hostile input carried is shown escaped, never
    acted on by the operator's terminal.
    """
    assert not _ASCII_CONTROLS.search(shown), f"{where}: a raw control character: {shown!r}"
    if not shown.isascii():
        for char in shown:
            assert char == "\n" or unicodedata.category(char) not in REFUSED_CATEGORIES, (
                f"{where}: U+{ord(char):04X} raw"
            )


def scratch(name: str, *, cache: bool = False) -> Path:
    """A private folder for this process, removed when it ends.

    libFuzzer ends the process without Python's `atexit`, so a fuzzing process works in
    `fuzz/work/NAME-PID/` instead, and removes there what processes that have ended left.
    With `cache`, a fuzzing process also keeps its compile cache in the folder's `cache/`
    (an entry per distinct input would fill the user's own; the tests keep their own).
    """
    if not fuzzing():
        folder = Path(tempfile.mkdtemp(prefix=f"toolguard-fuzz-{name}-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        return folder
    work = FUZZ / "work"
    work.mkdir(mode=0o700, exist_ok=True)
    for stale in work.glob(f"{name}-*"):
        pid = stale.name.rsplit("-", 1)[1]
        if pid.isdigit() and not Path(f"/proc/{pid}").exists():
            shutil.rmtree(stale, ignore_errors=True)
    folder = work / f"{name}-{os.getpid()}"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir(mode=0o700)
    if cache:
        os.environ["TOOLGUARD_CACHE_DIR"] = str(folder / "cache")
    return folder


def every(count: int, action: Callable[[], None]) -> Callable[[], None]:
    """A call that runs `action` at every `count`-th call.

    A target's scratch cache grows by an entry per distinct input: pruned now and then, not
    per input.
    """
    calls = itertools.count(1)

    def tick() -> None:
        if next(calls) % count == 0:
            action()

    return tick


def prune_contract_artefacts() -> None:
    """Delete the contract artefacts in the private compile cache (one per distinct input).

    A target that loads contracts sets `TOOLGUARD_CACHE_DIR` to a folder of its scratch;
    the compiled schemas stay (far fewer: the mirror's files).
    """
    for entry in Path(os.environ["TOOLGUARD_CACHE_DIR"]).glob("contract-*"):
        entry.unlink(missing_ok=True)


def run(  # noqa: PLR0913 - a target's whole description, all keyword-only
    name: str,
    test_one_input: Callable[[bytes], None],
    *,
    seeds: Callable[[], Mapping[str, bytes]],
    dictionary: Iterable[bytes] = (),
    max_len: int = 4096,
    custom_mutator: Callable[[bytes, int, int], bytes] | None = None,
) -> None:
    """Fuzz `test_one_input` with libFuzzer's command line, adding this project's defaults."""
    if not __debug__:
        sys.exit("the oracles are assert statements: run the fuzz targets without -O")
    import atheris  # noqa: PLC0415 - only a fuzzing process needs it

    argv = list(sys.argv)
    given = [arg for arg in argv[1:] if not arg.startswith("-")]
    flags = {arg.split("=", 1)[0] for arg in argv[1:] if arg.startswith("-")}
    corpus = FUZZ / "corpus" / name
    if not given:
        write_seeds(corpus, seeds())
        argv.append(str(corpus))
    artifacts = FUZZ / "artifacts" / name
    artifacts.mkdir(parents=True, exist_ok=True)
    defaults = {
        "-artifact_prefix": f"{artifacts}/",
        "-max_len": str(max_len),
        "-timeout": str(TIMEOUT),
    }
    words = sorted(set(dictionary))
    if words:
        dict_file = FUZZ / "corpus" / f"{name}.dict"
        dict_file.parent.mkdir(parents=True, exist_ok=True)
        dict_file.write_text("".join(f'"{_escape(word)}"\n' for word in words), "ascii")
        defaults["-dict"] = str(dict_file)
    argv[1:1] = [f"{flag}={value}" for flag, value in defaults.items() if flag not in flags]
    options: dict[str, Any] = {}
    if custom_mutator is not None:
        options["custom_mutator"] = custom_mutator
    atheris.Setup(argv, test_one_input, **options)
    atheris.Fuzz()


def mutate(data: bytes, max_size: int) -> bytes:
    """The mutation libFuzzer itself makes of `data`, for a custom mutator to fall back on."""
    import atheris  # noqa: PLC0415 - only a fuzzing process mutates

    return bytes(atheris.Mutate(data, max_size))


def write_seeds(folder: Path, seeds: Mapping[str, bytes]) -> None:
    """Write each seed as `seed-NAME` (rewritten every start, so an edited fixture is seen)."""
    folder.mkdir(parents=True, exist_ok=True)
    for seed_name, data in seeds.items():
        path = folder / f"seed-{seed_name}"
        if not path.exists() or path.read_bytes() != data:
            path.write_bytes(data)


def regressions(name: str) -> dict[str, bytes]:
    """The minimised inputs of past findings for target `name` (`tests/data/fuzz/NAME/`)."""
    folder = REGRESSIONS / name
    if not folder.is_dir():
        return {}
    return {f"regression-{path.name}": path.read_bytes() for path in sorted(folder.iterdir())}


def _escape(word: bytes) -> str:
    r"""A libFuzzer dictionary entry: printable ASCII as is, other bytes as `\xNN`."""
    return "".join(
        chr(byte) if 0x20 <= byte < 0x7F and byte not in b'"\\' else f"\\x{byte:02x}"
        for byte in word
    )
