"""Semantic rules: what a schema cannot say, checked against the request on schema-valid payloads.

Each rule kind is one factory named after its contract keyword, registered in `RULE_BY_KIND`
with what lint and diff need to know of it (the field it reads, the parameters that widen it);
the contract schema lists the same kinds (a test keeps them in step). A rule is a frozen
callable: `rule(payload, request)` returns None or raises `RuleViolation` naming itself.
"""

from __future__ import annotations

from toolguard import rfc3339
from toolguard.digest import sha256_hex
from toolguard.errors import RuleViolation, SchemaError
from toolguard.frozen import frozen
from toolguard.json_codec import loads
from toolguard.number import ExactFloat, exact_number
from toolguard.pointer import MISSING, lookup
from toolguard.rfc3339 import timedelta
from toolguard.standins import cache

TYPE_CHECKING = False  # NOTE: a check imports neither `typing` nor `dataclasses` (frozen.py)
if TYPE_CHECKING:
    import re
    from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
    from typing import Any, ClassVar, Literal, Protocol

    from toolguard.request import Request
    from toolguard.signed.keyset import KeySet

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

    FieldType = Literal["scalar", "string", "bounded-string", "date-time"]


@cache
def _placeholder() -> re.Pattern[str]:
    """A `{key}` in a `matches_context_pattern` template (compiled for that rule kind only)."""
    import re  # noqa: PLC0415

    return re.compile(r"\{([A-Za-z_][A-Za-z0-9_]{0,63})\}")


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
        # As written, and as delivered: a 17-digit number reaches the agent as its nearest
        # float, so one the request named exactly must not stand for a float it did not name.
        return left == right and exact_number(left) == exact_number(right)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    return type(left) is type(right) and left == right


def _shown(value: Any) -> str:
    """`value` for a rule's message: a number its float misrepresents shows what was written."""
    if type(value) is ExactFloat:
        return f"{value.exact} (delivered as {float(value)!r})"
    return repr(value)


def _typed_hint(value: Any, expected: Any, key: str, *, listed: bool = False) -> str:
    """Why a number never equals its digits, and what to pass instead, when that is the mistake.

    A rule cannot tell where a string came from: `--context K=V` (always a string), a context
    file or a `serve` request (`"42"` written quoted). So the hint names both ways to a typed
    value: `--context-json KEY=JSON`, and the value unquoted in JSON.
    """
    if not isinstance(expected, str) or isinstance(value, str | dict | list):
        return ""
    kind = "boolean" if isinstance(value, bool) else "null" if value is None else "number"
    literal = _json_literal(expected)
    if listed:
        flag, unquoted = f"{key}=[...] passes typed values", "its items without quotes"
    else:
        flag = f"{key}={literal} passes a typed value"
        unquoted = f'{literal}, not "{literal}"' if literal != "JSON" else f"a {kind}"
    return (
        f" (a {kind} never equals a string: --context passes strings only, --context-json"
        f" {flag}; in a context file or request, write {unquoted})"
    )


def _json_literal(text: str) -> str:
    """`text` if it reads as a JSON scalar (`42`, `true`), else a placeholder."""
    try:
        return text if not isinstance(loads(text), dict | list) else "JSON"
    except ValueError:
        return "JSON"


@frozen
class _EqualsContext:
    kind: ClassVar[str] = "equals_context"
    name: str
    pointer: str
    context: str
    # a list would be compared whole with whatever the field holds: the membership rule's shape
    context_shape: ClassVar[tuple[type, ...]] = (str, int, float, bool, type(None))

    @property
    def context_keys(self) -> tuple[str, ...]:
        return (self.context,)

    def __call__(self, payload: Any, request: Request) -> None:
        value = _field(self, payload, self.pointer)
        expected = request.context[self.context]
        if not _same(value, expected):
            raise RuleViolation(
                "mismatch",
                f"{self.pointer} is {_shown(value)}, the request's {self.context!r} is "
                f"{_shown(expected)}" + _typed_hint(value, expected, self.context),
                rule=self.name,
            )

    def __repr__(self) -> str:
        return f"{self.name}: {self.pointer} == context[{self.context!r}]"


def equals_context(name: str, pointer: str, context: str) -> Rule:
    """The field equals the request context value `context` (e.g. the project asked about)."""
    return _EqualsContext(name, pointer, context)


@frozen
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


@frozen
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
        bounds = rfc3339.instant_bounds(value) if isinstance(value, str) else None
        if bounds is None:
            raise RuleViolation(
                "not_a_timestamp", f"{self.pointer} is not an RFC 3339 date-time", rule=self.name
            )
        # NOTE: truncated to the microsecond for the age check, rounded up for the future check,
        # so a timestamp a fraction of a microsecond outside either bound is still outside.
        instant, latest = bounds
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


@frozen
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
            hints = (_typed_hint(value, item, self.context, listed=True) for item in allowed)
            raise RuleViolation(
                "not_a_member",
                f"{self.pointer} is {_shown(value)}, not one of the request's {self.context!r}"
                + next((hint for hint in hints if hint), ""),
                rule=self.name,
            )

    def __repr__(self) -> str:
        return f"{self.name}: {self.pointer} in context[{self.context!r}]"


