"""Fuzz target: raw bytes through the whole pipeline, against every bundled example contract.

For each input, `toolguard.check(contract, raw, ...)` runs with each example contract (JSON,
`[text]`, the signed one; the jc one on a share of the inputs) and the test suite's canary
contract, each with its own context and clock, and:

- returns exactly one outcome, never raises, and never reports a toolguard bug (`internal`);
- its envelope serialises to exactly one ASCII line, is valid against the contract's envelope
  schema, and agrees with the diagnostics (outcome, error code);
- a failure envelope is the fixed failure shape and never holds `seeds.CANARY`;
- a success of a JSON contract is a document the strict reference accepts within the
  contract's limits, valid against the contract's schema under python-jsonschema with every
  number read as written (a `Decimal`; `integer` means an integral value within the integer
  budget, however it is spelled), and each projected field is its value at its pointer;
- no string in a success envelope holds a code point a person cannot see (an independent
  subset of toolguard's rule), unless the contract lets that field through;
- the operator's diagnostics render, as text and as JSON, without a raw control character.

    python fuzz/pipeline_check.py -max_total_time=60
"""

from __future__ import annotations

import io
import json
import unicodedata
import zlib
from decimal import Decimal
from typing import Any

import harness
import jsonschema
import seeds
from reference import Refused, reference_parse, same

with harness.instrumented():
    import toolguard
    from toolguard import envelope, report
    from toolguard.contract import Contract
    from toolguard.projection import DISPLAY_TEXT_FIELD

# What toolguard must refuse in every string the agent receives, written without its code:
# categories, variation selectors but the two presentation ones, and the blank-looking symbols.
# The same categories never reach the operator's stderr raw.
_JOINERS = frozenset("\u200c\u200d")
_PRESENTATION = frozenset("\ufe0e\ufe0f")
_BLANKS = frozenset("\u2800\u3164\uffa0\u115f\u1160")


def _load() -> list[tuple[Contract, seeds.Example]]:
    return [(toolguard.load_contract(example.contract), example) for example in seeds.examples()]


def _payload_validator(contract: Contract) -> Any:
    """python-jsonschema over the contract's (bundled) payload schema, numbers as written."""
    bound = min(10**contract.limits.max_integer_digits - 1, 2**63 - 1)

    def is_integer(checker: Any, instance: Any) -> bool:
        if isinstance(instance, Decimal):
            return instance == instance.to_integral_value() and abs(instance) <= bound
        return isinstance(instance, int) and not isinstance(instance, bool)

    base = jsonschema.Draft202012Validator
    checker = base.TYPE_CHECKER.redefine("integer", is_integer)
    return jsonschema.validators.extend(base, type_checker=checker)(contract.validator.schema)


CONTRACTS = _load()
JC_SHARE = 16
PAYLOAD = {id(contract): _payload_validator(contract) for contract, _ in CONTRACTS}
ENVELOPE = {  # python-jsonschema over the envelope schema the contract publishes
    id(contract): jsonschema.Draft202012Validator(contract.envelope_schema)
    for contract, _ in CONTRACTS
}


def test_one_input(data: bytes) -> None:
    """Check one input with every contract; an `AssertionError` is a finding.

    The jc contract sees one input in `JC_SHARE`, chosen by the input's CRC (so a finding
    replays): jc runs in a child interpreter, which costs some 30 ms a check.
    """
    sampled = zlib.crc32(data) % JC_SHARE == 0
    for contract, example in CONTRACTS:
        if contract.adapter_kind != "jc" or sampled:
            check(contract, example, data)


