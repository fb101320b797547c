"""Schema views: the subschemas that apply together to one place in an instance.

A view is a conjunction: a subschema, the `allOf` parts and `$ref` targets it pulls in, and one
branch chosen from each `anyOf`/`oneOf`/`if` on the way (`if` with `then`, since what a passed
`if` evaluates is evaluated; or `else`). Lint judges leaf views (every branch chosen) because
that is what an instance meets: `additionalProperties: false` in one part does not see its
siblings' properties, and `unevaluatedProperties: false` sees only its own subschemas. `not`,
`contains`, `propertyNames` and `contentSchema` describe no accepted value and are not followed
(`contains` is, as an item schema, where `unevaluatedItems` lets what it matches through: see
`walk.py`). A keyword left out is `true`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any
from urllib.parse import unquote

from toolguard.lint.dynamic import dynamic_targets
from toolguard.pointer import MISSING, is_index, lookup, tokens
from toolguard.schema.refs import REMOTE_PREFIX, children
from toolguard.schema.vocabulary import ANNOTATIONS

JSON_TYPES = frozenset({"null", "boolean", "object", "array", "number", "integer", "string"})
CORE = frozenset({"$id", "$schema", "$anchor", "$dynamicAnchor", "$defs", "$vocabulary"})
# A view whose members hold only these keywords accepts every value: the applicators are
# followed as members of their own (or, for `not`/`if`/`dependentSchemas`, constrain nothing
# an author can rely on).
_NEUTRAL = ANNOTATIONS | CORE | {"$ref", "$dynamicRef", "allOf", "anyOf", "oneOf"}
_NEUTRAL |= {"if", "then", "else", "dependentSchemas", "not"}
_REMOTE = f"/$defs/{REMOTE_PREFIX}"


def is_anything(schema: Any) -> bool:
    """Whether `schema` on its own accepts every JSON value: `true`, `{}`, or only annotations."""
    return schema is True or (isinstance(schema, dict) and set(schema) <= ANNOTATIONS | CORE)


def is_nothing(schema: Any) -> bool:
    """Whether `schema` on its own accepts no JSON value, so it closes what it governs.

    `false`, `{"not": {}}` (or `not` of any schema that accepts everything), an empty `enum`,
    an `allOf` with such a part, an `anyOf`/`oneOf` of nothing but such branches. (`$ref`
    targets are followed by views: a view with such a member is `impossible`.)
    """
    if not isinstance(schema, dict):
        return schema is False
    if ("not" in schema and is_anything(schema["not"])) or schema.get("enum") == []:
        return True
    parts = schema.get("allOf")
    if isinstance(parts, list) and any(map(is_nothing, parts)):
        return True
    return any(
        isinstance(branches, list) and branches and all(map(is_nothing, branches))
        for branches in (schema.get("anyOf"), schema.get("oneOf"))
    )


@dataclass(frozen=True, slots=True)
class Member:
    """One subschema of a view, and the member that applied it (through `via`), if any."""

    location: str
    parent: str | None = None
    via: str = ""  # "$ref", "$dynamicRef", "allOf", "anyOf", "oneOf", "then", "else", ...


@dataclass(frozen=True, slots=True)
class Reach:
    """How far an instance location is from the projected pointers (`()`: reached)."""

    remaining: frozenset[tuple[str, ...]]

    @classmethod
    def of(cls, pointers: Iterable[str] | None) -> Reach:
        """Reach toward `pointers`; None means everything is reached (a bare schema)."""
        if pointers is None:
            return cls(frozenset({()}))
        return cls(frozenset(tuple(tokens(pointer)) for pointer in pointers))

    @property
    def reached(self) -> bool:
        """Whether the agent can see this location (or something inside it)."""
        return () in self.remaining

    def step(self, token: str | None) -> Reach:
        """Reach one level down, through member `token` (`*`: any array item; None: a map)."""
        if self.reached:
            return self
        return Reach(
            frozenset(
                rest[1:]
                for rest in self.remaining
                if token is not None and (rest[0] == token or (token == "*" and is_index(rest[0])))
            )
        )


class Document:
    """A bundled schema (every `$ref` a local pointer), the schema as written, and its file."""

    def __init__(self, bundled: Any, raw: Any, file: str, reach: Reach) -> None:
        self.schema = bundled
        self.raw = raw
        self.file = file
        self.reach = reach

    def node(self, location: str) -> Any:
        """The subschema at `location` (MISSING if there is none)."""
        return lookup(self.schema, location)

    def nodes(self) -> Iterator[tuple[str, dict[str, Any]]]:
        """Every object subschema of the file, with its pointer (embedded remotes left out)."""
        queue: deque[tuple[Any, str]] = deque([(self.schema, "")])
        while queue:
            node, at = queue.popleft()
            if at.startswith(_REMOTE) or not isinstance(node, dict):
                continue
            yield at, node
            queue.extend(children(node, at))

    def targets(self, at: str, keyword: str) -> tuple[str, ...] | None:
        """Where the `$ref`/`$dynamicRef` at `at` may lead in this file (None: it leaves it).

        A `$ref` leads to one place; a `$dynamicRef` to the `$dynamicAnchor` of each resource
        that may be in the dynamic scope when it runs (an instance meets one of them).
        """
        node = self.node(at)
        ref = node.get(keyword) if isinstance(node, dict) else None
        if not isinstance(ref, str):
            return None
        if keyword == "$dynamicRef":
            found = self._dynamic_refs.get(at, ())
        else:  # bundled: every `$ref` is a local pointer, or one into an embedded remote
            found = (unquote(ref[1:]),) if ref.startswith("#") else ()
        if not found or any(
            target.startswith(_REMOTE) or lookup(self.schema, target) is MISSING for target in found
        ):
            return None
        return found

    @cached_property
    def _dynamic_refs(self) -> dict[str, tuple[str, ...]]:
        # NOTE: as written: the bundle writes a static `$dynamicRef` as a pointer from its root,
        # which `dynamic_targets` would resolve against the written `$id`s.
        written = {
            at: lookup(self.raw, f"{at}/$dynamicRef")
            for at, node in self.nodes()
            if "$dynamicRef" in node
        }
        return dynamic_targets(self.raw, written) if written else {}

    def expand(self, seeds: Iterable[Member]) -> tuple[Member, ...]:
        """The seeds and every subschema they apply unconditionally (`allOf`, `$ref`).

        A `$dynamicRef` is followed here when it can land in one place only.
        """
        members: dict[str, Member] = {}
        queue = deque(seeds)
        while queue:
            member = queue.popleft()
            if member.location in members:
                continue
            members[member.location] = member
            node = self.node(member.location)
            if not isinstance(node, dict):
                continue
            at = member.location
            parts = node.get("allOf")
            if isinstance(parts, list):
                queue.extend(Member(f"{at}/allOf/{n}", at, "allOf") for n in range(len(parts)))
            for keyword in ("$ref", "$dynamicRef"):
                targets = self.targets(at, keyword)
                if targets is not None and len(targets) == 1:  # several: a disjunction (`sites`)
                    queue.append(Member(targets[0], at, keyword))
        return tuple(members.values())

    def view(self, seeds: Iterable[Member], root: str, *, reach: bool = True) -> View:
        """The conjunctive view of `seeds` (branches left unchosen), reported at `root`."""
        return View(self, root, self.expand(seeds), reach)

    def rejects_all(self, location: str) -> bool:
        """Whether the subschema at `location` accepts nothing (`false`, `{"not": {}}`...).

        `$ref` targets and `allOf` parts count; an absent keyword accepts everything: never.
        """
        return self.view([Member(location)], location).impossible


@dataclass(frozen=True)
class Site:
    """A disjunction in a view: `anyOf`, `oneOf`, `if`, or a `$dynamicRef` of several targets.

    A `$dynamicRef` lands where the dynamic scope says at run time: one branch per target.
    Each branch is the members an instance meets together when it takes that branch: `if`
    and `then` (an instance that passes `if` is evaluated by it, so what `if` declares
    counts for `unevaluated*`), or `else` alone; `()` for a missing `then`/`else`.
    """

    key: str
    branches: tuple[tuple[Member, ...], ...]


def sites(view: View) -> Iterator[Site]:
    """The disjunctions of a view's members: where an instance meets one branch of several."""
    for at, node in view.dicts:
        for keyword in ("anyOf", "oneOf"):
            items = node.get(keyword)
            if isinstance(items, list) and items:
                branches = tuple(
                    (Member(f"{at}/{keyword}/{n}", at, keyword),) for n in range(len(items))
                )
                yield Site(f"{at}/{keyword}", branches)
        targets = view.document.targets(at, "$dynamicRef")
        if targets is not None and len(targets) > 1:
            choices = tuple((Member(target, at, "$dynamicRef"),) for target in targets)
            yield Site(f"{at}/$dynamicRef", choices)
        if "if" in node:
            passed: tuple[Member, ...] = (Member(f"{at}/if", at, "if"),)
            if "then" in node:
                passed += (Member(f"{at}/then", at, "then"),)
            failed = (Member(f"{at}/else", at, "else"),) if "else" in node else ()
            yield Site(f"{at}/if", (passed, failed))


