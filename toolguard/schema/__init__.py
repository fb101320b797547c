"""Schema stage: a Draft 2020-12 schema -> a compiled validator that raises `ValidationError`.

Schemas are checked by `keywords.prepare` (anything not enforced is refused), then compiled
to Python code by fastjsonschema with defaults off (a validator must never fill in data),
formats asserted by our own parsers, and every remote reference refused.
"""

from __future__ import annotations

# NOTE: `_collections_abc`, loaded with the interpreter, not `collections.abc`, whose package
# `collections` costs a one-shot check start-up time (the standard library's `os` does the same).
from _collections_abc import Callable, Iterator, Mapping

from toolguard.errors import SchemaError, ValidationError
from toolguard.number import from_plain_data, to_plain_data
from toolguard.pointer import is_index, join, lookup
from toolguard.schema.cache import (
    Entry,
    SchemaViolation,
    SchemaViolations,
    cached,
    compile_source,
    function_of,
)
from toolguard.schema.matcher import UnmatchableText
from toolguard.schema.runtime import LOCATION_TAG
from toolguard.standins import bounded

TYPE_CHECKING = False
if TYPE_CHECKING:
    from pathlib import Path
    from typing import Any, NoReturn

    from toolguard.schema.keywords import Prepared

__all__ = ["Validator", "compile_schema"]


class _LazyFormats(Mapping[str, Callable[[str], bool]]):
    """The format checkers, imported when a validator first checks a format, not before.

    Generated code only indexes it (`custom_formats["uri"](value)`); most schemas name no
    format, and the checkers' grammars cost start-up a check should not pay for.
    """

    def __getitem__(self, name: str) -> Callable[[str], bool]:
        from toolguard.schema.formats import checker  # noqa: PLC0415

        return checker(name)

    def __iter__(self) -> Iterator[str]:
        from toolguard.schema.formats import FORMAT_CHECKERS  # noqa: PLC0415

        return iter(FORMAT_CHECKERS)

    def __len__(self) -> int:
        from toolguard.schema.formats import FORMAT_CHECKERS  # noqa: PLC0415

        return len(FORMAT_CHECKERS)


_FORMATS = _LazyFormats()


class _Offline(dict[str, Callable[[str], object]]):
    """A handler table that claims every URI scheme, so fastjsonschema never calls urlopen."""

    def __contains__(self, scheme: object) -> bool:
        return True

    def __missing__(self, scheme: str) -> Callable[[str], Any]:
        return _refuse_remote


def _refuse_remote(uri: str) -> NoReturn:
    raise SchemaError(f"refusing to fetch {uri!r}: references are resolved offline only")