def check(contract: Contract, example: seeds.Example, data: bytes) -> None:
    """Every property of this target for one contract and one input."""
    outcome = toolguard.check(
        contract, data, request_id=example.request_id, context=example.context, now=example.now
    )
    answer, diagnostics = outcome
    where = f"{contract.tool} ({contract.path.name})"
    assert diagnostics.outcome != "internal", f"{where}: internal error: {diagnostics.message}"
    line = envelope.dumps(answer)
    assert line.isascii(), f"{where}: the envelope line is not ASCII"
    assert line.endswith("\n") and line.count("\n") == 1, f"{where}: not exactly one line"
    assert same(json.loads(line), answer), f"{where}: the line does not read back as the envelope"
    ENVELOPE[id(contract)].validate(answer)
    assert answer["outcome"] == diagnostics.outcome, f"{where}: envelope and diagnostics differ"
    if diagnostics.outcome == "failure":
        expected = envelope.failure(
            contract.tool, example.request_id, diagnostics.error_code, answer["error"]["retryable"]
        )
        assert answer == expected, f"{where}: a failure envelope with more in it: {answer!r}"
        assert seeds.CANARY not in line, f"{where}: the canary reached a failure envelope"
    else:
        _check_success(contract, data, answer["data"], where)
    _check_diagnostics(outcome.diagnostics, where)


def _check_success(contract: Contract, data: bytes, fields: dict[str, Any], where: str) -> None:
    projection = contract.projection
    assert list(fields) == list(projection.names), f"{where}: projected {list(fields)}"
    for name, value in fields.items():
        if name not in projection.allow_hidden:
            _visible(value, display=name == DISPLAY_TEXT_FIELD, where=f"{where} field {name}")
    if contract.adapter_kind != "json":
        return
    try:
        document = reference_parse(data, contract.limits)
    except Refused as refused:
        raise AssertionError(
            f"{where}: accepted what the reference refuses ({refused.why})"
        ) from None
    as_written = reference_parse(data, contract.limits, as_written=True)
    error = next(PAYLOAD[id(contract)].iter_errors(as_written), None)
    assert error is None, f"{where}: accepted, but python-jsonschema says {error.message}"
    pointers = dict(projection.fields)
    if projection.display_text is not None:
        pointers[DISPLAY_TEXT_FIELD] = projection.display_text.pointer
    for name, pointer in pointers.items():
        assert same(fields[name], _lookup(document, pointer)), f"{where}: {name} is not {pointer}"


def _visible(value: Any, *, display: bool, where: str) -> None:
    """Fail if a string inside `value` holds a code point toolguard must have refused."""
    if isinstance(value, dict):
        for key, item in value.items():
            _visible(key, display=display, where=where)
            _visible(item, display=display, where=where)
    elif isinstance(value, list):
        for item in value:
            _visible(item, display=display, where=where)
    elif isinstance(value, str):
        for index, char in enumerate(value):
            assert _shown(value, index, display=display), (
                f"{where}: U+{ord(char):04X} at {index} reached the agent"
            )


def _shown(text: str, index: int, *, display: bool) -> bool:
    char = text[index]
    if display and char in "\t\n":
        return True
    if char in _BLANKS or 0xFE00 <= ord(char) <= 0xFE0D or 0xE0100 <= ord(char) <= 0xE01EF:
        return False
    if char in _JOINERS:
        return 0 < index < len(text) - 1  # toolguard asks more: a letter or emoji either side
    if char in _PRESENTATION:
        return index > 0 and text[index - 1] not in _PRESENTATION | _JOINERS
    return unicodedata.category(char) not in harness.REFUSED_CATEGORIES


def _check_diagnostics(diagnostics: Any, where: str) -> None:
    for mode in ("text", "json"):
        stream = io.StringIO()
        report.render(diagnostics, mode, stream)
        shown = stream.getvalue()
        assert shown.endswith("\n"), f"{where}: no {mode} diagnostics"
        harness.assert_escaped(shown, f"{where} ({mode} diagnostics)")
        if mode == "json":
            for line in shown.splitlines():
                json.loads(line)


def _lookup(document: Any, pointer: str) -> Any:
    """RFC 6901, written again: the reference document's value at `pointer`."""
    value = document
    for token in pointer.split("/")[1:]:
        name = token.replace("~1", "/").replace("~0", "~")
        value = value[int(name)] if isinstance(value, list) else value[name]
    return value


def main() -> None:
    """Fuzz, with every example's fixtures and the canary variants as seeds."""
    harness.run(
        "pipeline_check",
        test_one_input,
        seeds=seeds.responses,
        dictionary=seeds.JSON_TOKENS + seeds.TEXT_TOKENS,
    )


if __name__ == "__main__":
    main()
