"""A contract the contract schema refuses -> every problem, in words, on its TOML line.

The schema engine reports keywords and regular expressions (`must not contain {'pointr'}
properties`, `must match pattern ^(/([^~/]|~[01])*)+$`); a contract author needs the key,
the line, and what to write instead. This turns the collecting validator's errors into
`Problem`s: an unknown key with the nearest allowed name ("did you mean"), a missing key,
a pattern in words (`WORDS`, keyed by where the pattern is in `contract.schema.json`).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from toolguard.contract.locate import position_of, toml_positions
from toolguard.errors import Problem, ValidationError
from toolguard.pointer import MISSING, join, lookup, tokens

_VALIDATOR_NAME = re.compile(r"^data[^ ]* ")  # fastjsonschema's "data.rules[0].x " prefix
_NAME = "a lower-case letter, then lower-case letters, digits or '_' (at most 64 in all)"
_POINTER = (
    "must be a JSON Pointer starting with '/', such as '/ticket/id' "
    "('~1' stands for a '/' inside a name, '~0' for a '~')"
)

# Where a pattern (or a name rule) sits in contract.schema.json -> what it asks, in words.
# `tests/contract/test_problems.py` checks that every pattern of the schema has its words.
WORDS = {
    "/$defs/pointer/pattern": _POINTER,
    "/$defs/name/pattern": f"must be a name: {_NAME}",
    "/$defs/schema_file/pattern": "must be a path relative to the contract's folder "
    "(not starting with '/' or '\\')",
    "/$defs/media_type/pattern": "must be a media type such as 'at+jwt' or "
    "'application/at+jwt': letters, digits or '!#$&^_.+-' (starting with a letter or digit, at "
    "most 127), one optional '/' between two such names, no parameters",
    "/$defs/context_key/pattern": "must be a context key: a letter or '_', then letters, "
    "digits or '_' (at most 64 in all)",
    "/properties/tool/pattern": f"must be a tool name: {_NAME}",
    "/properties/version/pattern": "must be a version such as '1.0.0': a letter or digit, "
    "then letters, digits, '.', '+' or '-' (at most 32 in all)",
    "/properties/projection/propertyNames": f"is not a field name here: {_NAME}, "
    "and not 'untrusted_display_text' (reserved for [display_text])",
    "/properties/allow_hidden_characters/propertyNames": f"is not a field name: {_NAME}",
    "/properties/run/properties/env/pattern": "must be a list of variable names, "
    'or "*" for every variable',
    "/properties/run/properties/env/items/pattern": "must be an environment variable name "
    "(letters, digits and '_', not starting with a digit), with an optional trailing '*' "
    "for a prefix",
    "/properties/text/properties/jc/pattern": "must be a jc parser name: a lower-case letter, "
    "then lower-case letters, digits or '_' (the parser's module name: \"os_release\" for "
    "`jc --os-release`)",
    "/properties/text/properties/types/propertyNames": "is not a group name: a letter, "
    "'_' or '$', then letters, digits, '_' or '$' (at most 64 in all)",
    "/properties/lint/properties/waive/items/properties/pointer/pattern": "must be a JSON "
    "Pointer: '' for the whole document, or starting with '/' ('~1' stands for a '/' "
    "inside a name, '~0' for a '~')",
    "/$defs/rule/allOf/5/then/properties/claims/propertyNames": "is not a claim name "
    "(1 to 256 characters)",
    "/properties/mcp/properties/tool/pattern": "must be the tool's name on the MCP server: 1 "
    "to 128 visible ASCII characters, no space",
    "/properties/mcp/properties/context/propertyNames": "is not a context key: a letter or "
    "'_', then letters, digits or '_' (at most 64 in all)",
}


def problems(
    errors: Iterable[ValidationError], document: Any, text: str, schema: Any
) -> list[Problem]:
    """Every error as a `Problem`: in words, placed on its line, near-miss keys named.

    `document` is the contract as TOML data, `text` its TOML source and `schema` the
    contract schema (bundled, as `Validator.schema` holds it).
    """
    places = toml_positions(text)
    found: list[tuple[str, str]] = []  # (pointer, message), in the validator's order
    suggested: dict[str, set[str]] = {}  # object pointer -> names offered for a near miss
    for error in errors:
        for pointer, message, suggestion in _explain(error, document, schema):
            if suggestion:
                suggested.setdefault(_parent(pointer), set()).add(suggestion)
            found.append((pointer, message))
    out: list[Problem] = []
    for pointer, message in found:
        missing = message.removeprefix("missing required key ").split(" ")[0].strip("'")
        if message.startswith("missing required key") and missing in suggested.get(pointer, ()):
            continue  # "unknown key 'pointr': did you mean 'pointer'?" already says it
        line, column = position_of(places, pointer)
        problem = Problem(_dotted(pointer), message, line, column)
        if problem not in out:
            out.append(problem)
    return sorted(out, key=lambda problem: (problem.line or 0, problem.column or 0))


def _explain(
    error: ValidationError, document: Any, schema: Any
) -> Iterator[tuple[str, str, str | None]]:
    """(pointer, message, the name suggested or None) for each mistake one error stands for."""
    at = error.instance_path or ""
    where = error.schema_path or ""
    subschema = lookup(schema, join(tokens(where)[:-1])) if where else MISSING
    value = lookup(document, at)
    if error.reason == "propertyNames" and isinstance(value, dict):
        yield from _bad_names(at, value, subschema, where)
    elif where in WORDS:
        yield at, WORDS[where], None
    elif error.reason in {"additionalProperties", "unevaluatedProperties"} and isinstance(
        value, dict
    ):
        yield from _unknown_keys(at, value, subschema)
    elif error.reason == "required" and isinstance(value, dict) and isinstance(subschema, dict):
        for name in subschema.get("required", []):
            if name not in value:
                near = difflib.get_close_matches(name, list(value), n=1, cutoff=0.75)
                hint = f" (is {near[0]!r} a misspelling?)" if near else ""
                yield at, f"missing required key {name!r}{hint}", None
    elif error.reason == "enum" and isinstance(value, str) and isinstance(subschema, dict):
        allowed = [item for item in subschema.get("enum", []) if isinstance(item, str)]
        choices = ", ".join(allowed)
        yield at, f"{value!r} is not one of {choices}{_did_you_mean(value, allowed)}", None
    elif error.reason == "const" and isinstance(subschema, dict) and "description" in subschema:
        # NOTE: a const the contract schema explains (`retryable` with INVALID_RESPONSE)
        yield at, f"must be {json.dumps(subschema['const'])} {subschema['description']}", None
    elif error.schema_path is None and error.reason == "schema":
        yield at, "is not allowed here, beside the other keys of this table", None
    else:
        yield at, _VALIDATOR_NAME.sub("", error.message), None


def _unknown_keys(
    at: str, value: dict[str, Any], subschema: Any
) -> Iterator[tuple[str, str, str | None]]:
    allowed = sorted(subschema.get("properties", {})) if isinstance(subschema, dict) else []
    for key in value:
        if key in allowed:
            continue
        near = difflib.get_close_matches(key, allowed, n=1, cutoff=0.75)
        if near:
            message = f"unknown key {key!r}: did you mean {near[0]!r}?"
        else:
            message = f"unknown key {key!r} (allowed here: {', '.join(allowed) or 'none'})"
        yield join([*tokens(at), key]), message, near[0] if near else None


def _bad_names(
    at: str, value: dict[str, Any], subschema: Any, where: str
) -> Iterator[tuple[str, str, str | None]]:
    """The keys a `propertyNames` schema refuses, each on its own line."""
    from toolguard.schema import compile_schema  # noqa: PLC0415 - only for this message

    names = subschema.get("propertyNames", True) if isinstance(subschema, dict) else True
    check = compile_schema(names, formats=False)
    words = WORDS.get(where, "is not an allowed name here")
    for key in value:
        if not check.is_valid(key):
            yield join([*tokens(at), key]), f"{key!r} {words}", None


def _did_you_mean(word: str, allowed: list[str]) -> str:
    near = difflib.get_close_matches(word, allowed, n=1, cutoff=0.75)
    return f": did you mean {near[0]!r}?" if near else ""


def _parent(pointer: str) -> str:
    return join(tokens(pointer)[:-1])


def _dotted(pointer: str) -> str:
    """`/rules/0/pointr` -> `rules.0.pointr` (how contract errors have always named fields)."""
    return ".".join(tokens(pointer)) if pointer else ""
