"""The `Contract`: everything one tool's responses are checked against, as frozen data.

Built by `load.py` from a TOML file and its schemas; read by the pipeline, the audit writer,
lint, diff and serve. It has no behaviour of its own: `pipeline.check` is how a response is
checked against it.
"""

from __future__ import annotations

from toolguard.contract.audit_policy import AuditPolicy
from toolguard.contract.mcp_policy import McpPolicy
from toolguard.frozen import field, frozen
from toolguard.json_codec import loads
from toolguard.run.policy import RunPolicy
from toolguard.run.retry import RetryPolicy

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any

    from toolguard.adapters import Adapter
    from toolguard.error_documents import ErrorDocument
    from toolguard.limits import Limits
    from toolguard.projection import Projection
    from toolguard.rules import Rule
    from toolguard.schema import Validator


@frozen
class Contract:
    """Everything needed to check one tool's responses; load once, check many."""

    source: str  # the contract file as it was named (`path` is the same, as a `Path`)
    tool: str
    version: str
    limits: Limits
    adapter: Adapter
    adapter_kind: str  # its key in `adapters.ADAPTER_BY_KIND`
    validator: Validator
    rules: tuple[Rule, ...]
    projection: Projection
    success_validator: Validator  # every accepted envelope, before it is written
    envelope_schema_json: str
    digest: str = ""  # SHA-256 of the TOML, every compiled schema and every file a rule read
    error_documents: tuple[ErrorDocument, ...] = ()
    audit: AuditPolicy = field(default_factory=AuditPolicy)
    run: RunPolicy = field(default_factory=RunPolicy)
    retry: RetryPolicy = field(default_factory=RetryPolicy)
    mcp: McpPolicy = field(default_factory=McpPolicy)

    @property
    def path(self) -> Path:
        """The contract file (a `Path` made on demand: a check never imports `pathlib`)."""
        from pathlib import Path  # noqa: PLC0415

        return Path(self.source)

    @property
    def envelope_schema(self) -> dict[str, Any]:
        """The schema of every envelope this contract produces (a fresh copy each time)."""
        result: dict[str, Any] = loads(self.envelope_schema_json)
        return result