def member_of_context(name: str, pointer: str, context: str) -> Rule:
    """The field is one of the values in the request context list `context`."""
    return _MemberOfContext(name, pointer, context)


@frozen
class _MatchesContextPattern:
    kind: ClassVar[str] = "matches_context_pattern"
    name: str
    pointer: str
    pattern: str
    # NOTE: no float, no boolean: their text is not what the request wrote (`1e16` is put in as
    # `1e+16`, `9007199254740992.9` as `9007199254740992.0`, `true` as `True`).
    context_shape: ClassVar[tuple[type, ...]] = (str, int)

    @property
    def context_keys(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(_placeholder().findall(self.pattern)))

    def __call__(self, payload: Any, request: Request) -> None:
        import re  # noqa: PLC0415 - only for this rule kind

        from toolguard.schema.matcher import Matcher, UnmatchableText  # noqa: PLC0415 - RE2
        from toolguard.schema.python_regex import translate_python  # noqa: PLC0415

        value = _field(self, payload, self.pointer)
        expression = _placeholder().sub(
            lambda match: re.escape(str(request.context[match.group(1)])), self.pattern
        )
        try:
            # NOTE: the template passed `refusal` when the contract loaded; a context value
            # only adds literal text, so this runs too, unless a huge value outgrows RE2.
            matched = isinstance(value, str) and Matcher(translate_python(expression)).fullmatch(
                value
            )
        except (ValueError, SchemaError, UnmatchableText):
            matched = False
        if not matched:
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
    is replaced by the escaped request context value `key`. It runs on RE2, in time linear in
    the field; what RE2 cannot run the same way is refused (see `schema/python_regex.py`).
    """
    from toolguard.schema.matcher import refusal  # noqa: PLC0415 - only for this rule kind
    from toolguard.schema.python_regex import translate_python  # noqa: PLC0415

    translated = translate_python(_placeholder().sub("x", pattern))  # raises ValueError
    why = refusal(translated)
    if why is not None:
        raise ValueError(f"pattern {pattern!r} {why}")
    return _MatchesContextPattern(name, pointer, pattern)


_SHAPE_WORDS = {str: "a string", int: "an integer", float: "a number", bool: "a boolean"}
_SCALARS = (str, int, float, bool, type(None))


def context_problem(rule: Rule, value: Any) -> str | None:
    """Why `value` cannot be a context value `rule` reads (`must be a list`), or None if it can.

    Checked before any byte is read. A boolean is an `int` to `isinstance`, never to JSON: it
    fits only a shape that names `bool`. An empty string, alone or in a list, is refused: it is
    what `--context key=$UNSET` gives, and a rule would then vouch for an empty field, or `{key}`
    in a pattern would vanish (`{project}/[a-z]+` would match `/x`, a path of no project).
    """
    shape = rule.context_shape
    shapes = shape if isinstance(shape, tuple) else (shape,)
    fits = bool in shapes if isinstance(value, bool) else isinstance(value, shapes)
    if not fits:
        if shapes == (list,):
            return "must be a list"
        if shapes == _SCALARS:
            return "must be a scalar"
        words = [_SHAPE_WORDS[each] for each in shapes]
        return f"must be {', '.join(words[:-1])} or {words[-1]}"
    if value == "" or (isinstance(value, list) and "" in value):
        return "is empty" if value == "" else "holds an empty string"
    return None


@frozen
class ContractFile:
    """A file a rule option names (relative to the contract), as the loader read it."""

    name: str  # as the contract writes it
    raw: bytes

    @property
    def sha256(self) -> str:
        """The digest the contract's own digest and its artefact's freshness check cover."""
        return sha256_hex(self.raw)


@frozen
class _Signed:
    kind: ClassVar[str] = "signed"
    name: str
    pointer: str
    keys: KeySet
    algorithms: tuple[str, ...]
    issuer: str
    audience: str | None
    max_age_seconds: int | None
    clock_skew_seconds: int
    max_lifetime_seconds: int | None
    claims: tuple[tuple[str, str], ...]  # (claim, payload pointer): what the token vouches for
    typ: tuple[str, ...] | None  # the token kinds accepted, as `media_type`s; None: any
    context_keys: tuple[str, ...] = ()
    context_shape: ClassVar[type] = object

    def __call__(self, payload: Any, request: Request) -> None:
        from toolguard.signed.verify import verify  # noqa: PLC0415 - only signed contracts

        token = _field(self, payload, self.pointer)
        try:
            verified = verify(token, request.clock(), self)
        except RuleViolation as violation:
            violation.rule = self.name
            raise
        for claim, pointer in self.claims:
            value = _field(self, payload, pointer)
            if claim not in verified:
                raise RuleViolation(
                    "claim_missing", f"the token has no {claim!r} claim to bind", rule=self.name
                )
            if not _same(verified[claim], value):
                raise RuleViolation(
                    "claim_mismatch",
                    f"the token's {claim!r} is {_shown(verified[claim])}, {pointer} is "
                    f"{_shown(value)}",
                    rule=self.name,
                )

    def __repr__(self) -> str:
        bound = ", ".join(f"{claim}={pointer}" for claim, pointer in self.claims)
        return (
            f"{self.name}: {self.pointer} signed ({', '.join(self.algorithms)}) by "
            f"{self.issuer!r} with {self.keys!r}"
            + (f", typ {' or '.join(self.typ)}" if self.typ else "")
            + (f", binding {bound}" if bound else "")
        )


def signed(  # noqa: PLR0913, PLR0917 - one parameter per contract option, as in every factory
    name: str,
    pointer: str,
    keys: ContractFile,
    algorithms: Sequence[str],
    issuer: str,
    audience: str | None = None,
    max_age_seconds: int | None = None,
    clock_skew_seconds: int = 0,
    max_lifetime_seconds: int | None = None,
    claims: Mapping[str, str] | None = None,
    typ: str | Sequence[str] | None = None,
    *,
    need_library: bool = True,
) -> Rule:
    """The field is a compact JWS that verifies offline under the contract's pinned policy.

    Signed with one of `algorithms` by a public key in the JWK Set `keys`, issued by exactly
    `issuer`, current by the request's clock (`exp`, `nbf`, `iat`, `max_age_seconds`,
    `max_lifetime_seconds`, each within `clock_skew_seconds`), for `audience` if one is named
    (an `aud` claim is refused otherwise), of a kind `typ` names if it names any (RFC 8725
    §3.11), and each `claims` entry equal to the payload value at its pointer.
    `need_library=False` (lint) builds it without the `signed` extra.
    """
    # NOTE: deferred, so that contracts without this rule never import the signed package.
    from toolguard.signed.algorithms import pinned  # noqa: PLC0415
    from toolguard.signed.jose import import_keys  # noqa: PLC0415
    from toolguard.signed.keyset import read_key_set  # noqa: PLC0415
    from toolguard.signed.verify import pinned_types  # noqa: PLC0415

    listed = pinned(algorithms)
    types = pinned_types(typ)
    if not issuer:
        raise ValueError("issuer is empty: name the one issuer whose tokens are accepted")
    key_set = read_key_set(keys.name, keys.raw, listed)
    if need_library:
        key_set = import_keys(key_set)
    return _Signed(
        name,
        pointer,
        key_set,
        listed,
        issuer,
        audience,
        max_age_seconds,
        clock_skew_seconds,
        max_lifetime_seconds,
        tuple((claims or {}).items()),
        types,
    )


def _token_routes(rule: Rule) -> frozenset[Any]:
    """What a signed rule's keys and algorithms let through, together (see `KeySet.routes`)."""
    return rule.keys.routes(rule.algorithms) if isinstance(rule, _Signed) else frozenset()


