"""`toolguard init TOOL --from RESPONSE`: a contract drafted from one real answer.

The sample is read as any response is: within a byte budget, by the strict parser (a
duplicate member, NaN or trailing data is refused, never repaired). Its shape becomes a
closed, bounded schema (`draft.py`); every top-level member is projected, each with a
comment asking the author to keep only what the agent needs, but one the projection would
refuse (a character a person cannot see, a newline too; a number the agent would receive as
another): that one is left out, commented, for the author to decide (`left_out.py`); rules
that fit a member (a `fresh` rule for a timestamp, a request match for an identifier) are
suggested, commented out, since only the author knows what the request says. The sample
is the first accept fixture, byte for byte.
"""

from __future__ import annotations

import re
import unicodedata
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

from toolguard.contract.names import MAX_NAME_LENGTH, MAX_POINTER_LENGTH, MAX_PROJECTED
from toolguard.errors import Rejection, RuleViolation, UsageError
from toolguard.files import is_stdin, open_data
from toolguard.limits import Limits, read_bounded
from toolguard.parse import parse
from toolguard.pointer import escape
from toolguard.request import make_request
from toolguard.rfc3339 import parse_date_time
from toolguard.rules import fresh
from toolguard.scaffold.draft import (
    MAX_SUBSCHEMAS,
    draft_schema,
    is_identifier,
    json_type,
    strings,
    subschemas,
)
from toolguard.scaffold.draft_contract import Draft, limits_table, top_entries
from toolguard.scaffold.left_out import LeftOut, left_out
from toolguard.scaffold.near_misses import MAX_BYTES_CEILING, limits_for
from toolguard.scaffold.render import Entry, Table, contract_text
from toolguard.text import clean

# What a sample may be: lint's ceilings (TG015), with one level of depth left for the limits.
SAMPLE_LIMITS = Limits(max_bytes=MAX_BYTES_CEILING, max_depth=31)
DEFAULT_NOW = "2026-01-01T00:00:00Z"
FRESH_AGE = 300  # a suggested `fresh` rule's max_age_seconds: five minutes
_RESERVED = "untrusted_display_text"  # the envelope's own name for the display text


def read_sample(path: Path) -> bytes:
    """The sample's raw bytes from `path` (`-`: standard input), within `SAMPLE_LIMITS`."""
    shown = sample_name(path)
    try:
        with open_data(path) as stream:  # a named pipe nobody writes to: empty, not waited on
            return _bounded(stream, shown)
    except OSError as exc:
        raise UsageError(f"cannot read --from {shown}: {exc.strerror}") from None


def sample_name(path: Path) -> str:
    """How messages and the draft's comments name the sample: `-` is standard input."""
    return "standard input" if is_stdin(path) else str(path)


def _bounded(stream: BinaryIO, shown: str) -> bytes:
    try:
        return read_bounded(stream, SAMPLE_LIMITS.max_bytes)
    except Rejection:
        raise UsageError(
            f"--from {shown} is over {SAMPLE_LIMITS.max_bytes} bytes: a dump, not a sample "
            "(keep one typical answer)"
        ) from None


