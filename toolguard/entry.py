"""The `toolguard` command's entry point: `check` without click, every other command with it.

A check runs on every tool call an agent makes, and importing click and building its command
tree costs about as much as starting Python itself. So `check`'s flags are read here, with the
meaning click gives them (a property test holds the two parsers to the same result), and
anything this parser is not sure of (help, an unknown, repeated or abbreviated flag, a value
click would refuse or convert) is left to click, so errors and help read exactly the same.
"""

from __future__ import annotations

import os
import stat
import sys
from pathlib import Path

# flag -> (parameter, how its value is read); see `toolguard.cli` for the click declarations
_VALUES: dict[str, tuple[str, str | tuple[str, ...]]] = {
    "--input": ("input_file", "existing file"),
    "--request-id": ("request_id", "text"),
    "--context": ("pairs", "repeatable"),
    "--context-file": ("context_file", "existing file"),
    "--now": ("now", "text"),
    "--diagnostics": ("diagnostics", ("rich", "json")),
    "--audit-log": ("log", "file path"),
    "--raw-dir": ("raw_dir", "folder path"),
    "--raw-keep": ("raw_keep", ("all", "rejected")),
    "--raw-max-file": ("raw_max_file_bytes", "count"),
    "--raw-max-total": ("raw_max_total_bytes", "count"),
    "--raw-max-age": ("raw_max_age_seconds", "count"),
    "--audit-key": ("key_file", "file path"),
}
_COUNT_DIGITS = 18  # more and click's own range check (or int()'s digit limit) should decide
_SWITCHES = {"--fsync": "fsync", "--audit-optional": "optional"}
_ENVIRONMENT = {
    "--audit-log": "TOOLGUARD_AUDIT_LOG",
    "--raw-dir": "TOOLGUARD_RAW_DIR",
    "--audit-key": "TOOLGUARD_AUDIT_KEY",
}
_TRAIL = (
    "log",
    "raw_dir",
    "raw_keep",
    "raw_max_file_bytes",
    "raw_max_total_bytes",
    "raw_max_age_seconds",
    "key_file",
    "fsync",
    "optional",
)


def main() -> None:
    """Run `toolguard` with `sys.argv`."""
    arguments = sys.argv[1:]
    if arguments[:1] == ["check"]:
        parsed = parse_check(arguments[1:])
        if parsed is not None:
            from toolguard import answer  # noqa: PLC0415 - after the decision, not before
            from toolguard.audit.trail import TrailOptions  # noqa: PLC0415

            trail = TrailOptions(**{name: parsed.pop(name) for name in _TRAIL})  # type: ignore[arg-type]
            answer.check(trail=trail, **parsed)  # type: ignore[arg-type]
    from toolguard.cli import main as click_main  # noqa: PLC0415

    click_main()


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
        if name in _SWITCHES and not equals and _SWITCHES[name] not in values:
            values[_SWITCHES[name]] = True
            continue
        if name not in _VALUES:
            return None  # help, an unknown flag, `--`, a switch given a value or twice
        if not equals:
            if index == len(arguments):
                return None
            inline, index = arguments[index], index + 1
        if not _store(values, name, inline):
            return None
    if len(positional) != 1:
        return None
    for name, variable in _ENVIRONMENT.items():
        given = os.environ.get(variable)
        if given is not None and _VALUES[name][0] not in values and not _store(values, name, given):
            return None
    values.setdefault("diagnostics", "rich")
    values["pairs"] = tuple(values.get("pairs", ()))  # type: ignore[arg-type]
    for parameter, _ in _VALUES.values():
        values.setdefault(parameter, None)
    for parameter in _SWITCHES.values():
        values.setdefault(parameter, False)
    return {"contract": Path(positional[0]), **values}


def _store(values: dict[str, object], name: str, text: str) -> bool:
    """Read one flag's value into `values`; False where click might see it differently."""
    parameter, kind = _VALUES[name]
    if not text or text.startswith("-"):
        return False
    if kind == "repeatable":
        pairs = values.setdefault(parameter, [])
        pairs.append(text)  # type: ignore[attr-defined]
        return True
    if parameter in values:
        return False  # click keeps the last; rare enough to let click do it
    value = _converted(text, kind)
    if value is None:
        return False
    values[parameter] = value
    return True


def _converted(text: str, kind: str | tuple[str, ...]) -> object:
    if isinstance(kind, tuple):
        return text if text in kind else None
    if kind == "text":
        return text
    if kind == "count":
        if not (text.isascii() and text.isdigit() and len(text) <= _COUNT_DIGITS):
            return None  # a sign, spaces, underscores or a huge number: click decides
        return int(text) if int(text) >= 1 else None
    try:
        info = Path(text).stat()
    except (OSError, ValueError):
        return None if kind == "existing file" else Path(text)
    if stat.S_ISDIR(info.st_mode) != (kind == "folder path") or not os.access(text, os.R_OK):
        return None
    if kind != "folder path" and not stat.S_ISREG(info.st_mode):
        return None  # a FIFO or a device: click accepts some; let it decide
    return Path(text)
