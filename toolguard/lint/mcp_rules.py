"""Contract rules for `[mcp]`: how `toolguard mcp` names the tool and feeds the rules.

Lint checks them only for a contract with an `[mcp]` table: one meant to guard an MCP tool.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from toolguard.lint.contract_rules import ContractSubject
from toolguard.lint.findings import Hit, lint_rule
from toolguard.pointer import escape
from toolguard.rules import RULE_BY_KIND

# MCP 2025-11-25, "Tool names": 1 to 128 of these characters, case-sensitive.
_MCP_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")


@lint_rule(
    "TG022",
    "mcp-tool-name",
    """A tool name every MCP client accepts keeps the guarded tool callable by that name.

    So `[mcp] tool` follows the MCP specification's rule (2025-11-25): 1 to 128 ASCII letters,
    digits, `_`, `-` and `.`; a client may refuse, rename or drop another name.
    """,
)
def mcp_tool_name(contract: ContractSubject) -> Iterator[Hit]:
    name = contract.document.get("mcp", {}).get("tool")
    if name is not None and not _MCP_TOOL_NAME.fullmatch(name):
        yield Hit(
            contract.file,
            "/mcp/tool",
            f"[mcp] tool {name!r} is not 1-128 of A-Z a-z 0-9 _ - . (MCP's tool-name rule)",
        )


@lint_rule(
    "TG023",
    "mcp-context",
    """Match the request: a rule compares the answer with what the agent asked for.

    So with `[mcp]`, every context key a rule reads is given by `[mcp.context]` (a pointer into
    the call's `arguments`; without it `toolguard mcp` refuses every call), and every
    `[mcp.context]` key is read by a rule (or it checks nothing).
    """,
)
def mcp_context(contract: ContractSubject) -> Iterator[Hit]:
    table = contract.document.get("mcp")
    if table is None:
        return
    given = table.get("context", {})
    read: dict[str, str] = {}
    for rule in contract.document.get("rules", []):
        for key in _context_keys(rule):
            read.setdefault(key, rule["name"])
    for key, rule_name in read.items():
        if key not in given:
            yield Hit(
                contract.file,
                "/mcp",
                f"rule {rule_name!r} reads context {key!r}, which [mcp.context] does not give: "
                "toolguard mcp would refuse every call",
            )
    for key, pointer in given.items():
        if key not in read:
            yield Hit(
                contract.file,
                f"/mcp/context/{escape(key)}",
                f"[mcp.context] {key} = {pointer!r} is read by no rule",
            )


def _context_keys(rule: dict[str, str]) -> tuple[str, ...]:
    """The context keys a rule entry reads, as its kind builds it (none if it cannot)."""
    options = {key: value for key, value in rule.items() if key != "kind"}
    try:
        return RULE_BY_KIND[rule["kind"]].build(**options).context_keys
    except (TypeError, ValueError):
        return ()  # the loader refuses it, and says why


MCP_RULES = (
    mcp_tool_name,
    mcp_context,
)
