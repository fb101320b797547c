"""Differential test: item names given their own variables decide and name as `locals()` did.

`_GeneratedLines` rewrites fastjsonschema's `"...".format(**locals())` into a call naming only
the variables the name uses. The reference is the code as fastjsonschema wrote it (the rewrite
switched off): on every JSON-Schema-Test-Suite schema, and on generated schemas whose member
names and `const` strings hold quotes, braces and the text `.format(**locals())`, every
verdict, message and path must be the same.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from tests.schema.suite import suite_root
from toolguard.errors import SchemaError, ValidationError
from toolguard.schema import compile_schema, generator_base

_REMOTES = {"http://localhost:1234/": str(suite_root() / "remotes")}
# Text that once fooled the rewrite, and the characters that delimit and escape Python literals.
_PIECES = ("'", '"', "\\", "{", "}", "{data}", "{data_x}", ".format(**locals())", "a'", "[0]")
_TEXT = st.lists(st.sampled_from(_PIECES), max_size=4).map("".join)


class _Unchanged:
    """Stands in for the rewrite's pattern: every line stays as fastjsonschema wrote it."""

    @staticmethod
    def sub(_replace: object, line: str) -> str:
        return line


@pytest.fixture
def as_written(monkeypatch: pytest.MonkeyPatch) -> Any:
    """Compile in memory, and give a function compiling with the rewrite switched off."""
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")

    def compile_as_written(schema: Any, **options: Any) -> Any:
        with monkeypatch.context() as patch:
            patch.setattr(generator_base, "_LITERAL_FORMATTED", _Unchanged())
            return compile_schema(schema, **options)

    return compile_as_written


def _answer(validator: Any, instance: Any) -> list[tuple[Any, ...]]:
    """Every error's fields, in order ([] when valid)."""
    return [
        (error.reason, error.message, error.schema_path, error.instance_path, error.rule)
        for error in validator.errors(instance)
    ]


def _both(compile_as_written: Any, schema: Any, **options: Any) -> tuple[Any, Any] | None:
    try:
        rewritten = compile_schema(schema, **options)
    except SchemaError:
        with pytest.raises(SchemaError):
            compile_as_written(schema, **options)
        return None
    return compile_as_written(schema, **options), rewritten


def _suite_groups() -> list[tuple[str, Any, list[Any], bool]]:
    groups = []
    for path in sorted((suite_root() / "tests" / "draft2020-12").rglob("*.json")):
        formats = "format" in path.parts
        for group in json.loads(path.read_text(encoding="utf-8")):
            data = [case["data"] for case in group["tests"]]
            groups.append((f"{path.stem}::{group['description']}", group["schema"], data, formats))
    return groups


def test_every_suite_schema_names_and_decides_as_before(as_written: Any) -> None:
    """Each suite case gets the same errors, stopping at the first and collecting them all."""
    compared = 0
    for _name, schema, data, formats in _suite_groups():
        for collect in (False, True):
            options = {"refs": _REMOTES, "formats": formats, "collect": collect}
            pair = _both(as_written, schema, **options)
            if pair is None:
                continue
            old, new = pair
            for instance in data:
                assert _answer(new, instance) == _answer(old, instance), (_name, instance)
                compared += 1
    assert compared > 4000  # the suite is there: 2,168 cases, each in both modes


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@example(names=["format(**locals())"], const=["a'", ".format(**locals())'"], other=["a'"])
@given(
    names=st.lists(_TEXT, min_size=1, max_size=3, unique=True),
    const=st.lists(_TEXT, min_size=1, max_size=3),
    other=st.lists(_TEXT, min_size=1, max_size=3),
)
def test_quotes_and_braces_in_a_schema_name_and_decide_as_before(
    as_written: Any, names: list[str], const: list[str], other: list[str]
) -> None:
    """Member names and `const` strings made of quotes, braces and the call's own text."""
    item = {"const": const}
    schema = {
        "type": "object",
        "properties": {name: {"type": "array", "items": item} for name in names},
        "additionalProperties": {"type": "array", "items": {"enum": [const, 1]}},
    }
    pair = _both(as_written, schema)
    if pair is None:
        return
    old, new = pair
    for values in (const, other):
        for instance in ({names[0]: [values]}, {"x": [values]}, {names[-1]: [const, values]}):
            assert new.is_valid(instance) == old.is_valid(instance)
            assert _answer(new, instance) == _answer(old, instance)
            if new.is_valid(instance):
                continue
            with pytest.raises(ValidationError):
                new.validate(instance)


def test_the_rewrite_leaves_a_literal_after_a_quote_in_a_repr() -> None:
    """The pattern matches literals whole, from the left: a quote inside one opens nothing."""
    line = """if x == "a'" and y == 'b".format(**locals())':"""
    assert generator_base._LITERAL_FORMATTED.sub(generator_base._own_variables, line) == line
    assert isinstance(generator_base._LITERAL_FORMATTED, re.Pattern)
