"""How a one-shot command (`check`, `run`) starts: its code from one file, no collector passes.

A 1 KB `check` is mostly start-up, and about 50 of toolguard's modules are on its path. Each
import through Python's path finder costs about 66 µs of machinery (a spec built, folders
listed, a `.pyc` opened, checked and read) before its code runs: together about a tenth of
starting Python. And the collector, at its default threshold, walks what start-up builds
(modules, functions, classes: none of it garbage) six times: about a millisecond. The
`toolguard` command (`bin/toolguard`, `python -m toolguard`) calls `start` first: a one-shot
command then reads toolguard's modules from one file, the module bundle, and collects only
after 50,000 new objects, not 700. `finish` writes the bundle again when the process had to
import some of them the usual way (the first run, or a changed source).

Served code is what the usual import runs: `importlib`'s own `SourceFileLoader.get_code` gave
it (the `.pyc`, or the source compiled), with the same file names, specs and attributes; only
the loader's class differs (`_Loader`, a `SourceFileLoader`). A damaged entry (not a code
object) is a miss, like a changed source.

Staleness: a module is served only while its source file is the same file (device, inode)
with the size, modification and change times (in nanoseconds) it had when its code was taken:
stricter than CPython's rule for a `.pyc` (size and second of modification), since the bundle
outlives an install (`_stamp`). Otherwise it is imported the usual way and `finish` takes it
again. The bundle is named after toolguard's folder, the interpreter's magic number and cache
tag, the optimisation level and the command, so two installs that share a cache never read
each other's. `-B` and `PYTHONDONTWRITEBYTECODE` do not stop it being written: it is the
cache's, not a `.pyc`.

Trust: the bundle is code this process runs, so it lives in the cache folder and is read and
written under its rules (`cache_folder.py`: only this user may have changed the folder or the
file). It carries no digest of its own: hashing its megabyte would cost what the bundle saves,
and it is written by one rename, so no reader sees half of it; a `.pyc` has no digest either.
Anything odd (no cache, an unreadable or malformed bundle, a changed source) costs time only.
"""

from __future__ import annotations

import _frozen_importlib_external
import gc
import marshal
import os
import sys

from toolguard import cache_folder
from toolguard.digest import sha256_hex

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from importlib.machinery import ModuleSpec
    from types import CodeType, ModuleType

# The commands that answer once and end: start-up is most of what they cost (a long-running
# `serve` or `mcp` starts once; the other commands are for people). Once their stdout and
# stderr are flushed their answer is whole (each file they write is written with `os.write` and
# closed before they exit), so they also end without tearing down (`cli`).
COMMANDS = frozenset({"check", "run"})
# NOTE: the collector's first threshold for them (Python's is 700): a warm check's start-up
# leaves some 4,500 objects that live as long as the process, which the default threshold
# walked six times. Garbage is still collected, in larger steps.
_COLLECT_AFTER = 50_000
_PACKAGE = "toolguard"
# The file: the length of the index (4 bytes, little-endian), the marshalled index, then each
# module's marshalled code, read one module at a time (`os.pread`), so that modules this process
# never imports cost nothing. The index maps a module's name to its source file, that file's
# stamp (`_stamp`), whether it is a package, and where its code is after the index.
_Stamp = tuple[int, int, int, int, int]
_Entry = tuple[str, _Stamp, bool, int, int]
_LENGTH = 4
_FIRST_READ = 1 << 16
_CODE = type((lambda: None).__code__)  # `types.CodeType`, without importing `types`


class _Loader(_frozen_importlib_external.SourceFileLoader):
    """`importlib`'s loader for a source file, whose code comes from the bundle."""

    def __init__(self, fullname: str, path: str, code: CodeType) -> None:
        super().__init__(fullname, path)
        self.code: CodeType | None = code

    def get_code(self, fullname: str) -> CodeType | None:
        """The module's code, as the bundle held it; `importlib`'s own after the first call.

        NOTE: the code is dropped once given: kept, every module's would stay in memory for the
        process's life. A later call (a tool asking for the code again) reads the source as the
        usual loader does.
        """
        code, self.code = self.code, None
        return code if code is not None else super().get_code(fullname)


