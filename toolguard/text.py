"""Characters that make text read differently from its bytes: shared by display text and reports.

Control characters (ESC starts ANSI sequences), format characters (bidirectional overrides
behind "Trojan Source", zero-width spaces, the invisible U+E0000 tag block used to smuggle
instructions), line and paragraph separators, private-use and unassigned code points.
"""

from __future__ import annotations

import unicodedata

HIDDEN_CATEGORIES = frozenset({"Cc", "Cf", "Co", "Cn", "Cs", "Zl", "Zp"})


def is_hidden(char: str) -> bool:
    """Whether `char` is invisible, a control, or means nothing when displayed."""
    return unicodedata.category(char) in HIDDEN_CATEGORIES
