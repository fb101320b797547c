"""One small hierarchy: every failure toolguard knows about, with a stable code and exit status.

Rejections describe the *response* and become failure envelopes (exit 1); the other errors
describe the *invocation* (a flag, a contract, a bug) and never produce a success envelope.
`cli/respond.py` turns these into exit statuses in one place, using `ExitStatus`.

`ErrorCode` is the one list of agent-facing codes: the envelope schema, the contract schema and
the audit record schema are checked against it (`tests/test_errors.py`).
"""

from __future__ import annotations

from toolguard.frozen import frozen

TYPE_CHECKING = False  # NOTE: not `typing.TYPE_CHECKING`: a check never imports `typing`
if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence
    from typing import Any, ClassVar, Literal, TypeAlias

    Layer: TypeAlias = Literal[
        "upstream", "input", "limits", "parse", "schema", "rule", "projection", "audit"
    ]
    ErrorCode: TypeAlias = Literal["NOT_FOUND", "UPSTREAM_UNAVAILABLE", "INVALID_RESPONSE"]

# The same values as the two `Literal` types above (a test keeps them in step).
ERROR_CODES: tuple[ErrorCode, ...] = ("NOT_FOUND", "UPSTREAM_UNAVAILABLE", "INVALID_RESPONSE")
LAYERS: tuple[Layer, ...] = (
    "upstream",
    "input",
    "limits",
    "parse",
    "schema",
    "rule",
    "projection",
    "audit",
)


class _Statuses(type):
    """Iterating `ExitStatus` lists the statuses in order, as iterating an enum would."""

    def __iter__(cls) -> Iterator[ExitStatus]:
        return iter(_ALL_STATUSES)


class ExitStatus(int, metaclass=_Statuses):
    """Process exit statuses; the README's table is checked against this class.

    NOTE: not an `IntEnum`, on purpose: importing `enum` costs a one-shot check about a
    twentieth of what starting Python costs. Each status is an `ExitStatus`, an `int` with a
    `name`, made once below; iterating the class gives them in order.
    """

    name: str
    SUCCESS: ClassVar[ExitStatus]  # a success envelope was printed
    FAILURE: ClassVar[ExitStatus]  # a failure envelope was printed: the response was rejected
    USAGE: ClassVar[ExitStatus]  # bad flag, request id or request context; nothing on stdout
    # bad contract or schema (refused before any input is read); nothing on stdout
    CONTRACT: ClassVar[ExitStatus]
    # a toolguard bug; a failure envelope is printed if the request id is known
    INTERNAL: ClassVar[ExitStatus]
    # `mcp`: the MCP server could not start, or ended first and not cleanly
    SERVER_FAILED: ClassVar[ExitStatus]
    # SIGINT/SIGTERM/SIGHUP during set-up, before a request exists; nothing on stdout
    INTERRUPTED: ClassVar[ExitStatus]

    def __repr__(self) -> str:
        return f"<ExitStatus.{self.name}: {int(self)}>"

    __str__ = int.__repr__  # the number, as for an `IntEnum` (in messages and f-strings)


def _status(name: str, value: int) -> ExitStatus:
    status = int.__new__(ExitStatus, value)
    status.name = name
    setattr(ExitStatus, name, status)
    return status


_ALL_STATUSES = tuple(
    _status(name, value)
    for name, value in (
        ("SUCCESS", 0),
        ("FAILURE", 1),
        ("USAGE", 2),
        ("CONTRACT", 3),
        ("INTERNAL", 4),
        ("SERVER_FAILED", 5),
        ("INTERRUPTED", 130),
    )
)


