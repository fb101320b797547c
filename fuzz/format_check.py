"""Fuzz target: every `format` checker on one string, against references and one another.

Each input, decoded as UTF-8 (a byte that is not becomes U+FFFD: a JSON string holds any
scalar value), is given to each checker of `toolguard.schema.formats.FORMATS` and to a schema
`{"format": NAME}` compiled with formats asserted. For each input:

- each checker returns `True` or `False`, never raises, and the compiled schema agrees;
- where the standard library or a plain grammar is a faithful reference, they agree:
  `ipv4` and `ipv6` with `ipaddress` (without a zone index), `date`, `time` and `date-time`
  with RFC 3339's expressions plus the calendar and the clock (`tests/test_rfc3339.py`),
  `uuid`, `json-pointer` and `relative-json-pointer` read here by hand, and `hostname` with
  RFC 1123's labels where no label is an A-label or reserved (`??--`);
- what a format's RFC makes a special case of another holds: a `hostname` is an
  `idn-hostname`, an `email` an `idn-email`, a `uri` an `iri` and a `uri-reference`, either
  one an `iri-reference`, and a `date-time` is a `date`, `T` and a `time`.

Time and memory are bounded by libFuzzer's `-timeout` and `-rss_limit_mb`.

    python fuzz/format_check.py -max_total_time=60
"""

from __future__ import annotations

import ipaddress
import string
import sys
from collections.abc import Callable

import harness
import seeds

with harness.instrumented():
    from toolguard.schema import compile_schema
    from toolguard.schema.formats import FORMAT_CHECKERS

sys.path.insert(0, str(harness.REPO))
from tests.test_rfc3339 import GRAMMAR, grammar_accepts

VALIDATORS = {name: compile_schema({"format": name}) for name in FORMAT_CHECKERS}
# Special cases: (narrower, wider) - every text the first accepts, the second accepts.
WITHIN = (
    ("hostname", "idn-hostname"),
    ("email", "idn-email"),
    ("uri", "iri"),
    ("uri", "uri-reference"),
    ("iri", "iri-reference"),
    ("uri-reference", "iri-reference"),
)
_HEX = frozenset(string.hexdigits)
_LDH = frozenset(string.ascii_letters + string.digits + "-")


def test_one_input(data: bytes) -> None:
    """Check one string with every format; an `AssertionError` is a finding."""
    text = data.decode("utf-8", "replace")
    verdicts = {}
    for name, checker in FORMAT_CHECKERS.items():
        verdict = checker(text)
        assert verdict is True or verdict is False, f"{name}: {verdict!r} is no bool"
        assert VALIDATORS[name].is_valid(text) is verdict, f"{name}: the schema disagrees"
        verdicts[name] = verdict
    for name, reference in REFERENCES.items():
        expected = reference(text)
        if expected is not None:
            assert verdicts[name] is expected, f"{name}: {verdicts[name]}, the reference {expected}"
    for narrower, wider in WITHIN:
        assert verdicts[wider] or not verdicts[narrower], f"a {narrower} but no {wider}"
    if verdicts["date-time"]:
        date, time = text[:10], text[11:]
        assert verdicts_of(date)["date"] and verdicts_of(time)["time"], "a date-time, split, is not"


def verdicts_of(text: str) -> dict[str, bool]:
    """Each checker's verdict on `text`."""
    return {name: checker(text) for name, checker in FORMAT_CHECKERS.items()}


def _ipv4(text: str) -> bool:
    try:
        ipaddress.IPv4Address(text)
    except ValueError:
        return False
    return True


def _ipv6(text: str) -> bool:
    if "%" in text:  # a zone index: `ipaddress` reads it, RFC 4291 address text has none
        return False
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True


def _rfc3339(reader: str) -> Callable[[str], bool]:
    expression = next(pattern for check, pattern in GRAMMAR.items() if check.__name__ == reader)
    return lambda text: grammar_accepts(expression.fullmatch(text))


def _uuid(text: str) -> bool:
    groups = text.split("-")
    return [len(group) for group in groups] == [8, 4, 4, 4, 12] and all(
        _HEX.issuperset(group) for group in groups
    )


def _json_pointer(text: str) -> bool:
    if text and not text.startswith("/"):
        return False
    return all(part[:1] in {"0", "1"} for part in text.split("~")[1:])


def _relative_json_pointer(text: str) -> bool:
    digits = len(text) - len(text.lstrip(string.digits))
    if digits == 0 or (digits > 1 and text[0] == "0"):
        return False
    rest = text[digits:]
    return rest == "#" or _json_pointer(rest)


def _hostname(text: str) -> bool | None:
    labels = text.split(".")
    if any(label[2:4] == "--" for label in labels):
        return None  # an A-label (or a reserved one): the IDNA rules decide, not LDH alone
    return len(text) <= 253 and all(
        0 < len(label) <= 63
        and _LDH.issuperset(label)
        and not label.startswith("-")
        and not label.endswith("-")
        for label in labels
    )


REFERENCES: dict[str, Callable[[str], bool | None]] = {
    "ipv4": _ipv4,
    "ipv6": _ipv6,
    "date": _rfc3339("is_date"),
    "time": _rfc3339("is_time"),
    "date-time": _rfc3339("is_date_time"),
    "uuid": _uuid,
    "json-pointer": _json_pointer,
    "relative-json-pointer": _relative_json_pointer,
    "hostname": _hostname,
}


def main() -> None:
    """Fuzz, with the strings of the JSON Schema Test Suite's format tests as seeds."""
    harness.run(
        "format_check",
        test_one_input,
        seeds=seeds.format_strings,
        dictionary=seeds.FORMAT_TOKENS,
        max_len=1024,
    )


if __name__ == "__main__":
    main()
