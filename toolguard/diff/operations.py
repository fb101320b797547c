"""How the upstream is run and read: `[run]`, `[retry]` and `[text]` -> changes.

None of these change the `data` the agent receives; some change which failure code and retry
hint it gets for the same upstream behaviour (`failure-changed`), and most change which
upstream behaviours end in a success.
"""

from __future__ import annotations

from collections.abc import Hashable

from toolguard.adapters import ADAPTER_BY_KIND
from toolguard.contract import Contract
from toolguard.diff.change import (
    BOTH,
    FAILURE,
    LESS,
    MORE,
    NONE,
    Change,
    Upstream,
    change,
    flip,
    show,
    show_all,
    widened,
)
from toolguard.diff.graph import json_key
from toolguard.error_documents import ErrorDocument, Mapped
from toolguard.run.environment import DEFAULT_NAMES, INHERIT
from toolguard.run.policy import unmapped_exit
from toolguard.run.retry import RetryPolicy, time_limits

TYPE_CHECKING = False
if TYPE_CHECKING:
    from toolguard.run.environment import Inherit

_UNMAPPED = Mapped(unmapped_exit(1).code, unmapped_exit(1).retryable)


def run_changes(old: Contract, new: Contract) -> list[Change]:
    """The timeout, the environment, exit statuses and error documents."""
    changes: list[Change] = []
    before, after = old.run, new.run
    # NOTE: the timeouts as they apply (an unset one is the default, within the budget).
    timeouts = (time_limits(before, old.retry)[0], time_limits(after, new.retry)[0])
    if timeouts[0] != timeouts[1]:
        how = "raised" if timeouts[1] > timeouts[0] else "lowered"
        detail = f"{timeouts[0]} -> {timeouts[1]} s"
        upstream = widened(*timeouts)
        changes.append(change("run.timeout_seconds", f"timeout {how}", detail, upstream))
    if before.env != after.env:
        detail = f"{_env(before.env)} -> {_env(after.env)}: the command may behave differently"
        changes.append(change("run.env", "environment changed", detail, BOTH))
    for status in sorted(set(before.exit_statuses) | set(after.exit_statuses)):
        was = before.exit_statuses.get(status, _UNMAPPED)
        now = after.exit_statuses.get(status, _UNMAPPED)
        if was != now:
            upstream = _retried(was, old.retry, now, new.retry)
            detail = f"{status}: {_mapped(was)} -> {_mapped(now)}"
            where = f"run.exit_status.{status}"
            changes.append(change(where, "exit status mapping changed", detail, upstream, FAILURE))
    return changes + _error_document_changes(old, new)


def _error_document_changes(old: Contract, new: Contract) -> list[Change]:
    """Error documents, matched by schema: a new one turns matching answers into failures.

    The first entry for a schema is the one that applies (`error_documents.match`). An
    entry whose code is retried also gives answers the payload schema rejected another
    attempt, so adding or removing one is `both`; so is reordering entries that are not
    all retried alike, since an answer matching two gets the first one's code.
    """
    before, after = _first_by_schema(old), _first_by_schema(new)
    changes: list[Change] = []
    for key, doc in before.items():
        where = f"run.error_documents.{doc.source}"
        if key not in after:
            detail = f"{doc.source} ({_mapped(doc.meaning)}): such answers now reach the schema"
            upstream = BOTH if _is_retried(doc.meaning, old.retry) else MORE
            changes.append(change(where, "error document removed", detail, upstream, FAILURE))
        elif after[key].meaning != doc.meaning:
            upstream = _retried(doc.meaning, old.retry, after[key].meaning, new.retry)
            detail = f"{_mapped(doc.meaning)} -> {_mapped(after[key].meaning)}"
            changes.append(change(where, "error document code changed", detail, upstream, FAILURE))
    for key, doc in after.items():
        if key not in before:
            detail = f"{doc.source} ({_mapped(doc.meaning)}): matching answers are now failures"
            where = f"run.error_documents.{doc.source}"
            upstream = BOTH if _is_retried(doc.meaning, new.retry) else LESS
            changes.append(change(where, "error document added", detail, upstream, FAILURE))
    kept = [key for key in before if key in after]
    if kept != [key for key in after if key in before]:
        detail = "an answer matching two of them gets the first one's code"
        retried = {_is_retried(before[key].meaning, old.retry) for key in kept}
        retried |= {_is_retried(after[key].meaning, new.retry) for key in kept}
        upstream = BOTH if len(retried) > 1 else NONE
        changes.append(
            change("run.error_documents", "error documents reordered", detail, upstream, FAILURE)
        )
    return changes


