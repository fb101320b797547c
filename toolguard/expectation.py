"""What a fixture expects, and how far the real outcome is from it.

A reject fixture's `NAME.expect.toml` -> a frozen `Expectation` (code and layer, optionally the
rule, the schema keyword and the reason); an accept fixture's golden envelope -> a diff.
"""

from __future__ import annotations

import difflib
import json
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import get_args

from toolguard.envelope import ERROR_CODES
from toolguard.errors import ErrorCode, Layer
from toolguard.result import Diagnostics

LAYERS: tuple[Layer, ...] = get_args(Layer)
KEYS = ("code", "layer", "rule", "keyword", "reason")


class FixtureError(Exception):
    """Raised when a fixture's own files are unusable (missing, malformed, unknown keys).

    It never leaves `toolguard test`: the case is reported as an error, the run goes on.
    """


@dataclass(frozen=True, slots=True)
class Expectation:
    """How a reject fixture must fail: its code and layer, optionally rule, keyword, reason."""

    code: ErrorCode
    layer: Layer
    rule: str | None = None
    keyword: str | None = None  # compared with the last segment of the schema path
    reason: str | None = None

    @classmethod
    def read(cls, path: Path) -> Expectation:
        """Read and check `NAME.expect.toml`; raise `FixtureError` saying what is wrong."""
        try:
            with path.open("rb") as handle:
                table = tomllib.load(handle)
        except FileNotFoundError:
            raise FixtureError(f"{path.name} is missing (it states the code and layer)") from None
        except OSError as exc:
            raise FixtureError(f"cannot read {path.name}: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise FixtureError(f"{path.name}: {exc}") from None
        unknown = sorted(set(table) - set(KEYS))
        if unknown:
            raise FixtureError(f"{path.name}: unknown keys {unknown}; allowed: {', '.join(KEYS)}")
        if not all(isinstance(value, str) for value in table.values()):
            raise FixtureError(f"{path.name}: every value must be a string")
        if table.get("code") not in ERROR_CODES:
            raise FixtureError(f"{path.name}: code must be one of {', '.join(ERROR_CODES)}")
        if table.get("layer") not in LAYERS:
            raise FixtureError(f"{path.name}: layer must be one of {', '.join(LAYERS)}")
        for key, layer in (("rule", "rule"), ("keyword", "schema")):
            if key in table and table["layer"] != layer:
                raise FixtureError(f"{path.name}: {key} only goes with layer = {layer!r}")
        return cls(**table)

    def mismatch(self, diagnostics: Diagnostics) -> str | None:
        """None if the outcome failed exactly as expected, else the difference in one line."""
        if diagnostics.outcome == "success":
            return f"expected {describe(self)}, got success"
        pairs = (
            (self.code, diagnostics.error_code),
            (self.layer, diagnostics.layer),
            (self.rule, diagnostics.rule),
            (self.keyword, keyword(diagnostics.schema_path)),
            (self.reason, diagnostics.reason),
        )
        if all(want is None or want == got for want, got in pairs):
            return None
        if self.code != diagnostics.error_code:
            return (
                f"expected {self.code} at {describe(self, code=False)}, got "
                f"{diagnostics.error_code} at {observed(diagnostics)}: {diagnostics.message}"
            )
        return f"expected {describe(self)}, got {observed(diagnostics)}: {diagnostics.message}"


def describe(expect: Expectation, *, code: bool = True) -> str:
    """`rule project_matches`, `schema keyword pattern`, `upstream (error_document), NOT_FOUND`.

    The code is named only when it is not the usual INVALID_RESPONSE (and `code` is true).
    """
    text = " ".join(
        part
        for part in (expect.layer, expect.rule, expect.keyword and f"keyword {expect.keyword}")
        if part
    )
    if expect.reason:
        text += f" ({expect.reason})"
    return text if not code or expect.code == "INVALID_RESPONSE" else f"{text}, {expect.code}"


def observed(diagnostics: Diagnostics) -> str:
    """`schema /properties/project_id/pattern`, `rule project_matches (mismatch)`, ..."""
    where = diagnostics.rule or diagnostics.schema_path
    text = f"{diagnostics.layer} {where}" if where else str(diagnostics.layer)
    if diagnostics.reason and diagnostics.reason != keyword(diagnostics.schema_path):
        text += f" ({diagnostics.reason})"
    return text


def keyword(schema_path: str | None) -> str | None:
    """The schema keyword that failed: the last segment of the schema path."""
    return schema_path.rsplit("/", 1)[-1] if schema_path else None


def golden_diff(golden: bytes, actual: bytes, name: str) -> str:
    """A unified diff of the two envelopes, pretty-printed so one changed field is one line."""
    before, after = _lines(golden), _lines(actual)
    if before == after:  # same JSON value, different bytes: show the bytes
        before, after = [repr(golden)], [repr(actual)]
    return "\n".join(
        difflib.unified_diff(before, after, f"{name} (golden)", "actual", lineterm="", n=2)
    )


def _lines(document: bytes) -> list[str]:
    try:
        return json.dumps(json.loads(document), indent=2, ensure_ascii=True).splitlines()
    except ValueError:
        return document.decode("utf-8", errors="replace").splitlines()
