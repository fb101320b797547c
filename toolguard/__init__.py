"""toolguard: make AI-agent tool output earn its way into the agent's context.

Load a contract once with `load_contract`, then `toolguard.check(contract, raw)` each response:
you get the envelope for the agent and the diagnostics for the operator, as two separate values.
"""

from __future__ import annotations

import sys

# NOTE: names are imported on first use (PEP 562): `toolguard check` pays only for the
# modules its path needs, and start-up is most of what a 1 KB check costs. Neither `typing`
# nor `importlib` is imported for it.
_EXPORTS = {
    "__version__": "toolguard.version",
    "check": "toolguard.pipeline",
    "Contract": "toolguard.contract",
    "load_contract": "toolguard.contract",
    "ContractError": "toolguard.errors",
    "Rejection": "toolguard.errors",
    "SchemaError": "toolguard.errors",
    "ToolguardError": "toolguard.errors",
    "UsageError": "toolguard.errors",
    "ValidationError": "toolguard.errors",
    "Limits": "toolguard.limits",
    "Diagnostics": "toolguard.result",
    "Outcome": "toolguard.result",
    "Validator": "toolguard.schema",
    "compile_schema": "toolguard.schema",
}

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

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
    from toolguard.pipeline import check
    from toolguard.result import Diagnostics, Outcome
    from toolguard.schema import Validator, compile_schema
    from toolguard.version import __version__

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
    "check",
    "compile_schema",
    "load_contract",
]


# NOTE: CPython 3.11.0 to 3.11.4 match some possessive quantifiers wrongly (python/cpython
# issues 100061 and 106052, fixed in 3.11.5; Debian 12's python3 is 3.11.2), and the strict
# parser and the format grammars are written with them: there a float token crashes the parser
# and `{` passes as a `uri-template`. pyproject.toml's `requires-python` stops pip; this stops
# the rest (a checkout on `PYTHONPATH`, `--ignore-requires-python`).
OLDEST_PYTHON = (3, 11, 5)


def unsupported_python() -> str | None:
    """Why this interpreter cannot run toolguard (it predates `OLDEST_PYTHON`), or None."""
    if sys.version_info >= OLDEST_PYTHON:
        return None
    running = ".".join(map(str, sys.version_info[:3]))
    return (
        f"toolguard needs Python {'.'.join(map(str, OLDEST_PYTHON))} or newer, not {running}:"
        " its regular expressions match possessive quantifiers wrongly (python/cpython#106052)"
    )


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'toolguard' has no attribute {name!r}")
    refused = unsupported_python()
    if refused is not None:
        raise ImportError(refused)
    __import__(module)
    value = getattr(sys.modules[module], name)
    globals()[name] = value
    return value
