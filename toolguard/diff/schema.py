"""Payload schema diff: two bundled schemas -> findings, walked subschema by subschema.

Each finding says what one keyword change does to the instances *its own subschema*
accepts (`local`); `payload.py` turns that into the impact on the whole payload through the
subschema's sign (under `not` the opposite, under `if` or `oneOf` either way). This module
walks the applicators (`properties`, `items`, `allOf`, `$ref`...); `keywords.py` compares
the assertions. A keyword neither knows is reported as `both`: never skipped.
"""

from __future__ import annotations

from typing import Any

from toolguard.diff.change import BOTH, LESS, MORE, NONE, Upstream, show, show_all
from toolguard.diff.evaluated import footprint
from toolguard.diff.graph import equivalent, json_key, signs, trivially_true
from toolguard.diff.keywords import ASSERTION_BY_KEYWORD, Finding, Node
from toolguard.pointer import escape, lookup

_OBJECT = ("properties", "patternProperties", "additionalProperties", "unevaluatedProperties")
_ARRAY = ("items", "prefixItems", "contains", "unevaluatedItems", "propertyNames")
_BRANCHES = ("allOf", "anyOf", "oneOf")
_CONDITIONAL = ("if", "then", "else")
# Keywords near which `unevaluatedProperties` may see members evaluated elsewhere.
_COMPOSITION = frozenset(
    {*_BRANCHES, *_CONDITIONAL, "not", "$ref", "$dynamicRef", "dependentSchemas"}
)
_FALSE_LABELS = {
    "additionalProperties": ("object closed to other members", "object opened to other members"),
    "unevaluatedProperties": ("object closed to other members", "object opened to other members"),
    "items": ("array items forbidden", "array items allowed"),
}


def schema_findings(old: Any, new: Any) -> list[Finding]:
    """Every keyword-level difference between two bundled payload schemas."""
    walk = _Walk(old, new)
    walk.node(old, new, "")
    walk.evaluation()
    return walk.findings