class ToolguardError(Exception):
    """Base of every error toolguard raises on purpose."""

    exit_status: ClassVar[ExitStatus] = ExitStatus.INTERNAL

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its arguments and attributes, whatever its `__init__` takes.

        NOTE: `Exception`'s own rebuilds it as `cls(*args)`, which a subclass taking other
        arguments (a `Rejection`: reason and message) refuses: a process pool handing one back
        to its host would fail to unpickle it.
        """
        return _unpickled, (type(self), self.args), self.__dict__


def _unpickled(cls: type[ToolguardError], args: tuple[Any, ...]) -> ToolguardError:
    """An error of `cls` with `args`, its `__init__` skipped (its attributes follow)."""
    return cls.__new__(cls, *args)


class BrokenInstall(ToolguardError):
    """Raised when a required dependency is missing, or installed without a part toolguard needs.

    Not a bug and not the response's fault: a dependency the environment lacks (`broken_install`
    finds its `ModuleNotFoundError`), or ijson without its C backend (a build from source with
    no compiler, or a version with no wheel for this Python). The message says what to
    (re)install; the answer is an internal error's (exit 4), with that message instead of a trace.
    """


# The runtime dependencies (pyproject.toml's `dependencies`), by the module each is imported as:
# a test keeps the two in step.
DEPENDENCIES = {
    "click": "click",
    "fastjsonschema": "fastjsonschema",
    "ijson": "ijson",
    "re2": "google-re2",
    "rich": "rich",
}


def broken_install(exc: BaseException | None) -> BrokenInstall | None:
    """The broken install `exc` reveals, or None: then it is a bug, or no install's fault.

    A `ModuleNotFoundError` for a runtime dependency (a venv that lacks it, `python -S`) says
    which distribution to install; any other missing module (one of toolguard's own, a
    dependency's dependency) is left to be reported as the bug or breakage it is.
    """
    if isinstance(exc, BrokenInstall):
        return exc
    if isinstance(exc, ModuleNotFoundError) and exc.name:
        module = exc.name.partition(".")[0]
        if module in DEPENDENCIES:
            return missing_dependency(module)
    return None


def missing_dependency(module: str) -> BrokenInstall:
    """The broken install of a runtime dependency (a `DEPENDENCIES` key) that is not there.

    Also for code that looks for a dependency without importing it (the compile cache's
    fingerprint): a missing one is told the same way, whoever found it missing.
    """
    package = DEPENDENCIES[module]
    # NOTE: the package itself, not toolguard-cli: that name may not be on PyPI yet (README)
    return BrokenInstall(
        f"toolguard's dependency {package} is not installed (pip install {package})"
    )


class UsageError(ToolguardError):
    """Raised for a bad flag, request id or context: the caller must fix the call."""

    exit_status = ExitStatus.USAGE


class ContextError(UsageError):
    """Raised when the request context lacks a value a rule reads, or holds it in another shape.

    The message says what the rules need, not how to give it: each way in (`check`'s flags,
    a fixture's `context.json`, a `serve` request's `context`) adds its own hint.
    """


@frozen
class Problem:
    """One thing wrong in a contract: its dotted field, what is wrong, and where (from 1)."""

    field: str
    message: str
    line: int | None = None
    column: int | None = None


class ContractError(ToolguardError):
    """Raised when a contract file is missing, malformed, or names something invalid.

    `source` is the file and `field` the dotted location inside it, so the message can
    point the operator at the exact line to fix. A contract the contract schema refuses
    carries every problem found (`problems`, each with its line and column); `message` and
    `field` are the first's, and `lines()` gives one line per problem.
    """

    exit_status = ExitStatus.CONTRACT

    def __init__(  # noqa: PLR0913 - a problem's parts, or several problems
        self,
        message: str,
        *,
        source: str = "",
        field: str = "",
        line: int | None = None,
        column: int | None = None,
        problems: Sequence[Problem] = (),
    ) -> None:
        self.source = source
        self._hold(tuple(problems) or (Problem(field, message, line, column),))

    def place(self, position: Callable[[str], tuple[int, int]]) -> None:
        """Put each problem that names a field but no line where `position` finds that field.

        The loader's checks after the contract schema's (an undeclared pointer, a rule name
        given twice, a rule option its factory refuses) know the field, not the line: the
        loader places them from the TOML text, so every problem reads `FILE:LINE:COLUMN`.
        """
        placed = [
            Problem(problem.field, problem.message, *position(problem.field))
            if problem.line is None and problem.field
            else problem
            for problem in self.problems
        ]
        self._hold(tuple(sorted(placed, key=lambda problem: problem.line or 0)))

    def _hold(self, problems: tuple[Problem, ...]) -> None:
        self.problems = problems
        self.message = problems[0].message
        self.field = problems[0].field
        more = len(problems) - 1
        self.args = (self._line(problems[0]) + (f" (and {more} more)" if more else ""),)

    def lines(self) -> list[str]:
        """Every problem on a line of its own: `FILE:LINE:COLUMN: FIELD: MESSAGE`."""
        return [self._line(problem) for problem in self.problems]

    def _line(self, problem: Problem) -> str:
        place = self.source
        if place and problem.line is not None:
            place += f":{problem.line}" + (f":{problem.column}" if problem.column else "")
        where = ": ".join(part for part in (place, problem.field) if part)
        return f"{where}: {problem.message}" if where else problem.message


class MissingExtra(ContractError):
    """Raised when a contract needs an optional extra that is not installed (`jc`, `signed`).

    `extra` names it: `toolguard test` reports that contract as an error naming the extra
    and goes on with the others; everywhere else it is a contract error like any other.
    """

    def __init__(self, extra: str, message: str, *, source: str = "", field: str = "") -> None:
        self.extra = extra
        super().__init__(message, source=source, field=field)

    @classmethod
    def needed_by(cls, what: str, extra: str, *, source: str = "", field: str = "") -> MissingExtra:
        """`what` needs `extra`: the message says how to install it, by name or from a clone."""
        install = f"pip install 'toolguard-cli[{extra}]' (from a clone: pip install '.[{extra}]')"
        return cls(extra, f"{what} needs the {extra} extra: {install}", source=source, field=field)


class SchemaError(ContractError):
    """Raised when a schema is invalid or uses a keyword, format or ref toolguard cannot enforce.

    Refusing is the fail-closed answer: a schema keyword that is silently ignored would let
    through exactly what the schema author meant to forbid.
    """


class SchemaUnreadable(SchemaError):
    """Raised when a schema file cannot be read at all: the contract naming it is at fault."""

    def blamed_on(self, source: str, field: str, relative: str) -> ContractError:
        """The same fault told as the contract's: `field` of `source` names `relative`."""
        reason = self.message.removeprefix("cannot read schema: ")
        return ContractError(f"cannot read {relative}: {reason}", source=source, field=field)


class Rejection(ToolguardError):
    """Raised when a response fails a stage; it becomes a failure envelope (exit 1).

    `reason` is a stable slug for machines (`duplicate_member`, `too_deep`, ...); `message` is
    operator text that may quote hostile input and must only reach stderr and the audit log.
    So `str()`, `repr()` and `args` say only the layer and the reason (`schema: pattern`): a
    host that logs the exception or hands its text on passes no byte of the response.
    """

    exit_status = ExitStatus.FAILURE
    layer: ClassVar[Layer]
    # NOTE: per class, except for `UpstreamError`, whose code depends on what happened.
    code: ErrorCode = "INVALID_RESPONSE"
    retryable: bool = False

    def __init__(  # noqa: PLR0913 - every field is a diagnostic the operator needs
        self,
        reason: str,
        message: str,
        *,
        offset: int | None = None,
        schema_path: str | None = None,
        instance_path: str | None = None,
        rule: str | None = None,
    ) -> None:
        super().__init__(f"{self.layer}: {reason}")
        self.reason = reason
        self.message = message
        self.offset = offset
        self.schema_path = schema_path
        self.instance_path = instance_path
        self.rule = rule


def operator_text(error: ToolguardError) -> str:
    """All that `error` says, for the operator only: a rejection's `message`, else its `str`."""
    return error.message if isinstance(error, Rejection) else str(error)


class UpstreamError(Rejection):
    """Raised when the upstream command gave no usable answer (`toolguard run`).

    Not started, timed out, killed by a signal, an exit status the contract maps, or an
    error document it declares; the code and retry hint depend on which.
    """

    layer = "upstream"

    def __init__(self, reason: str, message: str, *, code: ErrorCode, retryable: bool) -> None:
        super().__init__(reason, message)
        self.code = code
        self.retryable = retryable


class InputError(Rejection):
    """Raised when the response could not be read at all (an I/O error on stdin or the file)."""

    layer = "input"
    code = "UPSTREAM_UNAVAILABLE"
    retryable = True


class LimitExceeded(Rejection):
    """Raised when the response crosses a byte, depth, string, container or number budget."""

    layer = "limits"


class ParseError(Rejection):
    """Raised when the bytes are not one strict JSON document (RFC 8259 plus our policy)."""

    layer = "parse"


class ValidationError(Rejection):
    """Raised when the parsed payload does not satisfy the contract's JSON Schema."""

    layer = "schema"


class RuleViolation(Rejection):
    """Raised when a schema-valid payload fails a semantic rule (wrong project, stale, ...)."""

    layer = "rule"


class ProjectionError(Rejection):
    """Raised when a declared field cannot be projected (absent, or unsafe display text)."""

    layer = "projection"


class AuditError(Rejection):
    """Raised when the audit record or the raw copy cannot be written (disk full, permission).

    Fail closed: an answer nobody could explain later is not given (`--audit-optional` waives).
    """

    layer = "audit"
    code = "UPSTREAM_UNAVAILABLE"
    retryable = True
