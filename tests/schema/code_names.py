"""What a compiled validator's code refers to: tests that pin how the generator writes code."""

from __future__ import annotations

from types import CodeType


def code_names(code: CodeType) -> set[str]:
    """The names a compiled module and every function in it use."""
    names = set(code.co_names)
    for constant in code.co_consts:
        if isinstance(constant, CodeType):
            names |= code_names(constant)
    return names
