"""RFC 6901 JSON Pointers: the one implementation, shared by schemas, rules and projection."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Iterable
    from typing import Any

MISSING: Any = object()


def tokens(pointer: str) -> list[str]:
    """Split and unescape a pointer ("" is the whole document)."""
    if pointer == "":
        return []
    steps = pointer.split("/")[1:]
    if "~" not in pointer:
        return steps  # NOTE: nothing escaped (the common case: a rule's or projection's field)
    return [token.replace("~1", "/").replace("~0", "~") for token in steps]


def escape(token: str) -> str:
    """Escape one reference token."""
    return token.replace("~", "~0").replace("/", "~1")


def join(steps: Iterable[str]) -> str:
    """The pointer made of these (unescaped) tokens."""
    return "".join("/" + escape(step) for step in steps)


def is_index(token: str) -> bool:
    """Whether `token` is an array index as RFC 6901 spells one: `0|[1-9][0-9]*`."""
    # NOTE: `str.isdigit` alone also accepts superscripts and Arabic-Indic digits: ASCII only.
    return token.isascii() and token.isdigit() and (token == "0" or token[0] != "0")


def lookup(document: Any, pointer: str) -> Any:
    """The value at `pointer`, or `MISSING` when there is none."""
    node = document
    for token in tokens(pointer):
        if isinstance(node, dict):
            node = node.get(token, MISSING)
        elif isinstance(node, list) and is_index(token):
            index = int(token)
            node = node[index] if index < len(node) else MISSING
        else:
            return MISSING
        if node is MISSING:
            return MISSING
    return node