def _first_by_schema(contract: Contract) -> dict[Hashable, ErrorDocument]:
    """Error documents by schema, in order; of two with one schema only the first applies."""
    documents: dict[Hashable, ErrorDocument] = {}
    for doc in contract.error_documents:
        documents.setdefault(json_key(doc.validator.schema), doc)
    return documents


def retry_changes(old: Contract, new: Contract) -> list[Change]:
    """More attempts or budget accept more; longer backoff fits fewer attempts in the budget."""
    before, after = old.retry, new.retry
    active = before.max_attempts > 1 or after.max_attempts > 1
    changes: list[Change] = []
    # NOTE: budgets as they apply: an unset one follows a longer timeout.
    budgets = (time_limits(old.run, before)[1], time_limits(new.run, after)[1])
    for name, sense, was, now in (
        ("max_attempts", 1, before.max_attempts, after.max_attempts),
        ("budget_seconds", 1, *budgets),
        (
            "initial_backoff_seconds",
            -1,
            before.initial_backoff_seconds,
            after.initial_backoff_seconds,
        ),
        ("max_backoff_seconds", -1, before.max_backoff_seconds, after.max_backoff_seconds),
    ):
        if was == now:
            continue
        upstream = widened(was, now) if sense > 0 else flip(widened(was, now))
        detail = f"{was} -> {now}"
        if not active:
            upstream, detail = NONE, f"{detail} (a single attempt either way: no effect)"
        how = "raised" if now > was else "lowered"
        changes.append(change(f"retry.{name}", f"retry {name} {how}", detail, upstream))
    added, dropped = after.retry_on - before.retry_on, before.retry_on - after.retry_on
    for codes, what, impact in ((added, "added", MORE), (dropped, "removed", LESS)):
        if codes:
            detail = show_all(sorted(codes))
            if not active:
                detail += " (a single attempt either way: no effect)"
            upstream = impact if active else NONE
            changes.append(change("retry.retry_on", f"retried code {what}", detail, upstream))
    return changes


def text_changes(old: Contract, new: Contract) -> list[Change]:
    """The adapter: another kind reads differently; its settings as each declares their sense."""
    if old.adapter_kind != new.adapter_kind:
        labels = (ADAPTER_BY_KIND[old.adapter_kind].label, ADAPTER_BY_KIND[new.adapter_kind].label)
        return [change("text", "text adapter changed", " -> ".join(labels), BOTH)]
    before, after = old.adapter.settings(), new.adapter.settings()
    changes: list[Change] = []
    for name in [*before, *(name for name in after if name not in before)]:
        was, now = before.get(name), after.get(name)
        setting = now or was
        if setting is None or (was and was.value) == (now and now.value):
            continue
        old_value, new_value = was and was.value, now and now.value
        where = f"text.{name}"
        if setting.grows and isinstance(old_value, int) and isinstance(new_value, int):
            upstream = widened(old_value, new_value)
            how = "raised" if new_value > old_value else "lowered"
            detail = f"{old_value} -> {new_value}"
            impact = upstream if setting.grows > 0 else flip(upstream)
            changes.append(change(where, f"{setting.label} {how}", detail, impact))
        else:
            detail = f"{show(old_value)} -> {show(new_value)}"
            changes.append(change(where, f"{setting.label} changed", detail, BOTH))
    return changes


def _retried(was: Mapped, old: RetryPolicy, now: Mapped, new: RetryPolicy) -> Upstream:
    """Whether a failure that used to be retried (and might then succeed) still is."""
    before, after = _is_retried(was, old), _is_retried(now, new)
    return NONE if before == after else MORE if after else LESS


def _is_retried(meaning: Mapped, policy: RetryPolicy) -> bool:
    """Whether a failure with this code and hint gets another attempt under `policy`."""
    return meaning.retryable and meaning.code in policy.retry_on and policy.max_attempts > 1


def _mapped(meaning: Mapped) -> str:
    return f"{meaning.code}{' (retryable)' if meaning.retryable else ''}"


def _env(names: tuple[str, ...] | Inherit) -> str:
    if names == INHERIT:
        return "all variables but TOOLGUARD_*"
    if names == DEFAULT_NAMES:
        return "the default allow-list"
    return show_all(names) or "none"
