"""Compiled validators cached on disk, so a repeated call pays load time, not compile time.

Checking a schema and generating its code costs ~10-30 ms; loading it back costs a fraction
of a millisecond. An entry is keyed by the SHA-256 of the schema *as given* (its `marshal`
form, which tells 1 from 1.0 from True and a list from a tuple), the options and the
registry, this toolguard's own files, and the interpreter's byte-code (no other Python loads
its code); so a hit skips the checks, the metaschema and the generator altogether. It holds
the code object, the bundled schema, and the SHA-256 of every registry file the schema pulled
in, re-checked on each load: an edited `$ref` target is a miss, never a stale validator. The
cache is an optimisation, never a point of failure: anything odd (a corrupt or truncated
entry, a full disk, a schema `marshal` cannot write) falls back to compiling in memory.

An entry is code this process will run: it lives in the folder `cache_folder.py` keeps, read
and written under its rules (who may have changed the folder, the file, one atomic rename).
Entries are `<key>.bin`: 32 bytes of SHA-256 over the rest, then the marshalled value. That
digest detects corruption (a flipped byte); it proves nothing about who wrote the entry,
since a writer computes it too: the folder checks are what keep other users' code out.
"""

from __future__ import annotations

import marshal
import os
import sys

from toolguard import cache_folder
from toolguard.digest import sha256, sha256_hex
from toolguard.errors import SchemaError, missing_dependency
from toolguard.files import absolute_text, open_regular
from toolguard.frozen import frozen
from toolguard.number import ExactFloat, exact_number
from toolguard.schema.matcher import Matcher
from toolguard.schema.runtime import dynamic_scope, in_enum, is_multiple, unique_key
from toolguard.standins import cache as remember

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from pathlib import Path
    from types import CodeType
    from typing import Any

# The generated module imports fastjsonschema only for its exception classes; we pass ours in
# its globals instead, so loading a cached validator does not import fastjsonschema (~30 ms).
_FASTJSONSCHEMA_IMPORT = (
    "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n"
)
# ... and `decimal`, which it needs only where it also names `Decimal` in a check.
_DECIMAL_IMPORT = "from decimal import Decimal\n"
_DIGEST = 32


