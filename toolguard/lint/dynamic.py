"""Where each `$dynamicRef` of a schema may land: its targets, resolved as `check` does.

NOTE: from the schema as written, not the bundle lint otherwise reads: the bundle drops the
`$id`s that scope both a `$dynamicRef` and the anchors it may land on. The pointers are the
same in both (the bundle only drops keywords).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from toolguard.errors import SchemaError
from toolguard.schema.refs import Index


def dynamic_targets(raw: Any, written: Mapping[str, str]) -> dict[str, tuple[str, ...]]:
    """Pointer of each `$dynamicRef` (`written`: its value) -> the pointers it may land on.

    Its static target, and each resource's `$dynamicAnchor` of its name that the dynamic
    scope may pick; only the root's, when the root resource has one (it is always in scope,
    outermost). A reference that leaves the file is left out.
    """
    index = Index(raw, None)
    index.dynamic_anchors()  # load what references reach in the order `prepare` does
    found: dict[str, tuple[str, ...]] = {}
    for at, ref in written.items():
        try:
            static = index.resolve(ref, at, "$dynamicRef")
        except SchemaError:
            continue
        dynamic = index.dynamic_targets(ref, at, static)
        outermost = dynamic.get(index.resource_of(""))
        landing = (outermost,) if outermost is not None else (static, *dynamic.values())
        found[at] = tuple(dict.fromkeys(landing))
    return found