def from_sample(tool: str, raw: bytes, source: str) -> Draft:
    """The draft for `tool` from the sample's `raw` bytes (`source` names it in comments)."""
    try:
        sample = parse(raw, SAMPLE_LIMITS)
    except Rejection as exc:
        raise UsageError(
            f"--from {source} is not an answer toolguard could accept ({exc.layer}, "
            f"{exc.reason}): {exc.message}"
        ) from None
    if not isinstance(sample, dict) or not sample:
        raise UsageError(
            f"--from {source} is {_a(sample)}: a contract projects named members of a JSON "
            "object, so the sample must be an object with at least one member"
        )
    name = Path(source).name
    schema = draft_schema(
        sample,
        f"{tool} payload",
        f"Drafted by toolguard init from {name}: the sample's shape, to tighten.",
    )
    size = subschemas(schema)
    if size > MAX_SUBSCHEMAS:
        raise UsageError(
            f"--from {source} has too many shapes to draft from: its schema would hold {size} "
            f"subschemas, over the {MAX_SUBSCHEMAS} `toolguard lint` walks; keep one typical "
            "answer, with fewer distinct members"
        )
    limits = limits_for(sample, raw, schema)
    if limits is None:
        raise UsageError(
            f"--from {source} is too large to draft from: its contract would need max_bytes over "
            f"{MAX_BYTES_CEILING} (lint TG015); keep one typical, smaller answer"
        )
    # NOTE: a member named "" has the pointer "/", which names nothing a contract may project.
    members = {key: value for key, value in sample.items() if key}
    if not members:
        raise UsageError(
            f'--from {source}: its only member is named "", which no contract projects'
        )
    _check_projectable(members, source)
    unsent = {key: found for key, value in members.items() if (found := left_out(key, value))}
    projected = [key for key in members if key not in unsent]
    if not projected:
        first = next(iter(unsent.values()))
        raise UsageError(
            f"--from {source}: no member can be projected, as each holds what the projection "
            f"refuses ({clean(first.pointer, 40)}: {first.reason}) ({first.reference})"
        )
    fields = _field_names(list(members))
    now = _now(sample)
    rules = _suggested_rules(members, fields, now)
    contract = contract_text(
        [
            f"{tool}: drafted by `toolguard init --from {name}`. A draft: read every line.",
            "The schema is the sample's shape, closed and bounded; its `decide:` comments mark",
            "what only you know (an enum, a pattern, a range). Keep in [projection] only what",
            "the agent needs, and bump `version` when the agent could notice a change.",
        ],
        top_entries(tool),
        [
            limits_table(limits, "the sample's, with room to spare: tighten them"),
            *rules,
            Table(
                "[projection]",
                [
                    _projected(field, key, value, unsent.get(key))
                    for field, (key, value) in zip(fields, members.items(), strict=True)
                ],
                "every member of the sample: keep only what the agent needs",
            ),
        ],
    )
    return Draft(
        tool,
        "sample",
        raw,
        sample,
        schema,
        limits,
        contract,
        None,
        now,
        tuple(projected),
        private=True,
        ruled=tuple(
            str(entry.value) for rule in rules for entry in rule.entries if entry.key == "pointer"
        ),
        left_out=tuple(unsent.values()),
    )


def _projected(field: str, key: str, value: Any, unsent: LeftOut | None) -> Entry:
    """A member's `[projection]` line: left out, commented, if the projection would refuse it.

    Projecting it would refuse the sample itself (`left_out.py`).
    """
    pointer = f"/{escape(key)}"
    if unsent is None:
        return Entry(field, pointer, f"{json_type(value)}: keep it if needed")
    comment = f"decide: left out, as {unsent.reason}; {unsent.advice}"
    return Entry(field, pointer, comment, commented=True)


def _check_projectable(projected: dict[str, Any], source: str) -> None:
    """Refuse a sample whose members the contract schema cannot project (exit 2, not 3).

    The draft projects every top-level member: their count and each pointer's length are
    held to the contract schema's bounds before a contract that breaks them is written.
    """
    if len(projected) > MAX_PROJECTED:
        raise UsageError(
            f"--from {source} has {len(projected)} members, and a contract projects at most "
            f"{MAX_PROJECTED} fields ([projection]): keep in the sample one typical answer "
            "with only the members the agent needs, then add the others to the schema"
        )
    for key in projected:
        pointer = f"/{escape(key)}"
        if len(pointer) > MAX_POINTER_LENGTH:
            raise UsageError(
                f"--from {source} has a member named {clean(key, 40)!r}: its pointer is over "
                f"the {MAX_POINTER_LENGTH} characters a contract allows, so it cannot be "
                "projected; remove it from the sample"
            )


def _a(value: Any) -> str:
    kind = json_type(value)
    if kind == "object":
        return "an empty object"
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind}"


