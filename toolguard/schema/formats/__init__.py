"""The `format` values toolguard asserts, each checked by a real parser rather than a loose regex.

A format missing from `FORMAT_CHECKERS` is refused when a schema is compiled (with formats
asserted), because an unasserted format would silently let anything through. `idn-hostname`
and `idn-email` are held to IDNA2008 validity (RFC 5890-5893), not to UTS #46 mapping, so
they need only the Unicode data `unicodedata` has plus Joining_Type and Script, which
`unicode_tables` holds (generated from the Unicode Character Database).
"""

from __future__ import annotations

from collections.abc import Callable

from toolguard import rfc3339
from toolguard.schema.formats import network, text, uri

FORMAT_CHECKERS: dict[str, Callable[[str], bool]] = {
    "date-time": rfc3339.is_date_time,
    "date": rfc3339.is_date,
    "time": rfc3339.is_time,
    "duration": text.is_duration,
    "ipv4": network.is_ipv4,
    "ipv6": network.is_ipv6,
    "hostname": network.is_hostname,
    "email": network.is_email,
    "idn-hostname": network.is_idn_hostname,
    "idn-email": network.is_idn_email,
    "uri": uri.is_uri,
    "uri-reference": uri.is_uri_reference,
    "iri": uri.is_iri,
    "iri-reference": uri.is_iri_reference,
    "uri-template": uri.is_uri_template,
    "uuid": text.is_uuid,
    "json-pointer": text.is_json_pointer,
    "relative-json-pointer": text.is_relative_json_pointer,
    "regex": text.is_regex,
}
