"""RFC 6901 JSON Pointers into parsed JSON values, shared by rules and projection."""

from __future__ import annotations

from typing import Any

_MISSING: Any = object()


def tokens(pointer: str) -> list[str]:
    """Split and unescape a pointer ("" is the whole document)."""
    if pointer == "":
        return []
    return [token.replace("~1", "/").replace("~0", "~") for token in pointer.split("/")[1:]]


def lookup(document: Any, pointer: str) -> Any:
    """The value at `pointer`, or `MISSING` when there is none."""
    node = document
    for token in tokens(pointer):
        if type(node) is dict:
            node = node.get(token, _MISSING)
        elif type(node) is list and token.isdigit() and (token == "0" or token[0] != "0"):
            index = int(token)
            node = node[index] if index < len(node) else _MISSING
        else:
            return _MISSING
        if node is _MISSING:
            return _MISSING
    return node


MISSING = _MISSING
