"""Files toolguard ships: the top-level `schemas/` folder, found in a wheel or a checkout."""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path

_PACKAGE = os.path.dirname(os.path.realpath(__file__))  # noqa: PTH120 - no pathlib at start-up


def shipped_folder() -> str:
    """The folder of the shipped schemas (inside the wheel it is `toolguard/_schemas/`)."""
    installed = os.path.join(_PACKAGE, "_schemas")  # noqa: PTH118
    if os.path.isdir(installed):  # noqa: PTH112
        return installed
    return os.path.join(os.path.dirname(_PACKAGE), "schemas")  # noqa: PTH118, PTH120


def shipped_schema(name: str) -> Path:
    """Path of a schema in `schemas/` (inside the wheel it is `toolguard/_schemas/`)."""
    from pathlib import Path  # noqa: PLC0415 - its callers read or compile the schema

    return Path(shipped_folder(), name)
