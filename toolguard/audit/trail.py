"""The audit stage: keep raw copies and append the record, or turn the answer into a failure.

It runs after the envelope is decided and before it is written: an answer whose record cannot
be written is replaced by `UPSTREAM_UNAVAILABLE` (retryable), unless the operator chose
`--audit-optional`, in which case the answer stands and the operator gets a warning.
"""

from __future__ import annotations

from toolguard.errors import AuditError, UsageError
from toolguard.frozen import frozen
from toolguard.result import unrecorded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from toolguard.audit import Command, Source
    from toolguard.audit.raw import Kept, RawStore
    from toolguard.contract import Contract
    from toolguard.contract.audit_policy import RawKeep
    from toolguard.request import Request
    from toolguard.result import Outcome


@frozen
class TrailOptions:
    """The operator's choices (flags, environment); None falls back to the contract's table."""

    log: Path | None = None
    raw_dir: Path | None = None
    raw_keep: RawKeep | None = None
    raw_max_file_bytes: int | None = None
    raw_max_total_bytes: int | None = None
    raw_max_age_seconds: int | None = None
    key_file: Path | None = None
    fsync: bool = False
    optional: bool = False


@frozen
class AuditTrail:
    """Where one contract's records and raw copies go, resolved once per process."""

    log: Path | None
    raw: RawStore | None
    raw_keep: RawKeep
    key_file: Path | None
    fsync: bool
    optional: bool

    @classmethod
    def build(
        cls, options: TrailOptions, contract: Contract, *, raw_max_file: int | None = None
    ) -> AuditTrail:
        """The operator's options over the contract's `[audit]` defaults; `UsageError` if unfit.

        `raw_max_file` is the command's own default for the raw-copy cap, where a raw copy is
        more than the response (`mcp` keeps the server's whole line); else `max_bytes`.

        Refused: a log that is standard output (the agent's), and a contract with secret
        context whose log is a stream (no `.key` beside it) with no key file named.
        """
        policy = contract.audit
        log_path = options.log or policy.log
        if log_path is not None:
            from toolguard.audit import log  # noqa: PLC0415 - only when a log is configured

            log.refuse_stdout(log_path)
        raw_dir = options.raw_dir or policy.raw_dir
        raw = None
        if raw_dir is not None:
            from toolguard.audit.raw import RawStore  # noqa: PLC0415 - only when configured

            raw = RawStore(
                raw_dir,
                max_file_bytes=_first(
                    options.raw_max_file_bytes,
                    policy.raw_max_file_bytes,
                    raw_max_file,
                    contract.limits.max_bytes,
                ),
                max_total_bytes=_first(options.raw_max_total_bytes, policy.raw_max_total_bytes),
                max_age_seconds=_first(options.raw_max_age_seconds, policy.raw_max_age_seconds),
            )
        key_file = options.key_file
        if key_file is None and log_path is not None:
            if not log.is_stream(log_path):
                key_file = log_path.with_name(log_path.name + ".key")
            elif policy.secret_context:
                raise UsageError(
                    f"the audit log {log_path} is not a regular file, so no key file lies "
                    "beside it: secret context needs --audit-key (or TOOLGUARD_AUDIT_KEY)"
                )
        if key_file is not None and log_path is not None and _same_file(key_file, log_path):
            raise UsageError(
                f"the audit key {key_file} is the audit log: whoever reads the log could then "
                "test guesses at the secret context; name another file"
            )
        return cls(
            log=log_path,
            raw=raw,
            raw_keep=options.raw_keep or policy.raw_keep,
            key_file=key_file,
            fsync=options.fsync,
            optional=options.optional,
        )

    @property
    def enabled(self) -> bool:
        """Whether anything is recorded at all."""
        return self.log is not None or self.raw is not None

    def seal(
        self,
        outcome: Outcome,
        contract: Contract,
        request: Request,
        *,
        command: Command,
        source: Source,
    ) -> tuple[Outcome, str | None]:
        """Record the outcome; return the outcome to emit and a warning for the operator.

        If the record or a raw copy cannot be written, the outcome becomes a retryable
        failure (or, with `optional`, stays as it was and the warning says what was lost).
        """
        if not self.enabled:
            return outcome, None
        # NOTE: imported here: most checks record nothing and should not pay for it.
        from toolguard.audit import log, record  # noqa: PLC0415

        warnings: list[str] = []
        try:
            kept = self._keep(outcome)
        except AuditError as exc:
            # NOTE: the raw copy is lost, but the record can still tell what the agent got.
            outcome = self._lost(outcome, exc, warnings)
            kept = []
        try:
            if self.log is not None:
                built = record.build(
                    outcome,
                    contract,
                    request,
                    command=command,
                    source=source,
                    kept=kept,
                    hash_secret=self._hasher(contract, request),
                )
                log.append(self.log, record.encode(built), fsync=self.fsync)
        except AuditError as exc:
            outcome = self._lost(outcome, exc, warnings)
        return outcome, _redacted("; ".join(warnings), contract, request) or None

    def _lost(self, outcome: Outcome, error: AuditError, warnings: list[str]) -> Outcome:
        """Fail closed, or (with `optional`) keep the outcome and add a warning."""
        if self.optional:
            warnings.append(f"audit trail not written (--audit-optional): {error.message}")
            return outcome
        return unrecorded(outcome, error)

    def _keep(self, outcome: Outcome) -> list[Kept]:
        if self.raw is None:
            return []
        statuses = [item.outcome for item in outcome.diagnostics.attempts] or [
            outcome.diagnostics.outcome
        ]
        kept = [
            self.raw.keep(raw)
            for raw, status in zip(outcome.responses, statuses, strict=False)
            if self.raw_keep == "all" or status != "success"
        ]
        if not any(item.kept for item in kept):
            # NOTE: a written copy prunes the folder; so must an answer that writes none, or
            # old copies outlive --raw-max-age wherever accepted answers are the norm.
            self.raw.prune()
        return kept

    def _hasher(self, contract: Contract, request: Request) -> Callable[[object], str] | None:
        if not contract.audit.secret_context & set(request.context):
            return None
        if self.key_file is None:
            raise AuditError("key_unreadable", "secret context needs an audit key file")
        from toolguard.audit.keys import keyed_hash, load_key  # noqa: PLC0415

        key = load_key(self.key_file)
        return lambda value: keyed_hash(key, value)


def _redacted(warning: str, contract: Contract, request: Request) -> str:
    """The warning as the operator may read it: a path it names may hold a secret value."""
    if not warning:
        return warning
    from toolguard.redaction import Secrets  # noqa: PLC0415 - only when a warning is due

    secrets = Secrets.of(contract.audit.secret_context, request.context)
    return warning if secrets is None else secrets.text(warning)


def _first(*values: int | None) -> int:
    return next(value for value in values if value is not None)


def _same_file(first: Path, second: Path) -> bool:
    """The same file by device and inode when both exist, else the same absolute path."""
    from toolguard.files import absolute_text  # noqa: PLC0415 - only when both are named

    try:
        one, other = first.stat(), second.stat()
    except OSError:
        return absolute_text(first) == absolute_text(second)
    return (one.st_dev, one.st_ino) == (other.st_dev, other.st_ino)
