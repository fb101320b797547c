"""A line for the operator on stderr that is no diagnostics record: an error or a warning.

Operators pipe stderr into log collectors. So each process writes these lines in one form:
text for people (`toolguard: error: ...`), or, when its command line asks for machine-readable
output (`--diagnostics json`, `--format json`), one JSON object per line, whatever goes
wrong and wherever it goes wrong. The CLI chooses the form once, from the command line, before
it parses anything (`cli.flags.stderr_mode`); a library host keeps text. NOTE: this is the
bottom of the stack (the compile cache warns from here), so it imports no `json`: `_json`'s
encoder writes the objects (`json_codec`).
"""

from __future__ import annotations

import sys

from toolguard.json_codec import encoder
from toolguard.standins import suppress
from toolguard.text import clean_message

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import IO

_CHOSEN = ["rich"]  # "json" or "rich": what the process's command line asked for
_ENCODE = encoder()


def choose(mode: str) -> None:
    """Write every later line in `mode` ("json": one JSON object; anything else: text)."""
    _CHOSEN[0] = mode


def chosen() -> str:
    """The form the process writes its operator lines in ("rich" unless `choose` said "json")."""
    return _CHOSEN[0]


def error(message: str, exit_status: int, mode: str | None = None) -> str:
    """An invocation error (usage, contract, schema, internal) as one line, escaped."""
    if (mode or chosen()) == "json":
        record = {"outcome": "error", "exit_status": exit_status, "message": clean_message(message)}
        return _ENCODE(record) + "\n"
    return f"toolguard: error: {clean_message(message)}\n"


def warning(message: str, mode: str | None = None) -> str:
    """Something the operator should know that changes no answer, as one line, escaped."""
    if (mode or chosen()) == "json":
        return _ENCODE({"outcome": "warning", "message": clean_message(message)}) + "\n"
    return f"toolguard: warning: {clean_message(message)}\n"


def write(line: str, stream: IO[str] | None = None) -> None:
    """Write `line` to `stream` (stderr); a closed, missing or full stderr loses it.

    The line must never reach stdout, nor change the status the command ends with.
    """
    stream = stream if stream is not None else sys.stderr
    if stream is None:
        return
    with suppress(OSError, ValueError, AttributeError):
        stream.write(line)
        stream.flush()
