"""The default adapter: the response is one strict JSON document (`parse.py`)."""

from __future__ import annotations

from toolguard.frozen import frozen
from toolguard.parse import parse

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from toolguard.adapters import Setting
    from toolguard.limits import Limits


@frozen
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
