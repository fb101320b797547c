"""Projection: a schema-valid payload -> a *new* object holding exactly the declared fields.

The agent never sees the validated object re-serialised, only the fields the contract names,
copied out by JSON Pointer. One optional display-text field is passed under the fixed,
self-describing name `untrusted_display_text`, bounded. No string the agent receives (a value
or a member name, at any depth, and the display text) may hold a code point a person cannot
see (`invisible.py`), unless the contract lets one field through by name, with a reason; and
no number may reach the agent as another number than the one the schema validated.
"""

from __future__ import annotations

from types import MappingProxyType

from toolguard.errors import ProjectionError
from toolguard.frozen import field, frozen
from toolguard.invisible import find_invisible, invisible_at
from toolguard.number import ExactFloat, delivered_as_written
from toolguard.pointer import MISSING, escape, lookup

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import Any

DISPLAY_TEXT_FIELD = "untrusted_display_text"


@frozen
class DisplayText:
    """Where the untrusted display text comes from and how long it may be."""

    pointer: str
    max_length: int


@frozen
class Projection:
    """Agent field name -> JSON Pointer into the payload, plus optional display text.

    `allow_hidden` names the fields delivered without the hidden-character check (the
    contract's `[allow_hidden_characters]`), each with the contract's reason.
    """

    fields: Mapping[str, str]
    display_text: DisplayText | None = None
    allow_hidden: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def names(self) -> tuple[str, ...]:
        """The keys every projected object has, in order."""
        extra = (DISPLAY_TEXT_FIELD,) if self.display_text else ()
        return (*self.fields, *extra)

    def __call__(self, payload: Any) -> dict[str, Any]:
        """Build the agent-facing object, or raise `ProjectionError`."""
        data: dict[str, Any] = {}
        for name, pointer in self.fields.items():
            value = lookup(payload, pointer)
            if value is MISSING:
                raise ProjectionError("missing_field", f"field {name!r}: {pointer} is absent")
            if name not in self.allow_hidden:
                found = find_invisible(value)
                if found is not None:
                    raise ProjectionError(
                        "hidden_character",
                        f"field {name!r} ({pointer}): {found}, which a person cannot see",
                        instance_path=pointer,
                    )
            _require_numbers_as_written(name, pointer, value)
            if isinstance(value, dict | list):
                import copy  # noqa: PLC0415 - only for a projected object or array

                value = copy.deepcopy(value)
            data[name] = value
        if self.display_text is not None:
            data[DISPLAY_TEXT_FIELD] = self._display_text(payload, self.display_text)
        return data

    @staticmethod
    def _display_text(payload: Any, spec: DisplayText) -> str:
        text = lookup(payload, spec.pointer)
        if not isinstance(text, str):
            raise ProjectionError("missing_field", f"display text {spec.pointer} is not a string")
        if len(text) > spec.max_length:
            raise ProjectionError(
                "display_text_too_long", f"display text is longer than {spec.max_length}"
            )
        index = invisible_at(text, display=True)
        if index is not None:
            raise ProjectionError(
                "unsafe_display_text",
                f"display text ({spec.pointer}): U+{ord(text[index]):04X} at character {index}, "
                "which a person cannot see",
                instance_path=spec.pointer,
            )
        return text


def _require_numbers_as_written(name: str, pointer: str, value: Any) -> None:
    """Refuse a field holding, at any depth, a number the agent would receive as another.

    The schema decided on the number written (`schema-engine.md#numbers`), but the envelope
    carries its float: `0.99999999999999999` passes `exclusiveMaximum: 1` and would go out as
    `1.0`. Delivering it would hand the agent a value no check saw; rounding it is a repair.
    """
    found = misdelivered_number(value, pointer)
    if found is not None:
        at, number = found
        raise ProjectionError(
            "number_not_as_written",
            f"field {name!r} ({at}): {number.exact} would reach the agent as "
            f"{float(number)!r}, a number the schema did not validate",
            instance_path=at,
        )


def misdelivered_number(value: Any, pointer: str = "") -> tuple[str, ExactFloat] | None:
    """The first number in `value` the agent would receive as another, and where; or None.

    What the projection refuses a field for (beside a hidden character): `toolguard init`
    asks it too, to leave such a member of a sample out rather than refuse its own sample.
    """
    # NOTE: first a scan in C, a level at a time; paths are spelled only for a field it
    # refuses (a path per member cost a field of 100,000 numbers more than its parse).
    if type(value) in _PLAIN or not _holds_misdelivered(value):
        return None
    stack: list[tuple[str, Any]] = [(pointer, value)]
    while stack:
        at, item = stack.pop()
        if type(item) is ExactFloat and not delivered_as_written(item):
            return at, item
        # NOTE: pushed last first, so the first such number in document order is named.
        if isinstance(item, dict):
            stack.extend((f"{at}/{escape(key)}", item[key]) for key in reversed(item))
        elif isinstance(item, list):
            stack.extend((f"{at}/{index}", item[index]) for index in reversed(range(len(item))))
    return None


def _holds_misdelivered(value: Any) -> bool:
    """Whether `value` holds, at any depth, an `ExactFloat` not delivered as written.

    Read a level at a time: its members' types in one set, the next level gathered from its
    containers: linear in the members, whatever the shape.
    """
    level: list[Any] = [value]
    while level:
        kinds = set(map(type, level))
        if ExactFloat in kinds and not all(
            delivered_as_written(item) for item in level if type(item) is ExactFloat
        ):
            return True
        if kinds <= _SCALARS:
            return False
        level = [
            member
            for item in level
            if isinstance(item, dict | list)
            for member in (item.values() if isinstance(item, dict) else item)
        ]
    return False


# What holds no member: any other type (a container, whatever its class) is looked into.
_SCALARS = frozenset({str, int, float, bool, type(None), ExactFloat})
_PLAIN = _SCALARS - {ExactFloat}  # always delivered as written
