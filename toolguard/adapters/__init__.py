"""Adapters: raw bytes -> the payload document the schema checks, one kind per contract.

Most tools answer JSON, read by the strict parser. Commands that print text go through a
`[text]` adapter: toolguard's own line patterns, or a jc parser (the `jc` extra). Each kind is
one module and one `ADAPTER_BY_KIND` entry; lint and diff learn what they need from the entry
and the adapter (`fixed_depth`, `settings`), never from a kind's name.
"""

from __future__ import annotations

from toolguard.frozen import frozen, replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from typing import Any, Protocol

    from toolguard.limits import Limits

    class Adapter(Protocol):
        """Turns one response's raw bytes into the payload, within the contract's limits."""

        def __call__(self, raw: bytes, limits: Limits) -> Any:
            """The payload, or a `ParseError` / `LimitExceeded`: never a guess."""

        def describe(self) -> dict[str, str]:
            """What made the payload, for the audit record (its kind, and versions if any)."""

        def settings(self) -> dict[str, Setting]:
            """The settings that decide what it accepts, keyed by their TOML name (for diff)."""


@frozen
class Setting:
    """One adapter setting, as `toolguard diff` compares it."""

    value: object
    label: str  # how a change names it: "line pattern", "min_lines"
    grows: int = 0  # +1: a higher value accepts more; -1: it accepts less; 0: any change both


@frozen
class AdapterKind:
    """A kind of adapter: how to build it from the contract, and what lint must know."""

    build: Callable[[Any, str, bool], Adapter]  # ([text], file, need_extras)
    fixed_depth: bool = False  # its documents' depth is its own: max_depth is not the author's
    label: str = ""  # how diff names it


def _json(table: Any, source: str, need_extras: bool) -> Adapter:
    from toolguard.adapters.strict_json import JsonAdapter  # noqa: PLC0415 - one kind per contract

    return JsonAdapter()


def _lines(table: Any, source: str, need_extras: bool) -> Adapter:
    from toolguard.adapters.lines import TextAdapter  # noqa: PLC0415 - one kind per contract

    return TextAdapter.load(table, source)


def _jc(table: Any, source: str, need_extras: bool) -> Adapter:
    from toolguard.adapters.jc import JcAdapter  # noqa: PLC0415 - one kind per contract

    return JcAdapter.load(table["jc"], source, need_library=need_extras)


ADAPTER_BY_KIND: Mapping[str, AdapterKind] = {
    "json": AdapterKind(_json, label="JSON"),
    "lines": AdapterKind(_lines, fixed_depth=True, label="line patterns"),
    "jc": AdapterKind(_jc, label="jc"),
}


def kind_of(document: Mapping[str, Any]) -> str:
    """The adapter kind a contract (its checked TOML, as data) asks for."""
    text = document.get("text")
    if text is None:
        return "json"
    return "jc" if "jc" in text else "lines"


def build_adapter(document: Mapping[str, Any], source: str, *, need_extras: bool = True) -> Adapter:
    """The contract's adapter; `need_extras=False` builds it without its optional library.

    `toolguard lint` checks a contract without the extras its adapter runs with.
    """
    kind = ADAPTER_BY_KIND[kind_of(document)]
    return kind.build(document.get("text"), source, need_extras)


def reading_text_blocks(adapter: Adapter) -> Adapter:
    """`adapter` as it reads an MCP text block (`[mcp] payload = "text"`): last newline optional.

    NOTE: a text block is a whole JSON string, its end known: a missing final newline cannot
    mean a cut, as it does in a command's output, and MCP servers rarely write one. Only
    `toolguard mcp` reads blocks: `check` and `test` cannot tell a block from a cut output
    piped to them, so there the final newline stays required (fail closed).
    """
    if not hasattr(adapter, "block"):
        return adapter  # JSON: a document's end is its own
    return replace(adapter, block=True)