class Validator:
    """A compiled schema. `validate` raises `ValidationError`; `is_valid` answers yes or no."""

    def __init__(self, function: Callable[[Any], Any], entry: Entry) -> None:
        self._function = function
        self.entry = entry  # what the contract artefact stores to skip this compile
        # Self-contained: local pointer refs only (see refs.bundle); plain data in a tuple.
        bundled = entry.bundled
        self.schema = from_plain_data(bundled[0]) if isinstance(bundled, tuple) else bundled

    @classmethod
    def from_entry(cls, entry: Entry) -> Validator:
        """The validator an entry's code defines, with no check, no generator, no fastjsonschema."""
        function = function_of(entry)
        return cls(_with_formats(function) if entry.formats else function, entry)

    def validate(self, instance: Any) -> None:
        """Raise `ValidationError` (schema path, instance path, message) unless `instance` fits."""
        try:
            self._function(instance)
        except SchemaViolation as exc:
            raise self._error(exc, instance) from None
        except RecursionError:
            # NOTE: cycles that skip the instance are refused at compile time; this is a
            # recursive schema meeting an instance deeper than Python's stack: reject it.
            raise ValidationError(
                "recursion", "instance nests deeper than the schema can follow"
            ) from None
        except UnmatchableText as exc:  # a library caller's str; parsed JSON never has one
            raise ValidationError("pattern", str(exc)) from None

    def errors(self, instance: Any) -> list[ValidationError]:
        """Every violation of a collecting validator (`collect=True`), in schema order; [] if valid.

        A validator that stops at the first error gives that one. Use it to list what is
        wrong with an instance already rejected: collecting goes on past an error, so one
        mistake may show under several keywords.
        """
        try:
            self._function(instance)
        except SchemaViolations as exc:
            return [self._error(item, instance) for item in exc.errors]
        except SchemaViolation as exc:
            return [self._error(exc, instance)]
        except RecursionError:
            return [
                ValidationError("recursion", "instance nests deeper than the schema can follow")
            ]
        except UnmatchableText as exc:  # as `validate`: a lone surrogate fails its pattern
            return [ValidationError("pattern", str(exc))]
        return []

    def is_valid(self, instance: Any) -> bool:
        """Whether `instance` satisfies the schema."""
        try:
            self._function(instance)
        except (SchemaViolation, RecursionError, UnmatchableText):
            return False
        return True

    def _error(self, exc: SchemaViolation, instance: Any) -> ValidationError:
        rule = exc.rule or "schema"
        tag = exc.definition.get("$comment", "") if isinstance(exc.definition, dict) else ""
        where = tag.removeprefix(LOCATION_TAG) if tag.startswith(LOCATION_TAG) else None
        schema_path = f"{where.rstrip('/')}/{rule}" if where is not None else None
        steps = _steps(instance, (exc.name or "data").removeprefix("data"))
        if steps is None:  # NOTE: unreachable for names fastjsonschema builds from `instance`
            steps = exc.path[1:]
        instance_path = join(steps)
        message = self._as_written(exc, schema_path)
        return ValidationError(rule, message, schema_path=schema_path, instance_path=instance_path)

    def _as_written(self, exc: SchemaViolation, schema_path: str | None) -> str:
        """The message with a pattern as its author wrote it, not as it was translated.

        Generated code quotes the Python pattern it runs (`^TCK` + an escaped `-` ...); the
        bundled schema still holds the ECMA-262 text at the same location.
        """
        if exc.rule != "pattern" or schema_path is None or not isinstance(exc.definition, dict):
            return exc.message
        translated, written = exc.definition.get("pattern"), lookup(self.schema, schema_path)
        if not isinstance(translated, str) or not isinstance(written, str):
            return exc.message
        if not exc.message.endswith(translated):
            return exc.message
        return exc.message[: len(exc.message) - len(translated)] + written


def _steps(node: Any, name: str) -> list[str] | None:
    """Recover the member names and indexes behind a fastjsonschema name like `.a.b[0]`.

    The name joins keys with "." and "[i]" without escaping, so `a.b` is ambiguous as text;
    walking the instance it was built from makes it exact. Each node is tried once per parent.
    """
    if name == "":
        return []
    if isinstance(node, dict) and name.startswith("."):
        for key in node:
            if name.startswith(key, 1):
                rest = _steps(node[key], name[1 + len(key) :])
                if rest is not None:
                    return [key, *rest]
    if isinstance(node, list) and name.startswith("["):
        index, _, rest_name = name[1:].partition("]")
        if is_index(index) and int(index) < len(node):
            rest = _steps(node[int(index)], rest_name)
            if rest is not None:
                return [index, *rest]
    return None


