"""What `init --from` leaves out of `[projection]`: a member the projection would refuse.

The projection refuses an answer whose projected value holds a character a person cannot
see (tab and newline included) or a number the agent would receive as another than the one
written (`0.99999999999999999` goes out as `1.0`). Projecting such a member of the sample
would refuse the sample itself, whatever else the answer holds: the draft leaves it out,
commented, saying why and what to decide. The projection's own finders judge it, so the
draft and the check never disagree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolguard.invisible import find_invisible
from toolguard.pointer import escape
from toolguard.projection import misdelivered_number
from toolguard.text import clean

HIDDEN = "a character a person cannot see"
NOT_AS_WRITTEN = "a number the agent would receive as another"


@dataclass(frozen=True, slots=True)
class LeftOut:
    """A top-level member not projected: where, its cause, and what the author should know."""

    pointer: str  # the member's, such as `/body`
    cause: str  # `HIDDEN` or `NOT_AS_WRITTEN`: how the summary groups them
    reason: str  # what in it the projection refuses, such as `0.99999999999999999 at /a ...`
    advice: str  # what to decide
    reference: str  # the docs section that says why


def left_out(key: str, value: Any) -> LeftOut | None:
    """Why the member `key` of a sample cannot be projected as it is, or None if it can.

    A hidden character first, as the projection checks it first.
    """
    pointer = f"/{escape(key)}"
    inside = isinstance(value, dict | list)
    found = find_invisible(value)
    if found is not None:
        if inside:
            advice = "project what you need inside it"
        elif chr(found.code_point) in "\t\n":
            advice = "text for a person? [display_text]"
        else:
            advice = "an upstream that sends it is suspect"
        reason = f"no field may hold {found}"
        return LeftOut(pointer, HIDDEN, reason, advice, "docs/contract.md#hidden-characters")
    number = misdelivered_number(value, pointer)
    if number is not None:
        at, written = number
        where = clean(at, 40)
        advice = f"project what you need in it but {where}" if inside else "ask for a string"
        reason = f"{clean(str(written.exact), 40)} at {where} would reach the agent as "
        reason += repr(float(written))
        return LeftOut(pointer, NOT_AS_WRITTEN, reason, advice, "docs/schema-engine.md#numbers")
    return None
