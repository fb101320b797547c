"""Audit trail, the writing side: why the agent saw what it saw, kept after the process exits.

`trail.py` is the stage: it ties an outcome to its record and raw copies, and fails closed;
`record.py` builds one bounded JSON record per answer; `log.py` appends it with one O_APPEND
write; `raw.py` keeps private, content-addressed copies of raw responses; `keys.py` holds the
key for secret context. Reading the trail back is `toolguard.explain`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Command = Literal["check", "run", "serve"]  # what produced an audit record


@dataclass(frozen=True, slots=True)
class Source:
    """Where the response came from: stdin, a file, or a command (`toolguard run`)."""

    kind: Literal["stdin", "file", "command"]
    file: str | None = None