class _Walk:
    def __init__(self, old_doc: Any, new_doc: Any) -> None:
        self.old_doc = old_doc
        self.new_doc = new_doc
        self.findings: list[Finding] = []

    def add(self, where: str, at: str, what: str, detail: str, local: Upstream) -> None:
        self.findings.append(Finding(where, at, what, detail, local))

    def same(self, old: Any, new: Any) -> bool:
        return equivalent(self.old_doc, old, self.new_doc, new)

    def node(self, old: Any, new: Any, where: str, keyword: str = "") -> None:
        """Compare two subschemas standing at the same location."""
        if json_key(old) == json_key(new):
            return
        if any(isinstance(n, dict) and "$ref" in n for n in (old, new)) and self.same(old, new):
            # The same schema, reorganised through $defs; a $ref from elsewhere may still
            # reach into these $defs, so they are compared all the same.
            if isinstance(old, dict) and isinstance(new, dict):
                self.definitions(old, new, where)
            return
        closed, opened = _FALSE_LABELS.get(keyword, ("schema became false", "schema was false"))
        if new is False:
            self.add(where, where, closed, f"was {show(old)}", LESS)
            return
        if old is False:
            self.add(where, where, opened, f"now {show(new)}", MORE)
            return
        old = {} if old is True else old
        new = {} if new is True else new
        handled: set[object] = set()
        for name in [*old, *(key for key in new if key not in old)]:
            compare = ASSERTION_BY_KEYWORD.get(name)
            group = _GROUP_OF.get(name)
            if compare is not None and compare not in handled:
                handled.add(compare)
                self.findings.extend(compare(old, new, where))
            elif group is not None and group not in handled:
                handled.add(group)
                getattr(self, group)(old, new, where)
            elif (
                compare is None
                and group is None
                and json_key(old.get(name)) != json_key(new.get(name))
            ):
                self.add(f"{where}/{escape(name)}", where, f"{name} changed", "", BOTH)

    def evaluation(self) -> None:
        """Each `unevaluatedProperties`/`unevaluatedItems` whose subschemas evaluate otherwise.

        Checked at every location either schema applies, not on the walk: the node holding
        the keyword may be unchanged while a `$ref` it follows is not.
        """
        for where in sorted(set(signs(self.old_doc)) | set(signs(self.new_doc))):
            old, new = lookup(self.old_doc, where), lookup(self.new_doc, where)
            if not (isinstance(old, dict) and isinstance(new, dict)):
                continue
            for name, noun in (("unevaluatedProperties", "members"), ("unevaluatedItems", "items")):
                if name not in old or name not in new:
                    continue  # added or removed: compared as a subschema
                if trivially_true(old[name]) and trivially_true(new[name]):
                    continue
                before = footprint(self.old_doc, old, name)
                after = footprint(self.new_doc, new, name)
                if before != after:
                    paths = sorted({path[1:] or "itself" for path, _ in {*before} ^ {*after}})
                    detail = f"{noun} evaluated by {show_all(paths)} differ: it sees others"
                    self.add(f"{where}/{name}", where, f"evaluated {noun} changed", detail, BOTH)

    def members(self, old: Node, new: Node, where: str) -> None:
        """`properties` and what governs the other members, read together."""
        before, after = old.get("properties", {}), new.get("properties", {})
        for name in [*before, *(key for key in after if key not in before)]:
            if name in before and name in after:
                self.node(before[name], after[name], f"{where}/properties/{escape(name)}")
            else:
                self._member(old, new, name, where)
        patterns_old, patterns_new = (
            old.get("patternProperties", {}),
            new.get("patternProperties", {}),
        )
        if json_key(patterns_old) != json_key(patterns_new):
            if patterns_old.keys() == patterns_new.keys():
                for key, schema in patterns_old.items():
                    at = f"{where}/patternProperties/{escape(key)}"
                    self.node(schema, patterns_new[key], at)
            else:
                detail = f"{show_all(patterns_old)} -> {show_all(patterns_new)}"
                self.add(f"{where}/patternProperties", where, "patterns changed", detail, BOTH)
        for name in ("additionalProperties", "unevaluatedProperties"):
            at = f"{where}/{name}"
            self.node(old.get(name, True), new.get(name, True), at, name)

    def _member(self, old: Node, new: Node, name: str, where: str) -> None:
        """A member now declared in `properties`, or no longer: what governed it before/after."""
        at = f"{where}/properties/{escape(name)}"
        added = name not in old.get("properties", {})
        how = "added" if added else "removed"
        schema = (new if added else old)["properties"][name]
        fallback = _fallback(old if added else new)
        if fallback is None:
            detail = "patternProperties or unevaluatedProperties also apply to it"
            self.add(at, where, f"property {how}", detail, BOTH)
        elif fallback is False or fallback == {"not": {}}:
            if schema is not False:
                what = "added to" if added else "removed from"
                self.add(
                    at,
                    where,
                    f"property {what} a closed object",
                    show(schema),
                    MORE if added else LESS,
                )
        elif trivially_true(fallback):
            if not trivially_true(schema):
                verb = "now constrains" if added else "no longer constrains"
                detail = f"{verb} the member: {show(schema)}"
                self.add(at, where, f"property {how}", detail, LESS if added else MORE)
        elif not (self.same(fallback, schema) if added else self.same(schema, fallback)):
            verb = "no longer applies" if added else "now applies"
            detail = f"additionalProperties {show(fallback)} {verb} to it"
            self.add(at, where, f"property {how}", detail, BOTH)

    def arrays(self, old: Node, new: Node, where: str) -> None:
        for name in ("items", "unevaluatedItems", "propertyNames"):
            self.node(old.get(name, True), new.get(name, True), f"{where}/{name}", name)
        before, after = old.get("prefixItems", []), new.get("prefixItems", [])
        if len(before) == len(after):
            for index, (was, now) in enumerate(zip(before, after, strict=True)):
                self.node(was, now, f"{where}/prefixItems/{index}")
        else:
            detail = f"{len(before)} -> {len(after)} positions"
            self.add(f"{where}/prefixItems", where, "prefixItems changed", detail, BOTH)
        self._optional_subschema("contains", old, new, where)

    def _optional_subschema(self, name: str, old: Node, new: Node, at: str) -> None:
        """A keyword whose presence is a constraint (`contains`, `not`): added accepts less."""
        before, after = old.get(name), new.get(name)
        if before is None and after is None:
            return
        if before is None or after is None:
            what, local = (f"{name} added", LESS) if before is None else (f"{name} removed", MORE)
            self.add(f"{at}/{name}", at, what, show(after if before is None else before), local)
        else:
            self.node(before, after, f"{at}/{name}", name)

    def negation(self, old: Node, new: Node, where: str) -> None:
        self._optional_subschema("not", old, new, where)

    def conditional(self, old: Node, new: Node, where: str) -> None:
        if ("if" in old) != ("if" in new):
            detail = "the condition " + ("added" if "if" in new else "removed")
            self.add(f"{where}/if", where, "if/then/else changed", detail, BOTH)
            return
        if "if" not in old:
            for name in ("then", "else"):
                if json_key(old.get(name)) != json_key(new.get(name)):
                    self.add(f"{where}/{name}", where, f"{name} changed", "no if: no effect", NONE)
            return
        self.node(old["if"], new["if"], f"{where}/if", "if")
        for name in ("then", "else"):
            self._optional_subschema(name, old, new, where)

    def branches(self, old: Node, new: Node, where: str) -> None:
        for name in _BRANCHES:
            before, after = old.get(name), new.get(name)
            if (before is None and after is None) or json_key(before) == json_key(after):
                continue
            at = f"{where}/{name}"
            if name != "allOf" and (before is None or after is None):
                how, local = ("added", LESS) if before is None else ("removed", MORE)
                self.add(
                    at, where, f"{name} {how}", f"{len(after or before or [])} branches", local
                )
                continue
            before, after = before or [], after or []
            if len(before) == len(after):
                for index, (was, now) in enumerate(zip(before, after, strict=True)):
                    self.node(was, now, f"{at}/{index}")
                continue
            kept = all(any(self.same(was, now) for now in after) for was in before)
            only = all(any(self.same(was, now) for was in before) for now in after)
            grown = {"allOf": LESS, "anyOf": MORE}.get(name) if kept else None
            shrunk = {"allOf": MORE, "anyOf": LESS}.get(name) if only else None
            detail = f"{len(before)} -> {len(after)} branches"
            if grown:
                self.add(at, where, f"{name} branch added", detail, grown)
            elif shrunk:
                self.add(at, where, f"{name} branch removed", detail, shrunk)
            else:
                self.add(at, where, f"{name} branches changed", detail, BOTH)

    def dependent_schemas(self, old: Node, new: Node, where: str) -> None:
        before, after = old.get("dependentSchemas", {}), new.get("dependentSchemas", {})
        for name in sorted(set(before) | set(after)):
            at = f"{where}/dependentSchemas/{escape(name)}"
            if name in before and name in after:
                self.node(before[name], after[name], at)
            elif name in after:
                self.add(at, where, "dependentSchemas added", show(after[name]), LESS)
            else:
                self.add(at, where, "dependentSchemas removed", show(before[name]), MORE)

    def references(self, old: Node, new: Node, where: str) -> None:
        before, after = old.get("$ref"), new.get("$ref")
        at = f"{where}/$ref"
        if before == after:
            return
        if before is None or after is None:
            how, local = ("added", LESS) if before is None else ("removed", MORE)
            self.add(at, where, f"$ref {how}", show(after or before), local)
        elif not self.same({"$ref": before}, {"$ref": after}):
            detail = f"{show(before)} -> {show(after)}: the targets differ"
            self.add(at, where, "$ref target changed", detail, BOTH)

    def definitions(self, old: Node, new: Node, where: str) -> None:
        before, after = old.get("$defs", {}), new.get("$defs", {})
        for name in [*before, *(key for key in after if key not in before)]:
            at = f"{where}/$defs/{escape(name)}"
            if name in before and name in after:
                self.node(before[name], after[name], at)
            else:
                how = "added" if name in after else "removed"
                detail = "only a $ref could use it"
                self.findings.append(Finding(at, at, f"definition {how}", detail, NONE, inert=True))

    def dialect(self, old: Node, new: Node, where: str) -> None:
        for name in ("$schema", "$vocabulary", "$dynamicRef", "$dynamicAnchor"):
            before, after = old.get(name), new.get(name)
            if json_key(before) != json_key(after):
                detail = f"{show(before)} -> {show(after)}"
                # NOTE: anchored at the root: a dialect or dynamic scope change is never moot.
                self.add(f"{where}/{escape(name)}", "", f"{name} changed", detail, BOTH)


_GROUP_OF: dict[str, str] = {
    **dict.fromkeys(_OBJECT, "members"),
    **dict.fromkeys(_ARRAY, "arrays"),
    "not": "negation",
    **dict.fromkeys(_CONDITIONAL, "conditional"),
    **dict.fromkeys(_BRANCHES, "branches"),
    "dependentSchemas": "dependent_schemas",
    "$ref": "references",
    "$defs": "definitions",
    **dict.fromkeys(("$schema", "$vocabulary", "$dynamicRef", "$dynamicAnchor"), "dialect"),
}


def _fallback(node: Node) -> Any:
    """The schema a member not in `properties` meets; None when it cannot be told here."""
    if "patternProperties" in node:
        return None
    if "additionalProperties" in node:
        return node["additionalProperties"]
    if "unevaluatedProperties" in node:
        return None if _COMPOSITION & set(node) else node["unevaluatedProperties"]
    return True
