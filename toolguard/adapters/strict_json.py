"""The default adapter: the response is one strict JSON document (`parse.py`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolguard.adapters import Setting
from toolguard.limits import Limits
from toolguard.parse import parse


@dataclass(frozen=True, slots=True)
class JsonAdapter:
    """Strict JSON within the limits: nothing to configure."""

    def __call__(self, raw: bytes, limits: Limits) -> Any:
        """The parsed document, or the parser's rejection."""
        return parse(raw, limits)

    def describe(self) -> dict[str, str]:
        """What made the payload, for the audit record."""
        return {"kind": "json"}

    def settings(self) -> dict[str, Setting]:
        """Nothing but the limits decides what it accepts."""
        return {}
