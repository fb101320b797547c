"""A jc parser as the text adapter (`toolguard[jc]`), held to toolguard's fail-closed rules.

jc fails open, always with exit status 0: on garbage its `df`, `ps` and `ls` parsers invent
records (the first line becomes the column names) and `ifconfig` returns `[]`. So nothing jc
says is trusted alone: the text must pass the same hygiene as the line adapter, an exception
or an empty result is a rejection, the result is re-read by the strict JSON parser within the
contract's limits, and the contract's closed schema must then reject invented records.
"""

from __future__ import annotations

import importlib
import json
from dataclasses import dataclass
from typing import Any

from toolguard.adapters import Setting
from toolguard.adapters.lines import strict_text
from toolguard.errors import ContractError, MissingExtra, ParseError
from toolguard.limits import Limits
from toolguard.parse import parse


@dataclass(frozen=True, slots=True)
class JcAdapter:
    """The contract's `[text] jc = "PARSER"`."""

    parser: str

    @classmethod
    def load(cls, parser: str, source: str, *, need_library: bool = True) -> JcAdapter:
        """Refuse the contract now if jc or the parser is missing, not on the first answer.

        `need_library=False` (for lint) builds it without jc: the parser name goes unchecked.
        """
        try:
            jc = importlib.import_module("jc")
        except ImportError:
            if not need_library:
                return cls(parser)
            raise MissingExtra(
                "jc",
                "[text] jc needs the jc extra: pip install 'toolguard-cli[jc]'",
                source=source,
                field="text.jc",
            ) from None
        if parser not in jc.parser_mod_list():
            raise ContractError(f"jc has no parser {parser!r}", source=source, field="text.jc")
        return cls(parser)

    def describe(self) -> dict[str, str]:
        """What made the payload, for the audit record: jc's version and its parser's."""
        import jc  # noqa: PLC0415 - loaded already: `load` and every call import it

        info = jc.parser_info(self.parser) or {}
        return {
            "kind": "jc",
            "parser": f"{self.parser} {info.get('version', '?')}",
            "version": jc.__version__,
        }

    def settings(self) -> dict[str, Setting]:
        """The parser decides everything jc reads."""
        return {"jc": Setting(self.parser, "jc parser")}

    def __call__(self, raw: bytes, limits: Limits) -> dict[str, Any]:
        """The document jc makes of the text, or a `ParseError` / `LimitExceeded`."""
        text = strict_text(raw)
        jc = importlib.import_module("jc")
        try:
            result = jc.parse(self.parser, text, quiet=True)
        except Exception as exc:  # noqa: BLE001 - jc raises anything on input it cannot read
            raise ParseError("jc_failed", f"jc {self.parser}: {type(exc).__name__}") from None
        if not result or not isinstance(result, list | dict):
            raise ParseError("jc_empty", f"jc {self.parser} found nothing in the output")
        try:
            encoded = json.dumps(result, allow_nan=False).encode()
        except (TypeError, ValueError):
            raise ParseError("jc_not_json", f"jc {self.parser} returned non-JSON data") from None
        document = parse(encoded, limits)  # the same budgets as any JSON answer
        return {"records": document} if isinstance(document, list) else {"record": document}
