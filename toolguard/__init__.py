"""toolguard: make AI-agent tool output earn its way into the agent's context.

Load a contract once with `load_contract`, then `contract.check(raw)` each response: you get
the envelope for the agent and the diagnostics for the operator, as two separate values.
"""

from toolguard.contract import Contract, load_contract
from toolguard.errors import (
    ContractError,
    Rejection,
    SchemaError,
    ToolguardError,
    UsageError,
    ValidationError,
)
from toolguard.limits import Limits
from toolguard.result import Diagnostics, Outcome
from toolguard.schema import Validator, compile_schema

__version__ = "0.1.0"

__all__ = [
    "Contract",
    "ContractError",
    "Diagnostics",
    "Limits",
    "Outcome",
    "Rejection",
    "SchemaError",
    "ToolguardError",
    "UsageError",
    "ValidationError",
    "Validator",
    "__version__",
    "compile_schema",
    "load_contract",
]
