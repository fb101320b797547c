"""References resolved offline: `$id` scopes, `$anchor`s, JSON Pointers and a local registry.

Nothing is ever fetched. A reference resolves to a schema in the document itself (through
the base URI that `$id`s set), or to a file under a directory the caller registered for a
URI prefix (`refs={"https://example.com/schemas/": "schemas/"}`), read with the same strict,
bounded parser as everything else. Anything else is a `SchemaError`.

`Index` maps every resource URI and anchor to a JSON Pointer in one combined document: the
root schema, with each registry document placed under `$defs` at a reserved key. `prepare`
then rewrites every `$ref` to a plain local pointer, so the generated code never resolves a
URI at run time.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote, urldefrag, urljoin

from toolguard.errors import Rejection, SchemaError, SchemaUnreadable
from toolguard.file_encoding import encoding_problem
from toolguard.files import absolute_text, is_stdin, open_data, open_regular
from toolguard.limits import Limits, read_bounded
from toolguard.parse import parse
from toolguard.pointer import MISSING, escape, lookup
from toolguard.schema.cache import file_digest
from toolguard.shipped import shipped_schema

ROOT_BASE = "urn:toolguard:root"
METASCHEMA_PREFIX = "https://json-schema.org/draft/2020-12/"
REMOTE_PREFIX = "toolguard:remote:"
# Schemas are configuration, not responses: generous budgets, the same strictness.
SCHEMA_LIMITS = Limits(max_bytes=16 << 20, max_depth=128, max_container_items=1_000_000)
# Keywords whose value is a schema, a list of schemas, or a map of schemas.
ONE = frozenset(
    {
        "not",
        "if",
        "then",
        "else",
        "additionalProperties",
        "propertyNames",
        "items",
        "contains",
        "unevaluatedProperties",
        "unevaluatedItems",
        "contentSchema",
    }
)
_NOT_A_URI_REFERENCE = re.compile("^ |[\x00-\x1f\x7f]")
MANY = frozenset({"allOf", "anyOf", "oneOf", "prefixItems"})
MAP = frozenset({"properties", "patternProperties", "$defs", "dependentSchemas"})


def read_schema(
    path: Path, files: list[tuple[str, str]] | None = None, *, inside: Path | None = None
) -> Any:
    """A schema file, read within `SCHEMA_LIMITS` by the strict parser; `SchemaError` if not.

    `files`, if given, receives the path and SHA-256 of the very bytes parsed (the compile
    cache re-checks them, so an edited file is never served from an older compile). `inside`:
    the file opened must be one in that folder (a registry's), judged on the open file.
    """
    if "\0" in str(path):  # `open` would raise ValueError: no file has such a name
        raise SchemaError("cannot read schema: a path cannot hold a NUL", source=str(path))
    try:
        opened = open_data(path) if is_stdin(path) else open_regular(path)
        with opened as stream:  # `-`: standard input (`toolguard validate - FILE`)
            if inside is not None and not _opened_inside(path, stream.fileno(), inside):
                raise SchemaError(
                    "cannot read schema: it is no longer a file in its registry folder "
                    "(a link on its path changed as it was opened)",
                    source=str(path),
                )
            raw = read_bounded(stream, SCHEMA_LIMITS.max_bytes)
        if files is not None:
            files.append((str(path), file_digest(raw)))
        return parse(raw, SCHEMA_LIMITS)
    except OSError as exc:
        raise SchemaUnreadable(f"cannot read schema: {exc.strerror}", source=str(path)) from None
    except Rejection as exc:
        if exc.reason in {"bom", "invalid_utf8"} and (why := encoding_problem(raw)):
            raise SchemaError(f"schema {why}", source=str(path)) from None
        where = f" at byte {exc.offset}" if exc.offset is not None else ""
        raise SchemaError(f"not strict JSON{where}: {exc.message}", source=str(path)) from None


def join(base: str, ref: str) -> str:
    """Resolve `ref` against `base`, URNs included (urljoin ignores their fragments)."""
    try:
        if ref.startswith("#"):
            return urldefrag(base).url + ref
        return urljoin(base, ref)
    except ValueError as exc:  # e.g. "http://[::1" is not a URI
        raise SchemaError(f"{ref!r} is not a valid URI reference ({exc})") from None


def uri_reference(value: str, field: str) -> str:
    """`value` if it may be read as a URI reference, else a `SchemaError` naming `field`.

    NOTE: Python's URL parser silently drops a tab, CR or LF anywhere and strips C0 controls
    and spaces from the front (bpo-43882), so `#/$defs/a<LF>b` would resolve to `#/$defs/ab`.
    No URI reference holds a control character or starts with a space: such a value is
    refused, not read as another (written percent-encoded, `%0A`, it means what it says).
    """
    if _NOT_A_URI_REFERENCE.search(value):
        raise SchemaError(
            f"{value!r} is not a valid URI reference (a control character or a leading space: "
            "percent-encode it)",
            field=field,
        )
    return value


def _claim(table: dict[str, str], uri: str, where: str, keyword: str) -> None:
    """Record that `uri` names the subschema at `where`; a `SchemaError` if another has it.

    Core 2020-12 (sections 8.2.1, 8.2.2): a URI, or an anchor within a resource, identifies
    one schema. Taking the first would silently ignore the other (the spec asks for an error).
    """
    first = table.setdefault(uri, where)
    if first != where:
        raise SchemaError(
            f"{keyword} {uri!r} names two subschemas: {first or '/'} and {where or '/'}",
            field=f"{where}/{keyword}",
        )


def children(node: Any, where: str) -> Iterator[tuple[Any, str]]:
    """The subschemas directly inside `node`, with their pointers."""
    if not isinstance(node, dict):
        return
    for keyword, value in node.items():
        at = f"{where}/{escape(keyword)}"
        if keyword in ONE:
            yield value, at
        elif keyword in MANY and isinstance(value, list):
            yield from ((item, f"{at}/{index}") for index, item in enumerate(value))
        elif keyword in MAP and isinstance(value, dict):
            yield from ((item, f"{at}/{escape(key)}") for key, item in value.items())


def _refuse_reserved_names(root: Any) -> None:
    """Registry documents are bundled under the root's `$defs` by reserved names: none of its own.

    A member of that name would be shadowed by (or overwrite) a loaded document, and the
    schema then means another thing than its author wrote.
    """
    definitions = root.get("$defs") if isinstance(root, dict) else None
    if not isinstance(definitions, dict):
        return
    for name in definitions:
        if name.startswith(REMOTE_PREFIX):
            raise SchemaError(
                f"'$defs' names starting with {REMOTE_PREFIX!r} are toolguard's own (where the "
                f"documents '$ref's lead to are bundled): rename {name!r}",
                field=f"/$defs/{escape(name)}",
            )


class Index:
    """Every addressable schema location of the root document and the registry documents."""

    def __init__(self, root: Any, registry: Mapping[str, str | Path] | None) -> None:
        self.root = root
        self.registry = {prefix: Path(folder) for prefix, folder in (registry or {}).items()}
        # The 2020-12 metaschemas ship with toolguard: `$ref`s to them never need the network.
        self.registry.setdefault(METASCHEMA_PREFIX, shipped_schema("metaschemas/draft2020-12"))
        self.base: dict[str, str] = {}  # pointer -> base URI in force there
        self.resources: dict[str, str] = {}  # absolute URI (no fragment) -> pointer
        self.anchors: dict[str, str] = {}  # URI#anchor -> pointer ($dynamicAnchors too)
        self._dynamic: dict[str, dict[str, str]] = {}  # see `dynamic_anchors`
        self.remotes: list[tuple[str, Any]] = []  # (key under $defs, document), in load order
        self.files: list[tuple[str, str]] = []  # registry files read: (path, SHA-256)
        # (where, keyword, value) of every `$ref` and `$dynamicRef` in the documents read
        self._references: list[tuple[str, str, str]] = []
        self._followed = 0  # how many of them `_load_referenced` resolved
        _refuse_reserved_names(root)
        self._add(root, "", ROOT_BASE)

    def _add(self, node: Any, where: str, base: str) -> None:
        if isinstance(node, dict):
            if isinstance(node.get("$id"), str):
                base = join(base, uri_reference(node["$id"], f"{where}/$id"))
                if urldefrag(base).fragment:
                    raise SchemaError("'$id' must not carry a fragment", field=f"{where}/$id")
                _claim(self.resources, urldefrag(base).url, where, "$id")
            elif not where:
                self.resources.setdefault(urldefrag(base).url, where)
            resource = urldefrag(base).url
            for keyword in ("$anchor", "$dynamicAnchor"):
                if isinstance(node.get(keyword), str):
                    _claim(self.anchors, f"{resource}#{node[keyword]}", where, keyword)
            if isinstance(node.get("$dynamicAnchor"), str):
                self._dynamic.setdefault(node["$dynamicAnchor"], {})[resource] = where
            self._references.extend(
                (where, keyword, node[keyword])
                for keyword in ("$ref", "$dynamicRef")
                if isinstance(node.get(keyword), str)
            )
        self.base[where] = base
        for child, at in children(node, where):
            self._add(child, at, base)

    def _load_referenced(self) -> None:
        """Load every registry document a reference leads to, and those they lead to.

        NOTE: before anything reads the tables: a `$dynamicRef` may land on any resource with
        a `$dynamicAnchor` of its name, in whichever document, so `dynamic` must hold the
        anchors of every document, not those loaded so far (then the answer would depend on
        the order the schema's members are written in).
        """
        while self._followed < len(self._references):  # a load adds the document's references
            where, keyword, ref = self._references[self._followed]
            self._followed += 1
            self.resolve(ref, where, keyword)

    def dynamic_anchors(self) -> dict[str, dict[str, str]]:
        """Anchor name -> {resource URI: pointer} of every `$dynamicAnchor` references reach.

        Every document a reference leads to is read first (`_load_referenced`).
        """
        self._load_referenced()
        return self._dynamic

    def resource_of(self, pointer: str) -> str:
        """The URI of the schema resource `pointer` lies in (its base URI's resource)."""
        return urldefrag(self.base.get(pointer, ROOT_BASE)).url

    def dynamic_targets(self, ref: str, where: str, target: str) -> dict[str, str]:
        """Where a `$dynamicRef` may land, by the resource that would be in the dynamic scope.

        Resource URI -> pointer of its `$dynamicAnchor` of the ref's name; {} when the ref is
        a plain reference (its fragment is not a name, or `target`, where it lands
        statically, has no `$dynamicAnchor` of that name).
        """
        fragment = urldefrag(join(self.base.get(where, ROOT_BASE), ref)).fragment
        node = self._node(target)
        if not fragment or fragment.startswith("/") or not isinstance(node, dict):
            return {}
        if node.get("$dynamicAnchor") != fragment:
            return {}
        return dict(self.dynamic_anchors().get(fragment, {}))

    def resolve(self, ref: str, where: str, keyword: str = "$ref") -> str:
        """The pointer (in the combined document) that `ref`, `keyword` at `where`, denotes."""
        field = f"{where}/{keyword}"
        uri = join(self.base.get(where, ROOT_BASE), uri_reference(ref, field))
        resource, fragment = urldefrag(uri)
        if resource not in self.resources:
            self._load(resource, field)
        start = self.resources[resource]
        if fragment == "" or fragment.startswith("/"):
            pointer = start + unquote(fragment)
            if self._node(pointer) is MISSING:
                raise SchemaError(f"reference {ref!r} points at nothing", field=field)
            return pointer
        anchor = self.anchors.get(f"{resource}#{fragment}")
        if anchor is None:
            raise SchemaError(f"reference {ref!r} names no $anchor", field=field)
        return anchor

    def _node(self, pointer: str) -> Any:
        for key, document in self.remotes:
            prefix = f"/$defs/{escape(key)}"
            if pointer == prefix or pointer.startswith(f"{prefix}/"):
                return lookup(document, pointer[len(prefix) :])
        return lookup(self.root, pointer)

    def document(self, uri: str, where: str) -> Any:
        """The document at `uri` (loading it from the registry if needed)."""
        if uri not in self.resources:
            self._load(uri, f"{where}/$ref")
        return self._node(self.resources[uri])

    def _load(self, uri: str, field: str) -> None:
        # NOTE: the longest registered prefix serves a URI, and only it: the answer depends
        # neither on the order the registry was given in nor on a file missing elsewhere, so
        # the compile cache, keyed by the registry sorted, and checking the files read, is
        # never stale.
        prefix = max(
            (prefix for prefix in self.registry if _served(prefix, uri) is not None),
            key=len,
            default=None,
        )
        folder = path = None
        if prefix is not None:
            folder = self.registry[prefix]
            path = _registered(folder, _served(prefix, uri) or "")
        if path is None:
            served = (
                f"no such file in the folder for {prefix!r}"
                if prefix is not None
                else "not in the registry"
            )
            raise SchemaError(
                f"unknown reference {uri!r}: not in the schema, {served} "
                "(references are resolved offline only)",
                field=field,
            )
        try:
            document = read_schema(path, self.files, inside=folder)
        except SchemaError as exc:
            raise SchemaError(f"{uri!r}: {exc}", field=field) from None
        key = f"{REMOTE_PREFIX}{len(self.remotes)}"
        self.remotes.append((key, document))
        self.resources[uri] = f"/$defs/{escape(key)}"
        self._add(document, f"/$defs/{escape(key)}", uri)


def _served(prefix: str, uri: str) -> str | None:
    """The file name `uri` gives in a registered prefix's folder; None if the prefix serves not it.

    A prefix ending inside a path segment (`https://e.com/s`) names the same folder as
    `https://e.com/s/`, and only that: `https://e.com/sx/a.json` is another namespace, not the
    file `x/a.json` in it. A prefix ending with a delimiter (`/`, `:`, `#`...) serves whatever
    follows it, as written: `https://e.com/s//a.json` is not `a.json` in `https://e.com/s/`'s
    folder (the `/` that follows is the absolute path `/a.json`, which no folder holds).
    """
    if not uri.startswith(prefix):
        return None
    rest = uri[len(prefix) :]
    if prefix[-1:].isalnum() or prefix[-1:] in _SEGMENT_MARKS:
        return rest[1:] if rest[:1] in {"", "/"} else None
    return rest


_SEGMENT_MARKS = frozenset("-._~%!$&'()*+,;=@")  # RFC 3986 pchar besides letters and digits


def _registered(folder: Path, rest: str) -> Path | None:
    """The file `rest` names inside the registry folder, or None if there is none.

    `rest` comes from a schema: a NUL, a name too long, a symbolic-link loop or a path out of
    the folder is simply not a registered document. The path is returned as looked up, links
    not followed: what the compile cache re-reads, so a link pointed elsewhere is a miss.
    NOTE: a link may change before the file is opened: `read_schema(inside=...)` judges again
    what it opened (`_opened_inside`).
    """
    try:
        path = Path(absolute_text(folder)) / rest
        resolved = path.resolve()
        return path if resolved.is_relative_to(folder.resolve()) and resolved.is_file() else None
    except (OSError, ValueError, RuntimeError):  # RuntimeError: a link loop (Python < 3.13)
        return None


def _opened_inside(path: Path, fd: int, folder: Path) -> bool:
    """Whether the open file `fd` (opened by `path`) is the file `path` resolves to in `folder`.

    Resolved after the open: a link swapped before it leaves `path` resolving outside the
    folder, or to another file than the one opened; swapped after it, it changes nothing read.
    """
    try:
        resolved = path.resolve()
        here = resolved.stat()
        within = resolved.is_relative_to(folder.resolve())
    except (OSError, ValueError, RuntimeError):
        return False
    opened = os.fstat(fd)
    return within and (opened.st_dev, opened.st_ino) == (here.st_dev, here.st_ino)


def bundle(index: Index) -> Any:
    """The schema as one self-contained document, otherwise as written.

    Every `$ref` a local pointer, no `$id` or `$anchor` left, registry documents under
    `$defs`: what the envelope schema copies from, with no base URI to get wrong. A
    `$dynamicRef` that can land only on its static target is a local pointer too (a pointer
    fragment makes it a plain reference). One whose landing the dynamic scope decides is left
    as written: the resources (`$id`s) that decide it are gone, so in the bundle it no longer
    means what `check` enforces, and whoever copies from the bundle must refuse it
    (`is_dynamic`).
    """

    def copy(node: Any, where: str) -> Any:
        if not isinstance(node, dict):
            return node
        out: dict[str, Any] = {}
        for keyword, value in node.items():
            at = f"{where}/{escape(keyword)}"
            if keyword in ("$id", "$anchor") or (keyword == "$schema" and where):
                continue
            if keyword == "$ref" and isinstance(value, str):
                out[keyword] = "#" + quote(index.resolve(value, where), safe="/~")
            elif keyword == "$dynamicRef" and isinstance(value, str):
                target = index.resolve(value, where, keyword)
                landings = set(index.dynamic_targets(value, where, target).values())
                out[keyword] = "#" + quote(target, safe="/~") if landings <= {target} else value
            elif keyword in ONE:
                out[keyword] = copy(value, at)
            elif keyword in MANY and isinstance(value, list):
                out[keyword] = [copy(item, f"{at}/{n}") for n, item in enumerate(value)]
            elif keyword in MAP and isinstance(value, dict):
                out[keyword] = {
                    key: copy(item, f"{at}/{escape(key)}") for key, item in value.items()
                }
            else:
                out[keyword] = value
        return out

    bundled = copy(index.root, "")
    for key, document in index.remotes:
        bundled.setdefault("$defs", {})[key] = copy(document, f"/$defs/{escape(key)}")
    return bundled


def is_dynamic(bundled_ref: str) -> bool:
    """Whether a bundle's `$dynamicRef` lands where the dynamic scope says (see `bundle`)."""
    return not (bundled_ref == "#" or bundled_ref.startswith("#/"))
