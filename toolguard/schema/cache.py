"""Compiled validators cached on disk, so a repeated call pays load time, not compile time.

fastjsonschema turns a schema into Python source (~10-30 ms per schema); the compiled code
object is stored under the SHA-256 of everything that shaped it and loaded back with
`marshal` (well under a millisecond). The cache is an optimisation, never a point of
failure: anything odd (a foreign or loosely-permissioned directory, a corrupt or truncated
entry, a full disk) falls back to compiling in memory.

Layout: `$TOOLGUARD_CACHE_DIR`, else `$XDG_CACHE_HOME/toolguard`, else `~/.cache/toolguard`;
created 0700 and used only while owned by this user and closed to others. Entries are
`<key>.bin`: 32 bytes of SHA-256 over the rest, then the marshalled (name, code object).
They are written to a private temporary file and renamed into place, so two processes that
race write the same bytes and a reader never sees half an entry.
"""

from __future__ import annotations

import hashlib
import importlib.util
import json
import marshal
import os
import re
import stat
import sys
import tempfile
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

from toolguard.errors import SchemaError
from toolguard.schema.runtime import DynamicScope, is_multiple

_FIRST_FUNCTION = re.compile(r"^def (\w+)\(", re.MULTILINE)
# The generated module imports fastjsonschema only for its exception classes; we pass ours in
# its globals instead, so loading a cached validator does not import fastjsonschema (~30 ms).
_FASTJSONSCHEMA_IMPORT = (
    "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n"
)
_DIGEST = 32
_NAME_STEPS = re.compile(r"[.\[\]]+")


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
        return [step for step in _NAME_STEPS.split(self.name or "") if step]


def load_or_compile(prepared: Any, *, formats: bool, generate: Callable[[], str]) -> Any:
    """The validation function for `prepared`, from the cache or freshly generated.

    `generate` returns fastjsonschema's module source; it only runs on a cache miss.
    """
    key = _key(prepared, formats)
    folder = _folder()
    entry = folder / f"{key}.bin" if folder is not None else None
    loaded = _load(entry) if entry is not None else None
    if loaded is None:
        source = generate().replace(_FASTJSONSCHEMA_IMPORT, "")
        match = _FIRST_FUNCTION.search(source)
        if match is None:
            raise SchemaError("fastjsonschema generated no validation function")
        loaded = (match.group(1), compile(source, f"<toolguard schema {key[:12]}>", "exec"))
        if entry is not None:
            _store(entry, loaded)
    name, code = loaded
    namespace: dict[str, Any] = {
        "JsonSchemaValueException": SchemaViolation,
        "JsonSchemaValuesException": SchemaViolation,
        "DYNAMIC_SCOPE": DynamicScope(),
        "Fraction": Fraction,
        "is_multiple": is_multiple,
    }
    exec(code, namespace)  # noqa: S102 - our own generated code, from a private, verified cache
    return namespace[name]


def _key(prepared: Any, formats: bool) -> str:
    from toolguard import __version__  # noqa: PLC0415 - the package imports this module

    material = json.dumps(
        [
            __version__,
            _generator_digest(),
            sys.implementation.cache_tag,
            _fastjsonschema_version(),
            formats,
            prepared,
        ],
        ensure_ascii=True,
        separators=(",", ":"),
    )
    return hashlib.sha256(material.encode("ascii")).hexdigest()


def _generator_digest() -> str:
    """The generator's own source shapes the code too: a changed generator is a new key."""
    generator = Path(__file__).with_name("generator.py")
    return hashlib.sha256(generator.read_bytes()).hexdigest()


def _fastjsonschema_version() -> str:
    """Return the installed fastjsonschema version, read from its source (importing costs 30 ms)."""
    spec = importlib.util.find_spec("fastjsonschema")
    origin = spec.origin if spec is not None else None
    if origin is None:
        raise SchemaError("fastjsonschema is not installed")
    text = (Path(origin).parent / "version.py").read_text(encoding="utf-8")
    match = re.search(r"VERSION = ['\"]([^'\"]+)", text)
    return match.group(1) if match else text


def _folder() -> Path | None:
    """The cache directory, created private; None if it cannot be trusted or made."""
    configured = os.environ.get("TOOLGUARD_CACHE_DIR")
    if configured == "":
        return None  # an empty value turns the cache off
    if configured:
        folder = Path(configured)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
        folder = Path(base) / "toolguard"
    try:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        info = folder.lstat()
    except OSError:
        return None
    private = stat.S_ISDIR(info.st_mode) and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH)
    return folder if private and info.st_uid == os.getuid() else None


def _load(entry: Path) -> tuple[str, Any] | None:
    try:
        blob = entry.read_bytes()
    except OSError:
        return None
    body = blob[_DIGEST:]
    if len(blob) <= _DIGEST or hashlib.sha256(body).digest() != blob[:_DIGEST]:
        return None
    try:
        name, code = marshal.loads(body)  # noqa: S302 - written by us, verified above
    except (ValueError, EOFError, TypeError):
        return None
    return (name, code) if isinstance(name, str) else None


def _store(entry: Path, loaded: tuple[str, Any]) -> None:
    body = marshal.dumps(loaded)
    try:
        handle, temporary = tempfile.mkstemp(dir=entry.parent, prefix=".tmp-", suffix=".bin")
        try:
            with os.fdopen(handle, "wb") as stream:  # mkstemp creates it 0600
                stream.write(hashlib.sha256(body).digest() + body)
            Path(temporary).replace(entry)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise
    except OSError:
        return  # a full disk or a vanished folder only costs the next call a compile
