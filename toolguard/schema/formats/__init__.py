"""The `format` values toolguard asserts, each checked by a real parser rather than a loose regex.

A format missing from `FORMATS` is refused when a schema is compiled (with formats asserted),
because an unasserted format would silently let anything through. `idn-hostname` and
`idn-email` are held to IDNA2008 validity (RFC 5890-5893), not to UTS #46 mapping, so they need
only the Unicode data `unicodedata` has plus Joining_Type and Script, which `unicode_tables`
holds (generated from the Unicode Character Database).

Each checker's module is imported when a validator first checks that format (`checker`): a
check of a `date-time` never pays for the URI, network and IDNA grammars. `FORMAT_CHECKERS`
is every checker at once, for the schema compiler and the tests.
"""

from __future__ import annotations

from toolguard.standins import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Callable

# format -> (module, function): the one list of asserted formats.
FORMATS: dict[str, tuple[str, str]] = {
    "date-time": ("toolguard.rfc3339", "is_date_time"),
    "date": ("toolguard.rfc3339", "is_date"),
    "time": ("toolguard.rfc3339", "is_time"),
    "duration": ("toolguard.schema.formats.text", "is_duration"),
    "ipv4": ("toolguard.schema.formats.network", "is_ipv4"),
    "ipv6": ("toolguard.schema.formats.network", "is_ipv6"),
    "hostname": ("toolguard.schema.formats.network", "is_hostname"),
    "email": ("toolguard.schema.formats.network", "is_email"),
    "idn-hostname": ("toolguard.schema.formats.network", "is_idn_hostname"),
    "idn-email": ("toolguard.schema.formats.network", "is_idn_email"),
    "uri": ("toolguard.schema.formats.uri", "is_uri"),
    "uri-reference": ("toolguard.schema.formats.uri", "is_uri_reference"),
    "iri": ("toolguard.schema.formats.uri", "is_iri"),
    "iri-reference": ("toolguard.schema.formats.uri", "is_iri_reference"),
    "uri-template": ("toolguard.schema.formats.uri", "is_uri_template"),
    "uuid": ("toolguard.schema.formats.text", "is_uuid"),
    "json-pointer": ("toolguard.schema.formats.text", "is_json_pointer"),
    "relative-json-pointer": ("toolguard.schema.formats.text", "is_relative_json_pointer"),
    "regex": ("toolguard.schema.formats.text", "is_regex"),
}


@cache
def checker(name: str) -> Callable[[str], bool]:
    """The checker of the format `name` (its module imported now); `KeyError` if unknown."""
    module, function = FORMATS[name]
    found: Callable[[str], bool] = getattr(__import__(module, fromlist=[function]), function)
    return found


def __getattr__(name: str) -> dict[str, Callable[[str], bool]]:
    """`FORMAT_CHECKERS`: every format's checker, every module imported (PEP 562)."""
    if name != "FORMAT_CHECKERS":
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return {format_name: checker(format_name) for format_name in FORMATS}
