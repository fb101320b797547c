"""The walk over a schema's leaf views, from the root down, and a payload pointer's views.

Every disjunction (`anyOf`, `oneOf`, `if`) on the way is split into one view per branch, unless
no branch holds a keyword lint looks at; `dependentSchemas` add a view each; children
(`properties` merged by name across members, items, map schemas) are walked as new locations.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolguard.errors import SchemaError
from toolguard.lint.views import CORE, Document, Member, Reach, Site, View, is_anything, sites
from toolguard.pointer import escape, is_index, tokens
from toolguard.schema.vocabulary import ANNOTATIONS

# A branch made only of these changes nothing lint looks at: its disjunction is not split.
_INERT = ANNOTATIONS | CORE | {"required", "dependentRequired", "not", "uniqueItems"}
# NOTE: not `contains`: under `unevaluatedItems`, what it matches is allowed (`_items`).
_INERT |= {"minLength", "minItems", "minProperties", "minContains", "maxContains"}
_INERT |= {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
# NOTE: a bound, not a guess: a schema with more views than this is refused (exit 3) rather
# than linted in part, which would pass what was never looked at.
MAX_VIEWS = 5_000


def leaf_views(document: Document) -> Iterator[View]:
    """Every leaf view an instance can meet, from the root down, each once."""
    seen: set[tuple[frozenset[Member], frozenset[str], Reach]] = set()
    stack: list[tuple[tuple[Member, ...], frozenset[str], str, Reach]] = [
        ((Member(""),), frozenset(), "", document.reach)
    ]
    while stack:
        seeds, resolved, root, reach = stack.pop()
        key = (frozenset(seeds), resolved, reach)
        if key in seen:
            continue
        if len(seen) >= MAX_VIEWS:
            raise SchemaError(f"too many combinations to lint (over {MAX_VIEWS})")
        seen.add(key)
        view = document.view(seeds, root, reach=reach.reached)
        open_sites = [site for site in sites(view) if site.key not in resolved]
        resolved |= {site.key for site in open_sites if not _splits(document, site)}
        site = next((site for site in open_sites if site.key not in resolved), None)
        if site is not None:
            for branch in reversed(site.branches):
                stack.append(((*seeds, *branch), resolved | {site.key}, root, reach))
            continue
        yield view
        if view.impossible or view.pinned:
            continue
        for dependent in _dependents(view):
            if dependent.location not in resolved:
                stack.append(((*seeds, dependent), resolved | {dependent.location}, root, reach))
        for child, child_root, token in _children(view):
            stack.append((child, frozenset(), child_root, reach.step(token)))


def _splits(document: Document, site: Site) -> bool:
    """Whether any branch of `site` holds a keyword lint looks at (else one view will do)."""
    for branch in site.branches:
        for member in branch:
            node = document.node(member.location)
            if isinstance(node, dict) and not set(node) <= _INERT:
                return True
    return False


def _dependents(view: View) -> Iterator[Member]:
    for at, node in view.dicts:
        schemas = node.get("dependentSchemas")
        if isinstance(schemas, dict):
            for name in schemas:
                yield Member(f"{at}/dependentSchemas/{escape(name)}", at, "dependentSchemas")


def _children(view: View) -> Iterator[tuple[tuple[Member, ...], str, str | None]]:
    """The views one level down: per member name, per item position, per map schema."""
    properties: dict[str, list[str]] = {}
    for at, node in view.dicts:
        declared = node.get("properties")
        for name in declared if isinstance(declared, dict) else ():
            properties.setdefault(name, []).append(f"{at}/properties/{escape(name)}")
        for keyword in ("additionalProperties", "unevaluatedProperties"):
            value = node.get(keyword)
            if isinstance(value, dict) and not is_anything(value):
                yield (Member(f"{at}/{keyword}"),), f"{at}/{keyword}", None
        patterns = node.get("patternProperties")
        for pattern, value in patterns.items() if isinstance(patterns, dict) else ():
            if isinstance(value, dict) and not is_anything(value):
                where = f"{at}/patternProperties/{escape(pattern)}"
                yield (Member(where),), where, None
        if isinstance(node.get("unevaluatedItems"), dict) or node.get("unevaluatedItems") is True:
            yield (Member(f"{at}/unevaluatedItems"),), f"{at}/unevaluatedItems", "*"
    for name, locations in properties.items():
        yield tuple(map(Member, locations)), locations[0], name
    yield from _items(view)


def _items(view: View) -> Iterator[tuple[tuple[Member, ...], str, str | None]]:
    """The views of an array's items: per `prefixItems` position, then every item past them.

    An item no keyword governs is governed by the default, `true`: a view of the absent
    `items` (`implied`), which accepts anything. `unevaluatedItems` (walked on its own, above)
    governs what no `prefixItems`/`items` does, and then so does `contains`: an item it
    matches is evaluated, so allowed.
    """
    prefix: dict[int, list[str]] = {}
    for at, node in view.dicts:
        positions = node.get("prefixItems")
        for position in range(len(positions) if isinstance(positions, list) else 0):
            prefix.setdefault(position, []).append(f"{at}/prefixItems/{position}")
    for position, locations in prefix.items():
        yield tuple(map(Member, locations)), locations[0], str(position)
    if any("items" in node for _, node in view.dicts):
        rest = [
            f"{at}/items"
            for at, node in view.dicts
            if isinstance(node.get("items"), dict) or node.get("items") is True
        ]
        if rest:
            yield tuple(map(Member, rest)), rest[0], "*"
        return
    if view.anything or not view.holds("array") or not _room_past(view, len(prefix)):
        return
    if any("unevaluatedItems" in node for _, node in view.dicts):
        for at, node in view.dicts:
            if isinstance(node.get("contains"), dict):
                yield (Member(f"{at}/contains"),), f"{at}/contains", "*"
        return
    absent = f"{view.root}/items"
    yield (Member(absent),), absent, "*"


def _room_past(view: View, prefix: int) -> bool:
    """Whether an array of the view can hold an item past its first `prefix` ones."""
    bounds = [node["maxItems"] for _, node in view.dicts if isinstance(node.get("maxItems"), int)]
    return not bounds or min(bounds) > prefix


def resolve_field(document: Document, pointer: str) -> tuple[list[tuple[View, str]], View | None]:
    """The views a payload pointer passes through, and the view of the field (None: undeclared).

    Each step is (view of the parent, token). Only what applies unconditionally is followed:
    `properties`, `prefixItems`/`items`, `allOf` and `$ref`, as the projection needs it.
    """
    steps: list[tuple[View, str]] = []
    view = document.view([Member("")], "")
    for token in tokens(pointer):
        steps.append((view, token))
        locations = [
            f"{at}/properties/{escape(token)}"
            for at, node in view.dicts
            if isinstance(node.get("properties"), dict) and token in node["properties"]
        ]
        if not locations and is_index(token):
            locations = [
                f"{at}/prefixItems/{token}"
                if int(token) < len(node.get("prefixItems") or ())
                else f"{at}/items"
                for at, node in view.dicts
                if int(token) < len(node.get("prefixItems") or ())
                or isinstance(node.get("items"), dict)
            ]
        if not locations:
            return steps, None
        view = document.view(map(Member, locations), locations[0])
    return steps, view