class SchemaViolation(ValueError):
    """What generated validation code raises: fastjsonschema's exception, without its import."""

    def __init__(
        self,
        message: str,
        value: Any = None,
        name: str | None = None,
        definition: Any = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.value = value
        self.name = name
        self.definition = definition
        self.rule = rule

    @property
    def path(self) -> list[str]:
        """The name split into steps, as fastjsonschema does (ambiguous for keys with dots)."""
        import re  # noqa: PLC0415 - only when a violation's path is asked for

        return [step for step in re.split(r"[.\[\]]+", self.name or "") if step]


class SchemaViolations(SchemaViolation):
    """What a collecting validator raises (`compile_schema(collect=True)`): every violation.

    A subclass, so that a subschema only tried out (under `anyOf`, `if`...) fails as one.
    """

    def __init__(self, errors: list[SchemaViolation]) -> None:
        super().__init__(errors[0].message if errors else "invalid")
        self.errors = [
            item for error in errors for item in getattr(error, "errors", None) or [error]
        ]


@frozen
class Entry:
    """What a compile leaves behind: everything a later call needs to skip the work."""

    name: str  # the validation function the code defines
    code: CodeType  # see `compile_source`
    bundled: Any  # the schema with its references resolved (`Validator.schema`)
    formats: bool  # whether formats are asserted (the dialect may force it)
    files: tuple[tuple[str, str], ...]  # registry files read: (path, SHA-256 of the bytes)


def cached(
    schema: Any,
    *,
    formats: bool,
    refs: Mapping[str, str | Path] | None,
    build: Callable[[], Entry],
    collect: bool = False,
) -> Entry:
    """The entry for `schema`, from the cache or from `build` (see `function_of`).

    `build` checks and generates; it only runs on a miss. `collect` keys the collecting
    variant of the code apart from the one that stops at the first error.
    """
    key = _key(schema, formats, refs, collect)
    entry = _load(key) if key is not None else None
    if entry is None:
        entry = build()
        if key is not None:
            store(key, (entry.name, entry.code, entry.bundled, entry.formats, entry.files))
    return entry


def function_of(entry: Entry) -> Callable[..., Any]:
    """The validation function an entry's code defines (its own namespace each time).

    The namespace holds what generated code may call; a part that costs an import
    (`threading` for `$dynamicRef`, `fractions` for `multipleOf`) only if the code names it.
    """
    namespace = generated_namespace(_names(entry.code))
    exec(entry.code, namespace)  # noqa: S102 - our own generated code, from a trusted cache
    function: Callable[..., Any] = namespace[entry.name]
    return function


def generated_namespace(names: set[str]) -> dict[str, Any]:
    """What generated code may call, for code that uses `names` (a fresh namespace each time).

    A part that costs an import (`threading` for `$dynamicRef`, `fractions` for
    `multipleOf`) only if the code names it.
    """
    namespace: dict[str, Any] = {
        "JsonSchemaValueException": SchemaViolation,
        "JsonSchemaValuesException": SchemaViolations,
        "is_multiple": is_multiple,
        "PATTERN": Matcher,
        "ExactFloat": ExactFloat,
        "exact_number": exact_number,
        "unique_key": unique_key,
        "in_enum": in_enum,
    }
    if "DYNAMIC_SCOPE" in names:
        namespace["DYNAMIC_SCOPE"] = dynamic_scope()
    if "Fraction" in names:
        from fractions import Fraction  # noqa: PLC0415 - only schemas with multipleOf

        namespace["Fraction"] = Fraction
    return namespace


def _names(code: CodeType) -> set[str]:
    """Every global or attribute name `code` and the functions it defines use."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, type(code)):
            names |= _names(constant)
    return names


# No file an entry records was read whole above this (schemas: `SCHEMA_LIMITS`; key sets:
# `CONTRACT_MAX_BYTES`), so a longer one has changed: read no further to know it.
LARGEST_RECORDED_FILE = 16 << 20


def files_unchanged(files: tuple[tuple[str, str], ...]) -> bool:
    """Whether every (path, SHA-256) an entry was built from still holds those bytes."""
    for file, digest in files:
        try:
            with open_regular(file) as stream:
                if file_digest(stream.read(LARGEST_RECORDED_FILE + 1)) != digest:
                    return False
        except OSError:
            return False
    return True


def file_digest(raw: bytes) -> str:
    """How a registry file is fingerprinted in an entry."""
    return sha256_hex(raw)


def compile_source(source: str) -> tuple[str, CodeType]:
    """The name of the function fastjsonschema's module source defines, and its code object."""
    name, runnable = runnable_source(source)
    return name, compile(runnable, "<toolguard schema>", "exec")


def runnable_source(source: str) -> tuple[str, str]:
    """The module source fastjsonschema generated, without its imports, and its function.

    `generated_namespace` gives what the code calls.

    Also what `prebuilt.py` writes to its generated modules, so both run the same text.
    """
    import re  # noqa: PLC0415 - a compile: misses only

    source = source.replace(_FASTJSONSCHEMA_IMPORT, "")
    if "Decimal" not in source.replace(_DECIMAL_IMPORT, ""):
        source = source.replace(_DECIMAL_IMPORT, "")
    # NOTE: the first `validate...` function: the module's head may define others (a plain
    # pattern's, `pattern_keywords.py`).
    match = re.search(r"^def (validate\w*)\(", source, re.MULTILINE)
    if match is None:
        raise SchemaError("fastjsonschema generated no validation function")
    return match.group(1), source


def key_of(*material: Any) -> str | None:
    """A cache key for plain data, this toolguard's sources included; None if not plain data."""
    try:
        # NOTE: version 2 has no back-references, so equal values always give equal bytes.
        return sha256_hex(marshal.dumps((_fingerprint(), *material), 2))
    except (ValueError, TypeError):
        return None  # not plain data (a subclass, an object): compile it, never cache it


def _key(
    schema: Any, formats: bool, refs: Mapping[str, str | Path] | None, collect: bool
) -> str | None:
    registry = sorted(
        (prefix, absolute_text(os.fspath(folder))) for prefix, folder in (refs or {}).items()
    )
    return key_of(formats, registry, schema, *(["collect"] if collect else []))


# The modules above `contract` in the import rule (`docs/architecture.md`, enforced by
# lint-imports): nothing the cache stores (a contract's artefact, a compiled schema) is built by
# code they hold, since `contract` and the stages below it may not import them. They are left out
# of the stamp: a third fewer files to `stat` in every process (a test keeps this list in step
# with the layers in pyproject.toml).
NEVER_BUILD_CACHED = frozenset(
    {"launch.py", "cli", "serve.py", "mcp", "fixtures", "lint", "diff", "explain", "scaffold"}
    | {"audit", "pipeline.py"}
)


def _name(entry: os.DirEntry[str]) -> str:
    return entry.name


@remember
def _fingerprint() -> str:
    """Stamp of toolguard and the tools under it: a changed file is a new key (stat only).

    Sizes and modification times of the package's modules, the shipped schemas and
    fastjsonschema's modules stand for their content: an upgrade or an edited checkout never
    reuses code generated by older sources. Plain `os.scandir`: this runs in every process.
    """
    from toolguard.shipped import shipped_folder  # noqa: PLC0415
    from toolguard.version import __version__  # noqa: PLC0415

    stamps = [__version__, cache_folder.interpreter()]  # marshalled code: this Python's only
    package = os.path.dirname(os.path.dirname(__file__))  # noqa: PTH120 - toolguard/
    _stamp(package, stamps, skip=NEVER_BUILD_CACHED)
    _stamp(shipped_folder(), stamps)
    _stamp(_fastjsonschema_folder(), stamps)
    re2 = _package_folder("re2")  # a pattern's refusal and program size are RE2's
    if re2 is not None:
        _stamp(re2, stamps)
    return sha256_hex("\n".join(stamps).encode())


def _stamp(folder: str, stamps: list[str], skip: frozenset[str] = frozenset()) -> None:
    with os.scandir(folder) as scan:
        entries = sorted((entry for entry in scan if entry.name not in skip), key=_name)
    for entry in entries:
        if entry.is_dir(follow_symlinks=False):
            if not entry.name.startswith(("__", ".")):
                _stamp(entry.path, stamps)
        elif entry.name.endswith((".py", ".json", ".so")):
            info = entry.stat()
            stamps.append(f"{entry.path}:{info.st_size}:{info.st_mtime_ns}")


def _fastjsonschema_folder() -> str:
    """Where fastjsonschema is installed, found without importing it (that costs 30 ms)."""
    folder = _package_folder("fastjsonschema")
    if folder is None:
        raise missing_dependency("fastjsonschema")
    return folder


def _package_folder(name: str) -> str | None:
    """Where the package `name` would be imported from, found without importing it."""
    for folder in sys.path:
        candidate = os.path.join(folder or ".", name)  # noqa: PTH118 - no pathlib at start-up
        if os.path.isfile(os.path.join(candidate, "__init__.py")):  # noqa: PTH113, PTH118
            return candidate
    return None


def load(key: str) -> Any:
    """The value stored under `key`, or None if absent, corrupt or not this user's alone."""
    folder = cache_folder.opened()
    if folder is None:
        return None
    blob = cache_folder.read(folder, f"{key}.bin")
    if blob is None:
        return None
    body = blob[_DIGEST:]
    if len(blob) <= _DIGEST or sha256(body).digest() != blob[:_DIGEST]:
        return None  # corrupt or truncated (the digest proves nothing about who wrote it)
    try:
        return marshal.loads(body)  # noqa: S302 - from a trusted path, checked file, intact
    except (ValueError, EOFError, TypeError):
        return None


def store(key: str, value: Any) -> None:
    """Store `value` (plain data and code) under `key`, atomically; failures only cost time."""
    folder = cache_folder.opened()
    if folder is None:
        return
    try:
        body = marshal.dumps(value)
    except ValueError:
        return
    cache_folder.write(folder, f"{key}.bin", sha256(body).digest() + body)


def _load(key: str) -> Entry | None:
    value = load(key)
    try:
        name, code, bundled, formats, files = value
    except (TypeError, ValueError):
        return None
    if not files_unchanged(files):
        return None  # a registry file changed since: compile again
    return Entry(name, code, bundled, formats, files)
