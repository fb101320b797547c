r"""Sets of code points for ECMA-262 patterns: `\d`, `\w`, `\s` and `\p{...}` as explicit ranges.

Python's `re` spells these classes with Unicode meanings ECMA-262 does not give them, so the
pattern translator never emits `\d` or `\w`: it emits the ranges held here. `\p{...}` takes
its General_Category from `category_table` (generated from the Unicode Character Database,
the version of the other generated tables, so a pattern means the same on every Python); a
property that needs data toolguard does not carry (Alphabetic, Emoji...) is named in
`UNSUPPORTED`, and a Script value in `category_table.SCRIPT_NAMES`, so the pattern is still
recognised as valid ECMA-262, but a schema using it is refused.
"""

from __future__ import annotations

import functools
import itertools
import sys

Ranges = tuple[tuple[int, int], ...]

MAX_CODE_POINT = sys.maxunicode
DIGIT: Ranges = ((0x30, 0x39),)
WORD: Ranges = ((0x30, 0x39), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A))
# ECMA-262 WhiteSpace and LineTerminator: TAB VT FF SP NBSP ZWNBSP, Zs, LF CR LS PS.
SPACE: Ranges = (
    (0x09, 0x0D), (0x20, 0x20), (0xA0, 0xA0), (0x1680, 0x1680), (0x2000, 0x200A),
    (0x2028, 0x2029), (0x202F, 0x202F), (0x205F, 0x205F), (0x3000, 0x3000), (0xFEFF, 0xFEFF),
)  # fmt: skip
LINE_TERMINATOR: Ranges = ((0x0A, 0x0A), (0x0D, 0x0D), (0x2028, 0x2029))

# General_Category values and their aliases (PropertyValueAliases.txt), as sets of categories.
_GROUPS = {
    "L": "Lu Ll Lt Lm Lo",
    "LC": "Lu Ll Lt",
    "M": "Mn Mc Me",
    "N": "Nd Nl No",
    "P": "Pc Pd Ps Pe Pi Pf Po",
    "S": "Sm Sc Sk So",
    "Z": "Zs Zl Zp",
    "C": "Cc Cf Cs Co Cn",
}
_LONG_NAMES = {
    "Letter": "L", "Cased_Letter": "LC", "Uppercase_Letter": "Lu", "Lowercase_Letter": "Ll",
    "Titlecase_Letter": "Lt", "Modifier_Letter": "Lm", "Other_Letter": "Lo", "Mark": "M",
    "Combining_Mark": "M", "Nonspacing_Mark": "Mn", "Spacing_Mark": "Mc",
    "Enclosing_Mark": "Me", "Number": "N", "Decimal_Number": "Nd", "digit": "Nd",
    "Letter_Number": "Nl", "Other_Number": "No", "Punctuation": "P", "punct": "P",
    "Connector_Punctuation": "Pc", "Dash_Punctuation": "Pd", "Open_Punctuation": "Ps",
    "Close_Punctuation": "Pe", "Initial_Punctuation": "Pi", "Final_Punctuation": "Pf",
    "Other_Punctuation": "Po", "Symbol": "S", "Math_Symbol": "Sm", "Currency_Symbol": "Sc",
    "Modifier_Symbol": "Sk", "Other_Symbol": "So", "Separator": "Z", "Space_Separator": "Zs",
    "Line_Separator": "Zl", "Paragraph_Separator": "Zp", "Other": "C", "Control": "Cc",
    "cntrl": "Cc", "Format": "Cf", "Surrogate": "Cs", "Private_Use": "Co", "Unassigned": "Cn",
}  # fmt: skip
_CATEGORIES = {
    name: tuple(_GROUPS.get(short, short).split())
    for name, short in itertools.chain(
        _LONG_NAMES.items(),
        ((short, short) for short in {*_GROUPS, *" ".join(_GROUPS.values()).split()}),
    )
}
_GENERAL_CATEGORY = {"General_Category", "gc"}
_SCRIPT = {"Script", "sc", "Script_Extensions", "scx"}
# ECMA-262 table-binary-unicode-properties (names and aliases) toolguard has no data for.
# fmt: off
UNSUPPORTED = frozenset({
    "ASCII_Hex_Digit", "AHex", "Alphabetic", "Alpha", "Bidi_Control", "Bidi_C", "Bidi_Mirrored",
    "Bidi_M", "Case_Ignorable", "CI", "Cased", "Changes_When_Casefolded", "CWCF",
    "Changes_When_Casemapped", "CWCM", "Changes_When_Lowercased", "CWL",
    "Changes_When_NFKC_Casefolded", "CWKCF", "Changes_When_Titlecased", "CWT",
    "Changes_When_Uppercased", "CWU", "Dash", "Default_Ignorable_Code_Point", "DI", "Deprecated",
    "Dep", "Diacritic", "Dia", "Emoji", "Emoji_Component", "EComp", "Emoji_Modifier", "EMod",
    "Emoji_Modifier_Base", "EBase", "Emoji_Presentation", "EPres", "Extended_Pictographic",
    "ExtPict", "Extender", "Ext", "Grapheme_Base", "Gr_Base", "Grapheme_Extend", "Gr_Ext",
    "Hex_Digit", "Hex", "IDS_Binary_Operator", "IDSB", "IDS_Trinary_Operator", "IDST",
    "ID_Continue", "IDC", "ID_Start", "IDS", "Ideographic", "Ideo", "Join_Control", "Join_C",
    "Logical_Order_Exception", "LOE", "Lowercase", "Lower", "Math", "Noncharacter_Code_Point",
    "NChar", "Pattern_Syntax", "Pat_Syn", "Pattern_White_Space", "Pat_WS", "Quotation_Mark",
    "QMark", "Radical", "Regional_Indicator", "RI", "Sentence_Terminal", "STerm", "Soft_Dotted",
    "SD", "Terminal_Punctuation", "Term", "Unified_Ideograph", "UIdeo", "Uppercase", "Upper",
    "Variation_Selector", "VS", "White_Space", "space", "XID_Continue", "XIDC", "XID_Start",
    "XIDS",
})
# fmt: on


