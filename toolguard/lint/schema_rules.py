"""Schema rules: what lint asks of a payload schema (or of any schema file it is given).

View rules judge each leaf view (see `views.py`); document rules judge the file as a whole.
Each check's description (`lint_rule`) opens with the rule's rationale, drawn from the article.
"""

from __future__ import annotations

from collections.abc import Iterator

from toolguard.lint.findings import Hit, lint_rule
from toolguard.lint.patterns import bounded_pattern, name_matches
from toolguard.lint.views import Document, View, is_anything
from toolguard.pointer import escape, lookup
from toolguard.schema.vocabulary import DRAFT_2020_12

_CLOSING = ("additionalProperties", "unevaluatedProperties")


def _where(pointer: str) -> str:
    return pointer or "(root)"


def _free_form(view: View) -> list[str]:
    """Where a member accepts members of any name with any value."""
    sites = [
        f"{at}/{keyword}"
        for at, node in view.dicts
        for keyword in _CLOSING
        if keyword in node and is_anything(node[keyword])
    ]
    for at, node in view.dicts:
        patterns = node.get("patternProperties")
        for pattern, value in patterns.items() if isinstance(patterns, dict) else ():
            if is_anything(value):
                sites.append(f"{at}/patternProperties/{escape(pattern)}")
    return sites


def _closing(view: View) -> list[tuple[str, str, bool]]:
    """(member, keyword, closes) of each `additionalProperties`/`unevaluatedProperties`.

    It closes the object when it accepts nothing (`false`, `{"not": {}}`...); else it admits
    members of any name (a map).
    """
    document = view.document
    return [
        (at, kw, document.rejects_all(f"{at}/{kw}"))
        for at, node in view.dicts
        for kw in _CLOSING
        if kw in node
    ]


def _typed_maps(view: View) -> list[str]:
    """The `additionalProperties`/`unevaluatedProperties` keywords that admit members (a map)."""
    return [kw for _, kw, closes in _closing(view) if not closes]


def _maps(view: View) -> list[str]:
    """The map keywords of the view: members whose names are not listed one by one."""
    found = _typed_maps(view)
    found += ["patternProperties" for _, node in view.dicts if node.get("patternProperties")]
    return sorted(set(found))


@lint_rule(
    "TG001",
    "open-object",
    """An unreviewed new field can become an injection container, a flag or a URL to visit.

    So every object schema that can hold members is closed: `additionalProperties: false`,
    or `unevaluatedProperties: false` after composition. Followed through `$ref`, `allOf`,
    `anyOf`, `oneOf`, `if`/`then`/`else` and `dependentSchemas`: an `allOf` of open parts is
    open, a `$ref` to an open base is open, and a property that a closed sibling's
    `additionalProperties: false` rejects (it does not see siblings) is reported where it is
    declared. Free-form maps outside the projection's reach are reported here too.
    """,
)
def open_object(view: View) -> Iterator[Hit]:
    if not view.holds("object"):
        return
    file = view.document.file
    if view.anything:
        if not view.reach:
            yield Hit(file, view.root, _anything(view, "open objects included"))
        return
    free_form = _free_form(view)
    if not view.reach:
        for site in free_form:
            yield Hit(file, site, "accepts members of any name and any value (a free-form map)")
    closers = [(at, kw) for at, kw, closes in _closing(view) if closes]
    # NOTE: patternProperties alone closes nothing: a name no pattern matches takes any value.
    if not closers and not _typed_maps(view):
        yield Hit(file, view.root, _open_message(view))
    for at, keyword in closers:
        yield from _shadowed(view, at, keyword)


def _anything(view: View, included: str) -> str:
    """Why a view that accepts every value does: said plainly when a keyword is left out."""
    if view.implied:
        return (
            f"no items schema: array items past any prefixItems accept any JSON value, "
            f"{included} (add items with a closed schema, or items: false)"
        )
    return f"accepts any JSON value, {included}"