class _Finder:
    """Serves toolguard's modules from the bundle and notes those it could not serve."""

    def __init__(self, folder: int, name: str, bundle: int | None) -> None:
        self.folder = folder
        self.name = name
        self.bundle = bundle  # the open file, kept for the process (a rename leaves it whole)
        self.offset, self.entries = _index(bundle) if bundle is not None else (0, {})
        self.missed: set[str] = set()

    def find_spec(
        self, fullname: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        """The spec of a bundled module whose source is unchanged; None for all others."""
        if not fullname.startswith(f"{_PACKAGE}."):
            return None
        entry = self.entries.get(fullname)
        code = _code(self.read(entry)) if entry is not None and _unchanged(entry) else None
        if entry is None or code is None:
            self.missed.add(fullname)  # imported the usual way, then taken again (`finish`)
            return None
        source, package = entry[0], entry[2]
        return _frozen_importlib_external.spec_from_file_location(
            fullname,
            source,
            loader=_Loader(fullname, source, code),
            submodule_search_locations=[] if package else None,
        )

    def read(self, entry: _Entry) -> bytes | None:
        """An entry's marshalled code; None if the file does not hold all of it."""
        offset, length = self.offset + entry[3], entry[4]
        try:
            code = os.pread(self.bundle, length, offset)  # type: ignore[arg-type]
        except (OSError, TypeError, ValueError, OverflowError):
            return None
        return code if len(code) == length else None


_finder: _Finder | None = None


def start(arguments: Sequence[str]) -> None:
    """Set up a one-shot command (`arguments`: the command line, argv): see the module's note."""
    global _finder  # noqa: PLW0603 - one finder per process
    command = arguments[1] if len(arguments) > 1 else ""
    if _finder is not None or command not in COMMANDS:
        return
    gc.set_threshold(_COLLECT_AFTER, *gc.get_threshold()[1:])
    folder = cache_folder.opened(quiet=True)  # the cache's own use says why it is not used
    if folder is None:
        return
    name = _name(os.path.dirname(__file__), command)  # noqa: PTH120 - no pathlib at start-up
    _finder = _Finder(folder, name, cache_folder.open_file(folder, name))
    sys.meta_path.insert(0, _finder)


def finish() -> None:
    """Write the bundle again if this process imported some of toolguard's modules itself.

    Modules it could not take (no source file: a sourceless or zipped install) leave the
    bundle as it is: rewriting it would change nothing.
    """
    finder = _finder
    if finder is None or not finder.missed:
        return
    missed, finder.missed = finder.missed, set()
    codes = {name: taken for name in sorted(missed) if (taken := _taken(name)) is not None}
    if not codes:
        return
    for name, entry in finder.entries.items():
        if name not in missed and _unchanged(entry) and (code := finder.read(entry)) is not None:
            codes[name] = (*entry[:3], code)
    index, offset = {}, 0
    for name, (source, stamp, package, code) in sorted(codes.items()):
        index[name] = (source, stamp, package, offset, len(code))
        offset += len(code)
    try:
        head = marshal.dumps(index)
    except ValueError:
        return
    body = b"".join(codes[name][3] for name in sorted(codes))
    data = len(head).to_bytes(_LENGTH, "little") + head + body
    cache_folder.write(finder.folder, finder.name, data)


def _name(package: str, command: str) -> str:
    """The bundle's file name for `command` of the toolguard in the folder `package`.

    Also keyed by this interpreter's byte-code (`cache_folder.interpreter`).
    """
    tag = f"{package}\0{cache_folder.interpreter()}\0{command}"
    return f"modules-{sha256_hex(os.fsencode(tag))}.bin"  # a path need not be UTF-8


def _index(bundle: int) -> tuple[int, dict[str, _Entry]]:
    """Where the modules' code starts, and the bundle's index (empty if it is malformed)."""
    try:
        size = os.fstat(bundle).st_size
        head = os.pread(bundle, _FIRST_READ, 0)
        start = _LENGTH + int.from_bytes(head[:_LENGTH], "little")
        if start > size:
            return 0, {}  # cut short (and no buffer sized by what the file claims)
        if start > len(head):
            head = os.pread(bundle, start, 0)
        entries = marshal.loads(head[_LENGTH:start])  # noqa: S302 - from the trusted cache folder
    except (OSError, ValueError, EOFError, TypeError, OverflowError, MemoryError):
        return 0, {}
    room = size - start  # each module's code must lie within the file
    if type(entries) is not dict or not all(_well_formed(item, room) for item in entries.items()):
        return 0, {}
    return start, entries


def _well_formed(item: tuple[object, object], room: int) -> bool:
    """Whether an index entry can be used without an error: its code within the file.

    NOTE: cheap on purpose (it runs for every entry at start-up): the stamp needs no check of
    its own, since it is only ever compared with a fresh one.
    """
    name, entry = item
    return (
        type(name) is str
        and name.startswith(f"{_PACKAGE}.")
        and type(entry) is tuple
        and len(entry) == 5
        and type(entry[0]) is str
        and type(entry[3]) is int
        and type(entry[4]) is int
        and 0 <= entry[3] <= entry[3] + entry[4] <= room
    )


def _code(marshalled: bytes | None) -> CodeType | None:
    """The code object in `marshalled`; None for anything else (a damaged entry is a miss)."""
    if marshalled is None:
        return None
    try:
        code = marshal.loads(marshalled)  # noqa: S302 - from the trusted cache folder
    except (ValueError, EOFError, TypeError):
        return None
    return code if type(code) is _CODE else None


def _stamp(info: os.stat_result) -> _Stamp:
    """What must not change for a module to be served: the file, its size and times.

    The file is its device and inode; the times, its modification and change. A `.pyc` checks
    the size and the second of modification alone, but it lives beside its source; the bundle
    outlives an install, and a reinstall at the same path with normalised times (a
    reproducible image, `touch -d`) gives a new inode and change time, which no tool sets back.
    """
    return (info.st_size, info.st_mtime_ns, info.st_ctime_ns, info.st_ino, info.st_dev)


def _unchanged(entry: _Entry) -> bool:
    """Whether the entry's source file is still the file it was, unchanged."""
    try:
        info = os.stat(entry[0])  # noqa: PTH116 - no pathlib at start-up
    except (OSError, ValueError):
        return False
    return _stamp(info) == entry[1]


def _taken(name: str) -> tuple[str, _Stamp, bool, bytes] | None:
    """The code of a module this process imported from its source file; None if it cannot."""
    module = sys.modules.get(name)
    spec = getattr(module, "__spec__", None)
    loader = getattr(spec, "loader", None)
    if type(loader) is not _frozen_importlib_external.SourceFileLoader:
        return None  # not found, or not from a source file (an extension, a namespace)
    source = loader.path
    try:
        before = _stamp(os.stat(source))  # noqa: PTH116
        code = loader.get_code(name)
        after = _stamp(os.stat(source))  # noqa: PTH116
        data = marshal.dumps(code)
    except (OSError, ValueError, ImportError, SyntaxError, EOFError, TypeError):
        return None
    if before != after:
        return None  # changed while it was read: the next process takes it
    package = spec.submodule_search_locations is not None  # type: ignore[union-attr]
    return (source, before, package, data)
