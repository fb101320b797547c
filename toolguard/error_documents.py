"""Error documents: an answer that is the upstream's own report of an error, read as its code.

A contract may declare closed schemas for the errors a tool reports in its output (the TOML
spells them `[[run.error_documents]]`, as they are most often a command's). Checked right after
the payload is read, for `check` and `run` alike: an answer matching one becomes a failure
envelope with the declared code, before the payload schema could reject it as malformed.
"""

from __future__ import annotations

from toolguard.errors import UpstreamError
from toolguard.frozen import frozen

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

    from toolguard.errors import ErrorCode
    from toolguard.schema import Validator


@frozen
class Mapped:
    """The envelope code and retry hint an exit status or error document stands for."""

    code: ErrorCode
    retryable: bool


@frozen
class ErrorDocument:
    """A closed schema for an error the upstream reports in its output, and what it means."""

    validator: Validator
    meaning: Mapped
    source: str


def match(documents: tuple[ErrorDocument, ...], payload: Any) -> UpstreamError | None:
    """The failure `payload` reports, if it is one of the declared error documents."""
    for document in documents:
        if document.validator.is_valid(payload):
            return UpstreamError(
                "error_document",
                f"the upstream answered with the error document of {document.source}",
                code=document.meaning.code,
                retryable=document.meaning.retryable,
            )
    return None