def _open_message(view: View) -> str:
    parts = [
        "object is open: nothing rejects unknown members (add additionalProperties: false, "
        "or unevaluatedProperties: false after composition)"
    ]
    references = [member for member in view.members if member.via.startswith("$")]
    if references:
        keywords = " or ".join(sorted({member.via for member in references}))
        targets = ", ".join(_where(member.location) for member in references)
        parts.append(f"its {keywords} target {targets} is open")
    if any(member.via == "allOf" for member in view.members):
        parts.append(
            "an allOf of open parts is open: only unevaluatedProperties: false beside it "
            "closes the composition"
        )
    if view.has("patternProperties"):
        parts.append("patternProperties holds only the names its patterns match: others are open")
    if not view.declares_type:
        parts.append("no type is declared, so any object passes")
    return "; ".join(parts)


def _shadowed(view: View, closer: str, keyword: str) -> Iterator[Hit]:
    """Properties declared beside a closing keyword that cannot see them: never allowed."""
    seen = {closer} if keyword == "additionalProperties" else view.subtree(closer)
    nodes = [node for at, node in view.dicts if at in seen]
    if keyword == "unevaluatedProperties" and any(
        at in seen and kw == "additionalProperties" and not closes
        for at, kw, closes in _closing(view)
    ):
        return  # additionalProperties evaluates every member: nothing is left unevaluated
    names = {name for node in nodes for name in node.get("properties") or ()}
    patterns = [pattern for node in nodes for pattern in node.get("patternProperties") or ()]
    for at, node in view.dicts:
        declared = node.get("properties")
        if at in seen or not isinstance(declared, dict):
            continue
        for name in declared:
            if name in names or any(name_matches(p, name) for p in patterns):
                continue
            if view.document.rejects_all(f"{at}/properties/{escape(name)}"):
                continue
            yield Hit(
                view.document.file,
                f"{at}/properties/{escape(name)}",
                f"{name!r} can never be present: {keyword}: false at {_where(closer)} does not "
                "see properties declared outside it; close the composition with "
                "unevaluatedProperties: false instead",
            )


@lint_rule(
    "TG002",
    "unbounded-string",
    """A bounded identifier keeps a response from hiding a paragraph in a correlation field.

    So every string is bounded: `maxLength`, `enum`, `const`, or a `pattern` anchored at both
    ends whose repetitions are bounded (no `*`, `+` or `{n,}`).
    """,
)
def unbounded_string(view: View) -> Iterator[Hit]:
    if not view.holds("string") or view.anything or bounded_string(view):
        return
    untyped = "" if view.declares_type else " (no type is declared, so any string passes)"
    yield Hit(
        view.document.file,
        view.root,
        f"string without maxLength, enum, const or a bounded anchored pattern{untyped}",
    )


def bounded_string(view: View) -> bool:
    """Whether the strings `view` admits are bounded, as TG002 judges it.

    By `maxLength`, `enum`/`const`, or a pattern anchored at both ends whose repetitions are
    bounded.
    """
    if view.pinned or view.has("maxLength"):
        return True
    patterns = [node["pattern"] for _, node in view.dicts if isinstance(node.get("pattern"), str)]
    return any(bounded_pattern(pattern) for pattern in patterns)


@lint_rule(
    "TG003",
    "unbounded-array",
    """A perfectly legal array of a million log lines can poison the agent's context budget.

    So every array has `maxItems`, or no items beyond its `prefixItems` (`items: false`, or
    `unevaluatedItems: false` with no `items` schema).
    """,
)
def unbounded_array(view: View) -> Iterator[Hit]:
    if not view.holds("array") or view.anything or view.has("maxItems"):
        return
    document = view.document
    items = [f"{at}/items" for at, node in view.dicts if "items" in node]
    unevaluated = [
        f"{at}/unevaluatedItems" for at, node in view.dicts if "unevaluatedItems" in node
    ]
    if any(map(document.rejects_all, items)) or (
        not items and any(map(document.rejects_all, unevaluated))
    ):
        return
    untyped = "" if view.declares_type else " (no type is declared, so any array passes)"
    yield Hit(view.document.file, view.root, f"array without maxItems{untyped}")


