"""What tests of a rejection match: its operator message, which its `str` leaves out."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable

    from toolguard.errors import Rejection


def saying(pattern: str) -> Callable[[Rejection], bool]:
    """A `pytest.raises(..., check=)` for a rejection whose `message` matches `pattern`."""
    return lambda rejection: re.search(pattern, rejection.message) is not None
