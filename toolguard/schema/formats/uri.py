r"""URI, IRI and URI Template syntax: RFC 3986 and RFC 3987 references, RFC 6570 templates.

Each grammar is its ABNF transcribed rule by rule into a regular expression over explicit
character ranges (never `\w` or `.`), matched against the whole text. Every repetition is
possessive (`*+`, `++`): no character a repetition takes can begin what the grammar allows
after it, so giving one back never helps, and `re` keeps no backtracking state for it (it
would hold ~200 bytes per character: 200 MB for a 1 MB string). An IP literal's body is
then checked by the `ipv6` parser, since the regex only finds its brackets.
"""

from __future__ import annotations

import re
from functools import cache

from toolguard.schema.formats.network import is_ipv6

_PCT = "%[0-9A-Fa-f]{2}"
_SUB_DELIMS = "!$&'()*+,;="
# RFC 3987 section 2.2: ucschar (letters of every plane but the private and special ones)
# and iprivate (allowed in a query only).
_UCSCHAR = (
    "\u00a0-\ud7ff\uf900-\ufdcf\ufdf0-\uffef"
    + "".join(f"{chr(plane << 16)}-{chr((plane << 16) | 0xFFFD)}" for plane in range(1, 14))
    + "\U000e1000-\U000efffd"
)
_IPRIVATE = "\ue000-\uf8ff\U000f0000-\U000ffffd\U00100000-\U0010fffd"
_IP_FUTURE = re.compile(rf"[vV][0-9A-Fa-f]+\.[A-Za-z0-9\-._~{_SUB_DELIMS}:]+")
_SCHEME = r"[A-Za-z][A-Za-z0-9+\-.]*+"


@cache
def _grammar(unicode: bool) -> tuple[re.Pattern[str], re.Pattern[str]]:
    """RFC 3986 section 3 (or RFC 3987 section 2.2): (absolute, relative) reference patterns.

    Compiled on first use: these patterns take ~40 ms, and most schemas name no URI format.
    """
    unreserved = r"A-Za-z0-9\-._~" + (_UCSCHAR if unicode else "")

    def chars(extra: str) -> str:
        return f"(?:[{unreserved}{_SUB_DELIMS}{extra}]|{_PCT})"

    pchar = chars(":@")
    segment = f"{pchar}*+"
    tail = f"(?:/{segment})*+"
    private = _IPRIVATE if unicode else ""
    query = f"(?:{pchar}|[/?{private}])*+"
    fragment = f"(?:{pchar}|[/?])*+"
    # host = IP-literal / IPv4address / reg-name; an IPv4address is also a reg-name.
    host = rf"\[(?P<literal>[^\]]*+)\]|{chars('')}*+"
    authority = f"(?:{chars(':')}*+@)?(?:{host})(?::[0-9]*+)?"
    path_absolute = f"/(?:{pchar}++{tail})?"
    hier_part = f"//{authority}{tail}|{path_absolute}|{pchar}++{tail}|"
    relative_part = f"//{authority}{tail}|{path_absolute}|{chars('@')}++{tail}|"
    ending = rf"(?:\?{query})?(?:#{fragment})?"
    return (
        re.compile(f"{_SCHEME}:(?:{hier_part}){ending}"),
        re.compile(f"(?:{relative_part}){ending}"),
    )


def _matches(pattern: re.Pattern[str], text: str) -> bool:
    match = pattern.fullmatch(text)
    if match is None:
        return False
    literal = match["literal"]
    return literal is None or is_ipv6(literal) or _IP_FUTURE.fullmatch(literal) is not None


def is_uri(text: str) -> bool:
    """RFC 3986 URI: a scheme is required; ASCII only, percent-encoding well formed."""
    return _matches(_grammar(unicode=False)[0], text)


def is_uri_reference(text: str) -> bool:
    """RFC 3986 URI-reference: a URI or a relative reference (the empty string included)."""
    absolute, relative = _grammar(unicode=False)
    return _matches(absolute, text) or _matches(relative, text)


def is_iri(text: str) -> bool:
    """RFC 3987 IRI: a URI that may also hold ucschar (and iprivate in the query)."""
    return _matches(_grammar(unicode=True)[0], text)


def is_iri_reference(text: str) -> bool:
    """RFC 3987 IRI-reference: an IRI or a relative IRI reference."""
    absolute, relative = _grammar(unicode=True)
    return _matches(absolute, text) or _matches(relative, text)


# RFC 6570 section 2. NOTE: literals include "'" per verified erratum 6937 (the published
# `%x26 / %x28-3B` became `%x26-3B`; the RFC's own `'{var}'` example needs it).
_LITERAL_ASCII = r"\x21\x23\x24\x26-\x3b\x3d\x3f-\x5b\x5d\x5f\x61-\x7a\x7e"
_LITERAL = f"(?:[{_LITERAL_ASCII}{_UCSCHAR}{_IPRIVATE}]|{_PCT})"
_VARCHAR = f"(?:[A-Za-z0-9_]|{_PCT})"
_VARSPEC = f"{_VARCHAR}(?:\\.?{_VARCHAR})*+(?::[1-9][0-9]{{0,3}}|\\*)?"
_EXPRESSION = f"\\{{[+#./;?&=,!@|]?{_VARSPEC}(?:,{_VARSPEC})*+\\}}"


@cache
def _uri_template() -> re.Pattern[str]:
    return re.compile(f"(?:{_LITERAL}|{_EXPRESSION})*+")


def is_uri_template(text: str) -> bool:
    """RFC 6570 URI Template (level 4 syntax): literals and well-formed `{...}` expressions."""
    return _uri_template().fullmatch(text) is not None
