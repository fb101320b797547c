"""Semantic rules: what a schema cannot say, checked against the request on schema-valid payloads.

Each rule kind is one factory named after its contract keyword, registered in `RULE_BY_KIND`
with what lint and diff need to know of it (the field it reads, the parameters that widen it);
the contract schema lists the same kinds (a test keeps them in step). A rule is a frozen
callable: `rule(payload, request)` returns None or raises `RuleViolation` naming itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, ClassVar, Literal, Protocol

from toolguard import rfc3339
from toolguard.errors import RuleViolation
from toolguard.number import exact_number
from toolguard.pointer import MISSING, lookup
from toolguard.request import Request

_PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,63})\}")


class Rule(Protocol):
    """A named semantic check; `context_keys` are the request context values it reads."""

    @property
    def kind(self) -> str:
        """Its key in `RULE_BY_KIND`."""

    @property
    def name(self) -> str:
        """The rule's name in the contract, as diagnostics print it."""

    @property
    def context_keys(self) -> tuple[str, ...]:
        """The request context keys the rule reads."""

    @property
    def context_shape(self) -> type | tuple[type, ...]:
        """What each of those context values must be, checked before any byte is read."""

    def __call__(self, payload: Any, request: Request) -> None:
        """Raise `RuleViolation` unless `payload` passes."""


def _field(rule: Rule, payload: Any, pointer: str) -> Any:
    value = lookup(payload, pointer)
    if value is MISSING:
        raise RuleViolation("missing_field", f"{pointer} is absent", rule=rule.name)
    return value


def _same(left: Any, right: Any) -> bool:
    """JSON equality, at every depth: a boolean never equals a number, 1 equals 1.0."""
    if isinstance(left, bool) or isinstance(right, bool):
        return type(left) is type(right) and left == right
    if isinstance(left, int | float) and isinstance(right, int | float):
        return exact_number(left) == exact_number(right)  # as written, not as floats
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    return type(left) is type(right) and left == right


@dataclass(frozen=True, slots=True)
class _EqualsContext:
    kind: ClassVar[str] = "equals_context"
    name: str
    pointer: str
    context: str
    context_shape: ClassVar[type] = object

    @property
    def context_keys(self) -> tuple[str, ...]:
        return (self.context,)

    def __call__(self, payload: Any, request: Request) -> None:
        value = _field(self, payload, self.pointer)
        expected = request.context[self.context]
        if not _same(value, expected):
            raise RuleViolation(
                "mismatch",
                f"{self.pointer} is {value!r}, the request's {self.context!r} is {expected!r}",
                rule=self.name,
            )

    def __repr__(self) -> str:
        return f"{self.name}: {self.pointer} == context[{self.context!r}]"


def equals_context(name: str, pointer: str, context: str) -> Rule:
    """The field equals the request context value `context` (e.g. the project asked about)."""
    return _EqualsContext(name, pointer, context)


@dataclass(frozen=True, slots=True)
class _EqualsRequestId:
    kind: ClassVar[str] = "equals_request_id"
    name: str
    pointer: str
    context_keys: tuple[str, ...] = ()
    context_shape: ClassVar[type] = object

    def __call__(self, payload: Any, request: Request) -> None:
        value = _field(self, payload, self.pointer)
        if value != request.request_id or not isinstance(value, str):
            raise RuleViolation(
                "mismatch",
                f"{self.pointer} is {value!r}, the request id is {request.request_id!r}",
                rule=self.name,
            )

    def __repr__(self) -> str:
        return f"{self.name}: {self.pointer} == request id"


def equals_request_id(name: str, pointer: str) -> Rule:
    """The field echoes the request id toolguard was given or generated."""
    return _EqualsRequestId(name, pointer)


@dataclass(frozen=True, slots=True)
class _Fresh:
    kind: ClassVar[str] = "fresh"
    name: str
    pointer: str
    max_age_seconds: int
    max_future_seconds: int
    context_keys: tuple[str, ...] = ()
    context_shape: ClassVar[type] = object

    def __call__(self, payload: Any, request: Request) -> None:
        value = _field(self, payload, self.pointer)
        instant = rfc3339.parse_date_time(value) if isinstance(value, str) else None
        # NOTE: truncated to the microsecond for the age check, rounded up for the future check,
        # so a timestamp a fraction of a microsecond outside either bound is still outside.
        latest = rfc3339.parse_date_time(value, round_up=True) if instant else None
        if instant is None or latest is None:
            raise RuleViolation(
                "not_a_timestamp", f"{self.pointer} is not an RFC 3339 date-time", rule=self.name
            )
        now = request.clock()
        if now - instant > timedelta(seconds=self.max_age_seconds):
            raise RuleViolation(
                "stale",
                f"{self.pointer} is {value}, over {self.max_age_seconds}s before {now.isoformat()}",
                rule=self.name,
            )
        if latest - now > timedelta(seconds=self.max_future_seconds):
            raise RuleViolation(
                "future",
                f"{self.pointer} is {value}, over {self.max_future_seconds}s ahead of "
                f"{now.isoformat()}",
                rule=self.name,
            )

    def __repr__(self) -> str:
        return (
            f"{self.name}: {self.pointer} within -{self.max_age_seconds}s/"
            f"+{self.max_future_seconds}s of now"
        )