class UnknownProperty(ValueError):
    r"""`\p{...}` names no property toolguard can enforce; `.valid` if ECMA-262 knows it."""

    def __init__(self, expression: str, *, valid: bool = False) -> None:
        super().__init__(expression)
        self.valid = valid


def property_ranges(expression: str) -> Ranges:
    r"""The code points `\p{expression}` matches, e.g. `L`, `Letter`, `gc=Lu`, `ASCII`."""
    name, equals, value = expression.partition("=")
    if equals:
        if name in _GENERAL_CATEGORY and value in _CATEGORIES:
            return _categories(_CATEGORIES[value])
        raise UnknownProperty(expression, valid=name in _SCRIPT and _is_script(value))
    if name in _CATEGORIES:
        return _categories(_CATEGORIES[name])
    if name == "Any":
        return ((0, MAX_CODE_POINT),)
    if name == "ASCII":
        return ((0, 0x7F),)
    if name == "Assigned":
        return complement(_categories(("Cn",)))
    raise UnknownProperty(expression, valid=name in UNSUPPORTED)


def contains(ranges: Ranges, code_point: int) -> bool:
    """Whether `code_point` lies in `ranges` (sorted and disjoint)."""
    import bisect  # noqa: PLC0415 - only group names beyond ASCII come here; off the warm path

    index = bisect.bisect_right(ranges, (code_point, MAX_CODE_POINT))
    return index > 0 and ranges[index - 1][1] >= code_point


@functools.cache
def identifier_ranges(*, start: bool) -> Ranges:
    """ID_Start (`start`) or ID_Continue: what ECMA-262's UnicodeIDStart/UnicodeIDContinue match.

    Built from General_Category and the few changes UAX #31 makes to it (`category_table`),
    of the tables' Unicode version, never from `str.isidentifier`: Python's rules are
    XID_Start/XID_Continue (which leave out U+037A, for one) of the interpreter's version.
    """
    from toolguard.schema import category_table  # noqa: PLC0415 - 86 KB

    categories, changes = (
        (category_table.ID_START_CATEGORIES, category_table.ID_START_CHANGES)
        if start
        else (category_table.ID_CONTINUE_CATEGORIES, category_table.ID_CONTINUE_CHANGES)
    )
    added = [(first, last) for first, last, change in changes if change == "+"]
    taken = [(first, last) for first, last, change in changes if change == "-"]
    # NOTE: A minus B is the complement of (the complement of A, plus B).
    kept = union([*complement(_categories(categories)), *taken])
    return union([*complement(kept), *added])


def complement(ranges: Ranges) -> Ranges:
    """Every code point not in `ranges` (which must be sorted and disjoint)."""
    out: list[tuple[int, int]] = []
    start = 0
    for low, high in ranges:
        if low > start:
            out.append((start, low - 1))
        start = high + 1
    if start <= MAX_CODE_POINT:
        out.append((start, MAX_CODE_POINT))
    return tuple(out)


def union(ranges: list[tuple[int, int]]) -> Ranges:
    """Sorted, merged ranges."""
    out: list[tuple[int, int]] = []
    for low, high in sorted(ranges):
        if out and low <= out[-1][1] + 1:
            out[-1] = (out[-1][0], max(out[-1][1], high))
        else:
            out.append((low, high))
    return tuple(out)


def _categories(names: tuple[str, ...]) -> Ranges:
    table = _category_table()
    return union([span for name in names for span in table.get(name, ())])


def _is_script(value: str) -> bool:
    """Whether `value` names a Script (PropertyValueAliases.txt, as ECMA-262 reads it)."""
    from toolguard.schema.category_table import SCRIPT_NAMES  # noqa: PLC0415 - 86 KB

    return value in SCRIPT_NAMES


@functools.cache
def _category_table() -> dict[str, list[tuple[int, int]]]:
    r"""General_Category -> ranges, built once per process (only if `\p` is used)."""
    from toolguard.schema.category_table import GENERAL_CATEGORY  # noqa: PLC0415 - 86 KB

    table: dict[str, list[tuple[int, int]]] = {}
    for first, last, category in GENERAL_CATEGORY:
        table.setdefault(category, []).append((first, last))
    table["Cn"] = list(complement(tuple((first, last) for first, last, _ in GENERAL_CATEGORY)))
    return table