@dataclass(frozen=True)
class View:
    """Subschemas that all apply to one instance location; findings about it go to `root`."""

    document: Document
    root: str
    members: tuple[Member, ...]
    reach: bool  # whether the projection can reach this location (always, for a bare schema)

    @cached_property
    def nodes(self) -> tuple[tuple[str, Any], ...]:
        """(location, subschema) of every member."""
        pairs = ((member.location, self.document.node(member.location)) for member in self.members)
        return tuple((at, node) for at, node in pairs if node is not MISSING)

    @cached_property
    def dicts(self) -> tuple[tuple[str, dict[str, Any]], ...]:
        """The members that are schema objects (not booleans)."""
        return tuple((at, node) for at, node in self.nodes if isinstance(node, dict))

    def has(self, keyword: str) -> bool:
        """Whether any member has `keyword`."""
        return any(keyword in node for _, node in self.dicts)

    @cached_property
    def impossible(self) -> bool:
        """Whether no value passes (a member that accepts nothing: `false`, `{"not": {}}`...)."""
        return any(is_nothing(node) for _, node in self.nodes)

    @cached_property
    def implied(self) -> bool:
        """Whether the view stands for a keyword left out (an absent `items`): `true`."""
        return not self.nodes

    @cached_property
    def pinned(self) -> bool:
        """Whether the values are fixed by `enum` or `const`: nothing left to bound."""
        return self.has("enum") or self.has("const")

    @cached_property
    def opaque(self) -> bool:
        """Whether a member refers outside the file: what it constrains is not known here."""
        return any(
            keyword in node and self.document.targets(at, keyword) is None
            for at, node in self.dicts
            for keyword in ("$ref", "$dynamicRef")
        )

    @cached_property
    def anything(self) -> bool:
        """Whether the view accepts every JSON value."""
        return not self.opaque and all(
            node is True or (isinstance(node, dict) and set(node) <= _NEUTRAL)
            for _, node in self.nodes
        )

    @cached_property
    def declares_type(self) -> bool:
        """Whether any member says `type`."""
        return self.has("type")

    @cached_property
    def types(self) -> frozenset[str]:
        """The JSON types every member's `type` allows (all of them if none says)."""
        allowed = JSON_TYPES
        for _, node in self.dicts:
            declared = node.get("type", list(JSON_TYPES))
            named = {declared} if isinstance(declared, str) else set(declared)
            allowed &= named | ({"integer"} if "number" in named else set())
        return allowed

    @cached_property
    def value_types(self) -> frozenset[str]:
        """The JSON types of the values the view can hold, `enum`/`const` included."""
        if self.impossible:
            return frozenset()
        for _, node in self.dicts:
            values = [node["const"]] if "const" in node else node.get("enum")
            if isinstance(values, list):
                return self.types & {_json_type(value) for value in values}
        return self.types

    def holds(self, json_type: str) -> bool:
        """Whether values of `json_type` pass, not fixed by `enum`/`const` (objects: non-empty)."""
        if json_type not in self.types or self.impossible or self.pinned or self.opaque:
            return False
        return json_type != "object" or all(
            node.get("maxProperties") != 0 for _, node in self.dicts
        )

    def subtree(self, location: str) -> set[str]:
        """`location` and every member it applied, directly or not."""
        parents = {member.location: member.parent for member in self.members}
        found = {location}
        for member in self.members:
            parent = member.parent
            chain: set[str] = set()
            while parent is not None and parent not in chain:
                if parent == location:
                    found.add(member.location)
                    break
                chain.add(parent)
                parent = parents.get(parent)
        return found

    def requires(self, name: str) -> bool:
        """Whether every value must have member `name` (in `required`, or in every branch's)."""
        if any(name in (node.get("required") or ()) for _, node in self.dicts):
            return True
        return any(
            all(
                bool(branch) and self.document.view(branch, branch[0].location).requires(name)
                for branch in site.branches
            )
            for site in sites(self)
        )


def _json_type(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    kinds = {float: "number", str: "string", list: "array", dict: "object"}
    return kinds.get(type(value), "null")
