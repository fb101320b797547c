"""`toolguard check` without click: its flags read from the same table, with click's meaning.

A check runs on every tool call an agent makes, and importing click and building its command
tree costs about as much as starting Python itself. So `check`'s flags (`flags.CHECK`) are read
here with the meaning click gives them (a property test holds the two parsers to the same
result), and anything this parser is not sure of (help, an unknown, repeated or abbreviated
flag, a value click would refuse or convert) is left to click, so errors and help read exactly
the same. NOTE: a path is given as the text `str(pathlib.Path(value))` would be, where click
gives the `Path`: every reader of these values takes either (`pathlib` costs start-up).
"""

from __future__ import annotations

import os
import stat

from toolguard.cli.flags import CHECK, LEAST, TRAIL_PATHS, number
from toolguard.files import absolute_text, path_text

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolguard.cli.flags import Flag

_BY_NAME = {flag.name: flag for flag in CHECK}


def parse_check(arguments: list[str]) -> dict[str, object] | None:
    """`check`'s parameters as click would pass them, or None to leave the decision to click."""
    values: dict[str, object] = {}
    positional: list[str] = []
    index = 0
    while index < len(arguments):
        argument = arguments[index]
        index += 1
        if not argument.startswith("-"):
            positional.append(argument)
            continue
        name, equals, inline = argument.partition("=")
        flag = _BY_NAME.get(name)
        if flag is None:
            return None  # help, an unknown flag, `--`
        if flag.kind == "switch":
            if equals or flag.dest in values:
                return None  # a switch given a value or twice
            values[flag.dest] = True
            continue
        if not equals:
            if index == len(arguments):
                return None
            inline, index = arguments[index], index + 1
        if not _store(values, flag, inline):
            return None
    if len(positional) != 1 or not positional[0]:
        return None  # none, several, or an empty path: click says so
    for flag in CHECK:
        given = os.environ.get(flag.envvar) if flag.envvar else None
        if given is not None and flag.dest not in values and not _store(values, flag, given):
            return None
    for flag in CHECK:
        if flag.kind == "repeatable":
            repeated = values.get(flag.dest, [])
            values[flag.dest] = tuple(repeated) if isinstance(repeated, list) else ()
        else:
            values.setdefault(flag.dest, False if flag.kind == "switch" else flag.default)
    return {"contract": path_text(positional[0]), **values}


def _store(values: dict[str, object], flag: Flag, text: str) -> bool:
    """Read one flag's value into `values`; False where click might see it differently."""
    if not text or (text.startswith("-") and not (text == "-" and flag.kind == "data file")):
        return False
    if flag.kind == "repeatable":
        values.setdefault(flag.dest, []).append(text)  # type: ignore[attr-defined]
        return True
    if flag.dest in values:
        return False  # click keeps the last; rare enough to let click do it
    value = _converted(text, flag)
    if value is None:
        return False
    values[flag.dest] = value
    return True


def _converted(text: str, flag: Flag) -> object:
    kind = flag.kind
    if isinstance(kind, tuple):
        return text if text in kind else None
    if kind == "text":
        return text
    if kind == "data file" and text == "-":
        return text  # standard input
    if kind in LEAST:
        try:
            return number(flag, text)
        except ValueError:
            return None  # click says why, with its own words
    if "\0" in text:
        return None  # click refuses it
    if kind not in TRAIL_PATHS:  # the audit trail judges its own paths: click checks nothing
        try:
            info = os.stat(text)  # noqa: PTH116 - no pathlib at start-up
        except (OSError, ValueError):
            return None
        if not stat.S_ISREG(info.st_mode) or not os.access(text, os.R_OK):
            return None  # a folder, an unreadable file, a FIFO or a device: click decides
    shown = path_text(text)
    return absolute_text(text) if shown == "-" else shown  # `./-` is a file: only `-` is stdin