def fresh(name: str, pointer: str, max_age_seconds: int, max_future_seconds: int = 0) -> Rule:
    """The field is an RFC 3339 timestamp within a freshness window.

    At most `max_age_seconds` old and at most `max_future_seconds` ahead of the request's
    clock (`--now`, else the real clock).
    """
    return _Fresh(name, pointer, max_age_seconds, max_future_seconds)


@dataclass(frozen=True, slots=True)
class _MemberOfContext:
    kind: ClassVar[str] = "member_of_context"
    name: str
    pointer: str
    context: str
    context_shape: ClassVar[type] = list

    @property
    def context_keys(self) -> tuple[str, ...]:
        return (self.context,)

    def __call__(self, payload: Any, request: Request) -> None:
        value = _field(self, payload, self.pointer)
        allowed = request.context[self.context]
        if not any(_same(value, item) for item in allowed):
            raise RuleViolation(
                "not_a_member",
                f"{self.pointer} is {value!r}, not one of the request's {self.context!r}",
                rule=self.name,
            )

    def __repr__(self) -> str:
        return f"{self.name}: {self.pointer} in context[{self.context!r}]"


def member_of_context(name: str, pointer: str, context: str) -> Rule:
    """The field is one of the values in the request context list `context`."""
    return _MemberOfContext(name, pointer, context)


@dataclass(frozen=True, slots=True)
class _MatchesContextPattern:
    kind: ClassVar[str] = "matches_context_pattern"
    name: str
    pointer: str
    pattern: str
    context_shape: ClassVar[tuple[type, ...]] = (str, int, float)

    @property
    def context_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(_PLACEHOLDER.findall(self.pattern)))

    def __call__(self, payload: Any, request: Request) -> None:
        value = _field(self, payload, self.pointer)
        expression = _PLACEHOLDER.sub(
            lambda match: re.escape(str(request.context[match.group(1)])), self.pattern
        )
        if not isinstance(value, str) or re.fullmatch(expression, value, re.ASCII) is None:
            raise RuleViolation(
                "no_match",
                f"{self.pointer} is {value!r}, which does not match {expression!r}",
                rule=self.name,
            )

    def __repr__(self) -> str:
        return f"{self.name}: {self.pointer} matches {self.pattern!r}"


def matches_context_pattern(name: str, pointer: str, pattern: str) -> Rule:
    """The whole field matches `pattern` built from request context.

    `pattern` is a Python regular expression (ASCII classes, full match) in which each `{key}`
    is replaced by the escaped request context value `key`.
    """
    try:
        re.compile(_PLACEHOLDER.sub("x", pattern))
    except (re.error, OverflowError, RecursionError) as exc:
        raise ValueError(f"pattern {pattern!r} is not a valid regular expression: {exc}") from None
    return _MatchesContextPattern(name, pointer, pattern)


FieldType = Literal["scalar", "string", "date-time"]


@dataclass(frozen=True, slots=True)
class RuleKind:
    """One rule kind: its factory, and what lint and diff must know about it."""

    build: Callable[..., Rule]
    reads: FieldType  # what the pointed field must be (lint TG011)
    wider_when_higher: frozenset[str] = frozenset()  # parameters that accept more as they grow


RULE_BY_KIND: Mapping[str, RuleKind] = {
    "equals_context": RuleKind(equals_context, reads="scalar"),
    "equals_request_id": RuleKind(equals_request_id, reads="string"),
    "fresh": RuleKind(
        fresh,
        reads="date-time",
        wider_when_higher=frozenset({"max_age_seconds", "max_future_seconds"}),
    ),
    "member_of_context": RuleKind(member_of_context, reads="scalar"),
    "matches_context_pattern": RuleKind(matches_context_pattern, reads="string"),
}
