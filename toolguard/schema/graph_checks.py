"""Checks over what the schema walk recorded, once every subschema has been seen.

The walker notes every reference edge, which subschemas apply to the same instance, where
formats are asserted and which subschemas only count when they fail; these functions refuse
the schemas whose references or formats could not be enforced soundly.
"""

from __future__ import annotations

from toolguard.errors import SchemaError
from toolguard.pointer import tokens


def refuse_off_schema_references(references: dict[str, str], subschemas: set[str]) -> None:
    """Refuse a reference that lands on something other than a subschema, saying what it is.

    `references` maps where each reference is to the pointer it targets; `subschemas` holds
    the pointer of every subschema visited. `#/type`, `#/properties` (the map, not one of
    its schemas) and `#/default/a` (data) name no schema: what they would apply is undefined.
    """
    for at, target in references.items():
        if target in subschemas:
            continue
        steps = target.split("/")  # still escaped: prefixes of it are pointers
        depth = max(n for n in range(len(steps)) if "/".join(steps[:n]) in subschemas)
        owner = "/".join(steps[:depth]) or "/"
        keyword = tokens("/" + steps[depth])[0]
        where = "is the value of" if depth == len(steps) - 1 else "lies inside the value of"
        raise SchemaError(
            f"reference '#{target}' does not point at a schema: it {where} {keyword!r} "
            f"in the subschema at {owner}",
            field=at,
        )


def refuse_cycles(edges: dict[str, list[str]]) -> None:
    """Refuse a loop of references/combinators that never moves into the instance."""
    done: set[str] = set()
    for start in edges:
        path: list[str] = []
        on_path: set[str] = set()
        stack: list[tuple[str, int]] = [(start, 0)]
        while stack:
            node, index = stack.pop()
            if index == 0:
                if node in done:
                    continue
                if node in on_path:
                    raise SchemaError(
                        "reference cycle that never descends into the instance", field=node or "/"
                    )
                path.append(node)
                on_path.add(node)
            successors = edges.get(node, [])
            if index < len(successors):
                stack.append((node, index + 1))
                stack.append((successors[index], 0))
            else:
                on_path.discard(path.pop())
                done.add(node)


def refuse_negated_formats(
    format_sites: list[str], negated: set[str], ref_edges: list[tuple[str, str]]
) -> None:
    """Refuse an asserted format where its failure could let an instance through.

    NOTE: toolguard's format checks fail closed: some valid values are rejected (an ECMA
    regex construct the translator refuses, a hostname needing Unicode data we lack). Under
    `not`, `if`, `oneOf` or a bounded `contains`, such a false reject turns into a false
    accept, so the schema is refused instead (or compile it with formats=False).
    """
    if not format_sites or not negated:
        return
    negated = set(negated)
    changed = True
    while changed:  # a subschema reached by reference from a negated one is negated too
        changed = False
        for where, target in ref_edges:
            if target not in negated and under(where, negated):
                negated.add(target)
                changed = True
    for site in format_sites:
        if under(site, negated):
            raise SchemaError(
                "a format asserted under not/if/oneOf/maxContains is refused: a valid value "
                "the format check rejects there would let an invalid instance through",
                field=site,
            )


def under(location: str, roots: set[str]) -> bool:
    """Whether `location` is one of `roots` or inside one of them."""
    return any(location == root or location.startswith(f"{root}/") for root in roots)