def _suggested_rules(sample: dict[str, Any], fields: list[str], now: str) -> list[Table]:
    """Commented-out rules for the members they may fit: the author decides.

    Each one, uncommented, accepts the sample at the fixtures' clock `now` (given the request
    context it names): a `fresh` rule fits only a timestamp that recent (`_now`).
    """
    tables = []
    used: set[str] = set()  # rule names are unique in a contract: a cut field name may repeat
    for field, (key, value) in zip(fields, sample.items(), strict=True):
        pointer = f"/{escape(key)}"
        if _recent(sample, pointer, now):  # the rule refuses what is not a string
            tables.append(
                Table(
                    "[[rules]]",
                    [
                        Entry("name", _name(field, "_fresh", used)),
                        Entry("kind", "fresh"),
                        Entry("pointer", pointer),
                        Entry("max_age_seconds", FRESH_AGE),
                    ],
                    f"decide: does {pointer} say when this was true? then keep it recent",
                    commented=True,
                )
            )
        elif _names_a_thing(key) and (isinstance(value, int | str) and not isinstance(value, bool)):
            if isinstance(value, str) and not is_identifier(value):
                continue
            tables.append(
                Table(
                    "[[rules]]",
                    [
                        Entry("name", _name(field, "_matches_request", used)),
                        Entry("kind", "equals_context"),
                        Entry("pointer", pointer),
                        Entry("context", field),
                    ],
                    f"decide: is {pointer} what the request asked about?",
                    commented=True,
                )
            )
    return tables


def _recent(sample: dict[str, Any], pointer: str, now: str) -> bool:
    """Whether a suggested `fresh` rule at `pointer` accepts the sample at the clock `now`.

    The rule itself judges: the clock is after the latest timestamp, so an older one (a
    `created_at`) may be past the window, and a rule on it would refuse the sample.
    """
    try:
        fresh("suggested", pointer, FRESH_AGE)(sample, make_request(None, None, now))
    except RuleViolation:
        return False
    return True


def _names_a_thing(key: str) -> bool:
    return key.lower() == "id" or key.lower().endswith("_id") or key.endswith(("Id", "ID"))


def _name(field: str, suffix: str, used: set[str]) -> str:
    """`field` + `suffix` within the name's length, numbered if `used` holds it already."""
    number = 1
    while True:
        ending = suffix if number == 1 else f"{suffix}_{number}"
        name = field[: MAX_NAME_LENGTH - len(ending)].rstrip("_") + ending
        if name not in used:
            used.add(name)
            return name
        number += 1


def _field_names(keys: list[str]) -> list[str]:
    """A projection name for each member: snake_case ASCII, unique, as the contract allows."""
    names: list[str] = []
    for key in keys:
        spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", "_", key)
        ascii_only = unicodedata.normalize("NFKD", spaced).encode("ascii", "ignore").decode()
        name = re.sub(r"[^a-z0-9]+", "_", ascii_only.lower()).strip("_") or "field"
        if not name[0].isalpha():
            name = f"field_{name}"
        name = name[:MAX_NAME_LENGTH].rstrip("_")
        if name == _RESERVED:
            name = "display_text_field"
        unique, count = name, 1
        while unique in names:
            count += 1
            unique = f"{name[: MAX_NAME_LENGTH - len(str(count)) - 1]}_{count}"
        names.append(unique)
    return names


def _now(sample: dict[str, Any]) -> str:
    """A minute after the sample's latest timestamp, in its offset; else a fixed instant.

    So a `fresh` rule, once uncommented, accepts the sample; fixtures never depend on the
    day they run. Read in the timestamp's own offset, as the rule reads it: an instant at the
    edge of what a `datetime` holds (`0001-01-01T00:00:00+01:00`, the end of year 9999) has no
    UTC spelling, and a clock moved to another one would refuse the sample as stale or future.
    """
    instants = [instant for text in strings(sample) if (instant := parse_date_time(text))]
    if not instants:
        return DEFAULT_NOW
    latest = max(instants)
    try:
        later = (latest + timedelta(seconds=61)).replace(microsecond=0)
    except OverflowError:  # within a minute of the end of year 9999: its last instant then
        later = datetime.max.replace(tzinfo=latest.tzinfo)
    text = later.isoformat()
    return text.removesuffix("+00:00") + "Z" if text.endswith("+00:00") else text