def compile_schema(
    schema: Any,
    *,
    refs: Mapping[str, str | Path] | None = None,
    formats: bool = True,
    collect: bool = False,
    _check_dialect: bool = True,
) -> Validator:
    """Compile a Draft 2020-12 schema, or raise `SchemaError` if any part cannot be enforced.

    `refs` maps URI prefixes to local directories: the only place, besides the schema itself,
    where a `$ref` may lead. Nothing is fetched from the network. A schema compiled before
    (same text, options, registry files and toolguard) is loaded from the cache instead.
    `collect` builds the variant that records every error and goes on (`Validator.errors`):
    for telling a person all that is wrong, never for deciding (it is slower).
    """

    def build() -> Entry:
        try:
            from toolguard.schema.keyword_values import check_json_data  # noqa: PLC0415
            from toolguard.schema.keywords import prepare  # noqa: PLC0415 - misses only

            check_json_data(schema)
            prepared = prepare(schema, formats=formats, refs=refs)
        except RecursionError:
            raise SchemaError("schema nests too deeply to be checked") from None
        if _check_dialect:
            _conforms_to_metaschema(schema)
        name, code = compile_source(_generate(prepared, collect=collect))
        bundled = to_plain_data(prepared.bundled)
        if bundled is not prepared.bundled:
            bundled = (bundled,)  # a schema is an object or a boolean: a tuple is plain data
        return Entry(name, code, bundled, prepared.formats, prepared.files)

    try:
        # NOTE: the cache stores and keys plain data: a number written with more digits than
        # its float shows (an `ExactFloat`) is keyed and stored as a tuple (`to_plain_data`).
        material = to_plain_data(schema)
    except RecursionError:
        material = schema  # too deep to walk: `build` refuses it, and nothing is cached
    return Validator.from_entry(
        cached(material, formats=formats, refs=refs, build=build, collect=collect)
    )


def _generate(prepared: Prepared, *, collect: bool = False) -> str:
    """Generate the module source for a prepared schema (imports fastjsonschema: misses only)."""
    import copy  # noqa: PLC0415
    import re  # noqa: PLC0415

    from fastjsonschema import JsonSchemaDefinitionException  # noqa: PLC0415

    from toolguard.schema.formats import FORMAT_CHECKERS  # noqa: PLC0415
    from toolguard.schema.generator import generate_source  # noqa: PLC0415

    checkers = FORMAT_CHECKERS if prepared.formats else {}
    try:
        # NOTE: fastjsonschema's resolver rewrites $ref values in place: give it a copy.
        return generate_source(
            copy.deepcopy(prepared.schema),
            _Offline(),
            checkers,
            use_formats=prepared.formats,
            collect=collect,
        )
    except JsonSchemaDefinitionException as exc:
        raise SchemaError(f"invalid schema: {exc}") from None
    except (ValueError, TypeError, RecursionError, re.error) as exc:
        raise SchemaError(f"invalid schema: {type(exc).__name__}: {exc}") from None


def prebuilt_validator(name: str) -> Validator | None:
    """A validator shipped compiled (`prebuilt.py`), or None if its schema files changed."""
    from toolguard.schema.prebuilt import module  # noqa: PLC0415 - cold paths only

    generated = module(name)
    if generated is None:
        return None
    function = getattr(generated, generated.NAME)
    entry = Entry(generated.NAME, function.__code__, generated.BUNDLED, generated.FORMATS, ())
    return Validator(_with_formats(function) if entry.formats else function, entry)


def _with_formats(function: Callable[..., Any]) -> Callable[..., Any]:
    """`function` given toolguard's format checkers (as `functools.partial` would)."""

    def validate(*args: Any, **kwargs: Any) -> Any:
        return function(*args, custom_formats=_FORMATS, **kwargs)

    return validate


@bounded(1)  # NOTE: `cache` is this package's submodule: this remembers one result
def _metaschema() -> Validator:
    """The shipped Draft 2020-12 metaschema, compiled by toolguard itself (formats annotated)."""
    from toolguard.schema.vocabulary import DRAFT_2020_12  # noqa: PLC0415 - misses only

    shipped = prebuilt_validator("metaschema")
    if shipped is not None:
        return shipped
    return compile_schema({"$ref": DRAFT_2020_12}, formats=False, _check_dialect=False)


def _conforms_to_metaschema(schema: Any) -> None:
    """Refuse a schema the 2020-12 metaschema rejects (`"title": 5`, `"required": "a"`...)."""
    try:
        _metaschema().validate(schema)
    except ValidationError as exc:
        raise SchemaError(
            f"not a valid Draft 2020-12 schema: {exc.message}", field=exc.instance_path or "/"
        ) from None
