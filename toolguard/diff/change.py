"""One difference between two contract versions, classified for the upstream and the agent."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal

Upstream = Literal["accepts-more", "accepts-less", "both", "none"]
Agent = Literal["data-shape-changed", "failure-changed", "none"]

MORE: Upstream = "accepts-more"
LESS: Upstream = "accepts-less"
BOTH: Upstream = "both"
NONE: Upstream = "none"
DATA: Agent = "data-shape-changed"
FAILURE: Agent = "failure-changed"
_SHOWN = 80


@dataclass(frozen=True, slots=True)
class Change:
    """One change between two contract versions.

    `where` is a JSON Pointer into the payload schema (`/properties/state/enum`) or a dotted
    contract field (`projection.reviewer`, `limits.max_bytes`). `upstream` says whether the
    new contract lets through more responses, fewer, some of each (or cannot tell: `both`),
    or the same ones; `agent` whether what the agent receives may look different. A change
    is `breaking` when a response the old contract let through may now be rejected, or the
    agent may lose something it used to receive.
    """

    where: str
    what: str
    detail: str
    upstream: Upstream
    agent: Agent = "none"
    breaking: bool = False


def change(  # noqa: PLR0913 - one parameter per Change field
    where: str,
    what: str,
    detail: str,
    upstream: Upstream,
    agent: Agent = "none",
    *,
    breaking: bool = False,
) -> Change:
    """A `Change`; breaking whenever fewer (or other) responses get through, or when told."""
    return Change(where, what, detail, upstream, agent, breaking or upstream in {LESS, BOTH})


def flip(impact: Upstream) -> Upstream:
    """The impact seen through a `not`: accepting more inside accepts less outside."""
    return {MORE: LESS, LESS: MORE}.get(impact, impact)


def merge(impacts: Iterable[Upstream]) -> Upstream:
    """One impact for several: more and less together are `both`."""
    seen = set(impacts) - {NONE}
    if not seen:
        return NONE
    return seen.pop() if len(seen) == 1 else BOTH


def widened(old: float | Fraction, new: float | Fraction) -> Upstream:
    """The impact of moving an upper bound (or a budget) from `old` to `new`."""
    if new == old:
        return NONE
    return MORE if new > old else LESS


def show(value: Any) -> str:
    """A short, one-line JSON rendering of a value for a change's detail."""
    text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= _SHOWN else f"{text[: _SHOWN - 3]}..."


def show_all(values: Iterable[Any]) -> str:
    """Several values, comma-separated, bounded."""
    text = ", ".join(show(value) for value in values)
    return text if len(text) <= 2 * _SHOWN else f"{text[: 2 * _SHOWN - 3]}..."