def _ignored_keys(rule: Rule) -> Iterator[tuple[str, str]]:
    """The keys of a signed rule's set that no listed algorithm can use, or not to verify."""
    if isinstance(rule, _Signed):
        yield from (("keys", f"{rule.keys.file} {why}") for why in rule.keys.ignored)


@frozen
class RuleKind:
    """One rule kind: its factory, and what the loader, lint and diff must know about it."""

    build: Callable[..., Rule]
    reads: FieldType  # what the pointed field must be (lint TG011)
    wider_when_higher: frozenset[str] = frozenset()  # numbers that accept more as they grow
    # (None, no bound, is the highest)
    wider_when_more: frozenset[str] = frozenset()  # collections: a superset accepts more
    # (None, no restriction, is the largest)
    narrower_when_more: frozenset[str] = frozenset()  # collections: a superset accepts less
    # Options that widen or narrow only together: diff compares what `accepted` gives for a
    # built rule, the set of ways in they leave open (a superset accepts more).
    judged_together: frozenset[str] = frozenset()
    accepted: Callable[[Rule], frozenset[Any]] = lambda _: frozenset()
    files: frozenset[str] = frozenset()  # options naming a file beside the contract
    binds: str | None = None  # the option mapping names to the payload pointers it vouches for
    extra: str | None = None  # the optional extra it needs (`need_library=False`: lint)
    # What a built rule's configuration sets aside, as (option, why): lint's TG020 notices.
    ignored: Callable[[Rule], Iterable[tuple[str, str]]] = lambda _: ()


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
    "signed": RuleKind(
        signed,
        reads="bounded-string",
        wider_when_higher=frozenset(
            {"max_age_seconds", "clock_skew_seconds", "max_lifetime_seconds"}
        ),
        wider_when_more=frozenset({"typ"}),
        narrower_when_more=frozenset({"claims"}),
        # NOTE: not "more keys accept more": a token without a kid passes only while exactly
        # one key fits its alg, so a key (or an algorithm) added can take a way in away.
        judged_together=frozenset({"keys", "algorithms"}),
        accepted=_token_routes,
        files=frozenset({"keys"}),
        binds="claims",
        extra="signed",
        ignored=_ignored_keys,
    ),
}
