"""The names a contract gives: its tool, its projected fields, its rules and context keys.

The contract schema allows `^[a-z][a-z0-9_]{0,63}$` for each; a tool name should also be
snake_case words (lint `TG013`), which is what `toolguard init` accepts.
"""

from __future__ import annotations

import re

MAX_NAME_LENGTH = 64
# The contract schema's other bounds on what names and pointers a contract gives.
MAX_PROJECTED = 256  # `[projection]`'s maxProperties: fields an envelope's data carries
MAX_POINTER_LENGTH = 1024  # a JSON Pointer's maxLength (`$defs/pointer`)
TOOL_NAME = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)*")


def is_tool_name(name: str) -> bool:
    """Whether `name` is snake_case words of at most 64 characters (`ticket_status`)."""
    return len(name) <= MAX_NAME_LENGTH and TOOL_NAME.fullmatch(name) is not None
