"""Files toolguard ships: the top-level `schemas/` folder, found in a wheel or a checkout."""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def shipped_schema(name: str) -> Path:
    """Path of a schema in `schemas/` (inside the wheel it is `toolguard/_schemas/`)."""
    installed = _PACKAGE / "_schemas" / name
    return installed if installed.exists() else _PACKAGE.parent / "schemas" / name