@lint_rule(
    "TG004",
    "unbounded-map",
    """An object built to consume the agent's context and attention is still legal JSON.

    So every map (an object with `patternProperties`, or with an `additionalProperties` or
    `unevaluatedProperties` schema) has `maxProperties`, or `propertyNames` with an `enum`.
    """,
)
def unbounded_map(view: View) -> Iterator[Hit]:
    maps = _maps(view)
    if not view.holds("object") or view.anything or not maps or view.has("maxProperties"):
        return
    names = [node.get("propertyNames") for _, node in view.dicts]
    if any(isinstance(n, dict) and ("enum" in n or "const" in n) for n in names):
        return
    yield Hit(view.document.file, view.root, f"map ({', '.join(maps)}) without maxProperties")


@lint_rule(
    "TG005",
    "free-form-map",
    """Free-form maps invite accidental disclosure and make prompts harder to review.

    So no `additionalProperties: {}`/`true` (or the same under `patternProperties`,
    `unevaluatedProperties`, or a schema that accepts anything), and no array item that no
    `items` schema governs (an absent `items` is `true`), where the projection can reach:
    everywhere, in a bare schema file.
    """,
)
def free_form_map(view: View) -> Iterator[Hit]:
    if not view.reach or not view.holds("object"):
        return
    if view.anything:
        yield Hit(view.document.file, view.root, _anything(view, "free-form maps included"))
        return
    for site in _free_form(view):
        yield Hit(
            view.document.file, site, "accepts members of any name and any value (a free-form map)"
        )


@lint_rule(
    "TG006",
    "format-unasserted",
    """A field that looks like a timestamp is not automatically a timestamp.

    A `format` counts only where toolguard asserts it: on strings. A `format` beside no
    `type` lets numbers, objects and arrays through unchecked; beside a type that admits no
    strings it never applies.
    """,
)
def format_unasserted(view: View) -> Iterator[Hit]:
    if view.impossible or view.pinned or view.opaque:
        return
    for at, node in view.dicts:
        if "format" not in node:
            continue
        if not view.declares_type:
            message = "format only constrains strings: without type: string, any other value passes"
        elif "string" not in view.types:
            message = f"format {node['format']!r} never applies: this subschema admits no strings"
        else:
            continue
        yield Hit(view.document.file, f"{at}/format", message)


@lint_rule(
    "TG007",
    "schema-dialect",
    """Some validators default to an older draft, where unevaluatedProperties means nothing.

    So the schema says `"$schema": "https://json-schema.org/draft/2020-12/schema"` itself:
    toolguard reads a schema without one as 2020-12, other tools may not.
    """,
)
def schema_dialect(document: Document) -> Iterator[Hit]:
    declared = document.raw.get("$schema") if isinstance(document.raw, dict) else None
    if isinstance(declared, str) and declared.rstrip("#") == DRAFT_2020_12:
        return
    found = "no $schema" if declared is None else f"$schema {declared!r}"
    yield Hit(document.file, "/$schema", f"{found}: declare {DRAFT_2020_12!r}")


@lint_rule(
    "TG008",
    "remote-ref",
    """Nothing reads the network, or another file, because a schema said so.

    So every `$ref` resolves inside the schema file itself (toolguard's shipped metaschemas
    and `--refs` registries included: a reader of the file alone cannot follow them).
    """,
)
def remote_ref(document: Document) -> Iterator[Hit]:
    for at, node in document.nodes():
        for keyword in ("$ref", "$dynamicRef"):
            if keyword in node and document.targets(at, keyword) is None:
                written = lookup(document.raw, f"{at}/{keyword}")
                yield Hit(
                    document.file,
                    f"{at}/{keyword}",
                    f"{keyword} {written!r} leads outside this file",
                )


VIEW_RULES = (
    open_object,
    unbounded_string,
    unbounded_array,
    unbounded_map,
    free_form_map,
    format_unasserted,
)
DOCUMENT_RULES = (
    schema_dialect,
    remote_ref,
)
