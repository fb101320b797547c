"""Differential test: toolguard's 2020-12 engine against two references on generated schemas.

Hypothesis builds schemas from a grammar of the keywords toolguard enforces and JSON values
whose member names hit the schemas' property names. One grammar, two references:
python-jsonschema and jsonschema-rs. toolguard must agree with each of them both ways (a false
accept is the outcome that matters; a false reject is a bug too). Each reference is held to
the spec where its library is not: python-jsonschema gets ECMA-262 patterns and exact
`multipleOf`; jsonschema-rs needs no adjustment on the values the grammar generates, which the
pinning tests below check, so a new version that changes that fails there first. A schema
toolguard refuses (`SchemaError`) is skipped and counted.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from fractions import Fraction
from typing import Any

# NOTE: python-jsonschema ships no type information and types-jsonschema is not a dependency.
import jsonschema  # type: ignore[import-untyped]
import jsonschema.validators  # type: ignore[import-untyped]
import jsonschema_rs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolguard.errors import SchemaError
from toolguard.schema import compile_schema

# Member names of generated objects and schemas alike, so `properties`, `required`... bite.
NAMES = ("a", "b", "c")
# ASCII-only ECMA-262 patterns, each with a Python `re` pattern of the same meaning. JSON Schema
# patterns are ECMA-262 (Validation 2020-12 section 6.3.3, Core section 6.4); python-jsonschema
# runs them with `re`, where `$` also matches before a trailing "\n", `.` matches "\r" and
# `\d` matches any Unicode digit. The reference gets the Python spelling, so it judges by the
# spec's dialect; the instance alphabet below holds exactly the characters that tell them apart.
PATTERNS = {
    "^a": "^a",
    "b$": "b\\Z",
    "^[ab]*$": "^[ab]*\\Z",
    "a+": "a+",
    "^.{2}$": "^[^\\n\\r\\u2028\\u2029]{2}\\Z",
    "[0-9]": "[0-9]",
    "^$": "^\\Z",
    "^(a|bc)$": "^(a|bc)\\Z",
    "\\d": "[0-9]",
    "^[^c]+$": "^[^c]+\\Z",
}
DEFS = ("d0", "d1")
TYPES = ("null", "boolean", "object", "array", "number", "integer", "string")
# Small numbers on both sides of the generated bounds; 1.0 and 2.0 meet the integers 1 and 2.
# NOTE: magnitudes stay below 2**53 and quotients below 10**28, where toolguard's `multipleOf`
# is exact; beyond that it is not (see the multipleOf regression tests at the end).
INTEGERS = range(-3, 4)
FLOATS = (-1.5, -0.5, 0.0, 0.3, 0.5, 1.0, 1.5, 2.0, 2.5, 1e15)
NUMBERS = st.one_of(st.sampled_from(INTEGERS), st.sampled_from(FLOATS))
MULTIPLES = (1, 2, 3, 0.5, 1.5, 0.25, 0.1)
STRINGS = st.text(alphabet="abc1\n\r\u0661\u2028\U0001f600", max_size=3)
COUNTS = st.integers(0, 3)
MAX_DEPTH = 3
INSTANCES_PER_SCHEMA = 12
MAX_EXAMPLES = 500
MAX_REFUSAL_RATE = 0.30


def scalars() -> st.SearchStrategy[Any]:
    """null, booleans, small numbers and short strings over a small alphabet."""
    return st.one_of(st.none(), st.booleans(), NUMBERS, STRINGS)


def values(depth: int = 2) -> st.SearchStrategy[Any]:
    """JSON values nested at most `depth` containers deep; object keys come from `NAMES`."""
    if depth <= 0:
        return scalars()
    children = values(depth - 1)
    return st.one_of(
        scalars(),
        st.lists(children, max_size=4),
        st.dictionaries(st.sampled_from(NAMES), children, max_size=3),
    )


def name_lists() -> st.SearchStrategy[list[str]]:
    return st.lists(st.sampled_from(NAMES), max_size=3, unique=True)


def name_maps(schema: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[str, Any]]:
    return st.dictionaries(st.sampled_from(NAMES), schema, max_size=2)


def schemas(depth: int, *, refs: bool) -> st.SearchStrategy[Any]:
    """A subschema of at most `depth` levels; `refs` lets it point into the root's `$defs`."""
    return st.deferred(lambda: _schemas(depth, refs=refs))


def _schemas(depth: int, *, refs: bool) -> st.SearchStrategy[Any]:
    options: list[st.SearchStrategy[Any]] = [
        st.booleans(),
        _keyword_schemas(_LEAF_KEYWORDS, depth, refs=refs),
    ]
    if depth > 0:
        options.append(_keyword_schemas(tuple(_KEYWORDS), depth, refs=refs))
        options.append(_keyword_schemas(tuple(_APPLICATORS), depth, refs=refs))
    if refs:
        options.append(st.builds(lambda name: {"$ref": f"#/$defs/{name}"}, st.sampled_from(DEFS)))
    return st.one_of(options)


def _keyword_schemas(names: tuple[str, ...], depth: int, *, refs: bool) -> st.SearchStrategy[Any]:
    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        chosen = draw(st.lists(st.sampled_from(names), min_size=1, max_size=3, unique=True))
        return {name: draw(_KEYWORDS[name](depth - 1, refs)) for name in chosen}

    return build()


def _sub(depth: int, refs: bool) -> st.SearchStrategy[Any]:
    return schemas(max(depth, 0), refs=refs)


def _subs(depth: int, refs: bool) -> st.SearchStrategy[list[Any]]:
    return st.lists(_sub(depth, refs), min_size=1, max_size=3)


_KEYWORDS: dict[str, Any] = {
    "type": lambda d, r: st.one_of(
        st.sampled_from(TYPES),
        st.lists(st.sampled_from(TYPES), min_size=1, max_size=3, unique=True),
    ),
    "enum": lambda d, r: st.lists(values(1), min_size=1, max_size=3),
    "const": lambda d, r: values(1),
    "minimum": lambda d, r: NUMBERS,
    "maximum": lambda d, r: NUMBERS,
    "exclusiveMinimum": lambda d, r: NUMBERS,
    "exclusiveMaximum": lambda d, r: NUMBERS,
    "multipleOf": lambda d, r: st.sampled_from(MULTIPLES),
    "minLength": lambda d, r: COUNTS,
    "maxLength": lambda d, r: COUNTS,
    "pattern": lambda d, r: st.sampled_from(sorted(PATTERNS)),
    "minItems": lambda d, r: COUNTS,
    "maxItems": lambda d, r: COUNTS,
    "uniqueItems": lambda d, r: st.booleans(),
    "minContains": lambda d, r: COUNTS,
    "maxContains": lambda d, r: COUNTS,
    "required": lambda d, r: name_lists(),
    "dependentRequired": lambda d, r: st.dictionaries(
        st.sampled_from(NAMES), name_lists(), max_size=2
    ),
    "minProperties": lambda d, r: COUNTS,
    "maxProperties": lambda d, r: COUNTS,
    # Applicators: their values are subschemas, one level shallower.
    "items": _sub,
    "prefixItems": _subs,
    "contains": _sub,
    "properties": lambda d, r: name_maps(_sub(d, r)),
    "patternProperties": lambda d, r: st.dictionaries(
        st.sampled_from(sorted(PATTERNS)), _sub(d, r), max_size=2
    ),
    "additionalProperties": _sub,
    # NOTE: never empty here: `{}` crashes the compiler, see the regression test below.
    "dependentSchemas": lambda d, r: st.dictionaries(
        st.sampled_from(NAMES), _sub(d, r), min_size=1, max_size=2
    ),
    "propertyNames": _sub,
    "allOf": _subs,
    "anyOf": _subs,
    "oneOf": _subs,
    "not": _sub,
    "if": _sub,
    "then": _sub,
    "else": _sub,
    "unevaluatedProperties": _sub,
    "unevaluatedItems": _sub,
}
_APPLICATORS = (
    "items", "prefixItems", "contains", "properties", "patternProperties", "additionalProperties",
    "dependentSchemas", "propertyNames", "allOf", "anyOf", "oneOf", "not", "if", "then", "else",
    "unevaluatedProperties", "unevaluatedItems",
)  # fmt: skip
_LEAF_KEYWORDS = tuple(name for name in _KEYWORDS if name not in _APPLICATORS)


@st.composite
def root_schemas(draw: st.DrawFn) -> Any:
    """A root schema, sometimes with `$defs` (themselves ref-free) that its subschemas `$ref`."""
    if not draw(st.booleans()):
        return draw(_keyword_schemas(tuple(_KEYWORDS), MAX_DEPTH, refs=False))
    body = draw(_keyword_schemas(tuple(_KEYWORDS), MAX_DEPTH, refs=True))
    body["$defs"] = {name: draw(schemas(1, refs=False)) for name in DEFS}
    return body


def _ecma(schema: Any) -> Any:
    """`schema` with every `pattern` and `patternProperties` key in its Python spelling."""
    if isinstance(schema, list):
        return [_ecma(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out = {key: _ecma(value) for key, value in schema.items()}
    if isinstance(schema.get("pattern"), str):
        out["pattern"] = PATTERNS[schema["pattern"]]
    if isinstance(schema.get("patternProperties"), dict):
        out["patternProperties"] = {
            PATTERNS[key]: _ecma(value) for key, value in schema["patternProperties"].items()
        }
    return out


def _exact_multiple_of(
    validator: Any, multiple_of: Any, instance: Any, schema: Any
) -> Iterator[jsonschema.ValidationError]:
    """`multipleOf` on the decimal values the JSON text denotes, in exact arithmetic.

    Validation 2020-12 section 6.2.1: valid if "division by this keyword's value results in an
    integer". python-jsonschema divides binary floats, so it rejects 0.3 for `multipleOf: 0.1`;
    toolguard (like the JSON-Schema-Test-Suite's "by small number" cases) accepts it. `repr`
    is the shortest decimal that reads back as the same float: the text `json.dumps` writes.
    """
    if validator.is_type(instance, "number") and (
        Fraction(repr(instance)) % Fraction(repr(multiple_of))
    ):
        yield jsonschema.ValidationError(f"{instance!r} is not a multiple of {multiple_of!r}")


Reference = jsonschema.validators.extend(
    jsonschema.Draft202012Validator, {"multipleOf": _exact_multiple_of}
)


def reference_accepts(schema: Any, instance: Any) -> bool:
    """python-jsonschema's verdict, with ECMA-262 patterns and exact `multipleOf`."""
    return bool(Reference(_ecma(schema)).is_valid(instance))


def rs_reference(schema: Any) -> jsonschema_rs.Validator:
    """jsonschema-rs's 2020-12 validator for `schema`: formats off, no retrieval of any kind.

    Its input needs no rewriting. It translates ECMA-262 patterns itself (`$` is the end, `\\d`
    is ASCII, `.` excludes line terminators and matches one code point, as with the `u` flag)
    and decides `multipleOf` exactly on every number the grammar generates; the two pinning
    tests below check both. NOTE: for very large instances it divides the binary value, not
    the decimal one the JSON text denotes, so it accepts 1e300 for `multipleOf` 1.5 or 3
    (Validation 2020-12 section 6.2.1); the grammar's numbers stay far from that.
    """
    return jsonschema_rs.Draft202012Validator(schema, validate_formats=False, offline=True)


def rs_reference_accepts(schema: Any, instance: Any) -> bool:
    """jsonschema-rs's verdict, taken as is."""
    return rs_reference(schema).is_valid(instance)


def _compare(schema: Any, instances: list[Any], stats: Counter[str]) -> None:
    jsonschema.Draft202012Validator.check_schema(schema)  # the grammar makes valid schemas only
    stats["schemas"] += 1
    try:
        validator = compile_schema(schema, formats=False)
    except SchemaError:
        stats["refused"] += 1
        return
    rs = rs_reference(schema)
    for instance in instances:
        ours = validator.is_valid(instance)
        stats["instances"] += 1
        verdicts = {
            "python-jsonschema": reference_accepts(schema, instance),
            "jsonschema-rs": rs.is_valid(instance),
        }
        for reference, theirs in verdicts.items():
            # NOTE: no known differences with either reference: the policies that could look
            # like one are the spec's own and both references share them. 1.0 is an integer
            # and equals 1 in enum/const/uniqueItems (Validation 2020-12 section 6.1.1; Core
            # section 4.2.2: numbers with the same mathematical value are equal); true is
            # never 1 nor a number (Core 4.2.1); string lengths count code points (Validation
            # 6.3.1), as do patterns read with ECMA-262's `u` flag.
            assert not (ours and not theirs), (
                f"false accept vs {reference}: {schema!r} accepted {instance!r}"
            )
            assert not (theirs and not ours), (
                f"false reject vs {reference}: {schema!r} rejected {instance!r}"
            )


def test_toolguard_agrees_with_both_references_on_generated_schemas() -> None:
    """toolguard agrees with python-jsonschema and jsonschema-rs wherever it compiles a schema.

    Both references judge every instance; neither skips any. Few schemas are refused.
    """
    stats: Counter[str] = Counter()

    @settings(
        max_examples=MAX_EXAMPLES,
        deadline=None,
        # NOTE: nested schema grammars make large, slow draws on purpose.
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )
    @given(
        schema=root_schemas(),
        instances=st.lists(values(), min_size=1, max_size=INSTANCES_PER_SCHEMA),
    )
    def check(schema: Any, instances: list[Any]) -> None:
        _compare(schema, instances, stats)

    check()
    assert stats["schemas"] >= MAX_EXAMPLES // 2, stats
    assert stats["refused"] / stats["schemas"] < MAX_REFUSAL_RATE, stats


@pytest.mark.parametrize(
    ("schema", "instance", "valid"),
    [
        pytest.param({"pattern": "b$"}, "b\n", False, id="$ is the end, not before a newline"),
        pytest.param({"pattern": "^$"}, "\n", False, id="^$ is not a blank line"),
        pytest.param({"pattern": "^a"}, "\na", False, id="^ is the start, not after a newline"),
        pytest.param({"pattern": "\\d"}, "\u0661", False, id="\\d is ASCII only"),
        pytest.param({"pattern": "^.{2}$"}, "a\r", False, id=". excludes CR"),
        pytest.param({"pattern": "^.{2}$"}, "a\n", False, id=". excludes LF"),
        pytest.param({"pattern": "^.{2}$"}, "a\u2028", False, id=". excludes LS"),
        pytest.param({"pattern": "^.{2}$"}, "a\U0001f600", True, id=". is one code point"),
        pytest.param({"pattern": "^[^c]+$"}, "\U0001f600", True, id="so is a negated class"),
        pytest.param({"not": {"pattern": "\\d"}}, "\u0661", True, id="under not"),
        pytest.param(
            {"patternProperties": {"\\d": False}}, {"\u0661": 1}, True, id="patternProperties"
        ),
    ],
)
def test_the_references_read_patterns_as_ecma_262(schema: Any, instance: Any, valid: bool) -> None:
    """Both references and toolguard agree where Python's `re` alone would not.

    Pins jsonschema-rs's own ECMA-262 translation on the characters the grammar's instance
    alphabet holds (Validation 2020-12 section 6.3.3, Core section 6.4); its input is never
    rewritten, so this is what makes it a faithful reference for the generated patterns.
    """
    assert reference_accepts(schema, instance) is valid
    assert rs_reference_accepts(schema, instance) is valid
    assert compile_schema(schema, formats=False).is_valid(instance) is valid


def test_the_jsonschema_rs_reference_never_retrieves() -> None:
    """`offline=True`: a remote `$ref` fails at once instead of going to the network."""
    with pytest.raises(jsonschema_rs.ValidationError, match="Retrieval is disabled"):
        rs_reference({"$ref": "https://example.invalid/schema.json"})


@pytest.mark.parametrize("multiple_of", MULTIPLES)
def test_every_generated_multiple_of_is_decided_exactly(multiple_of: Any) -> None:
    """All three engines decide `multipleOf` on the decimal values, on the whole number domain.

    Validation 2020-12 section 6.2.1. The grammar draws `multipleOf` from `MULTIPLES` and
    instances from `INTEGERS` and `FLOATS`, so this covers every pair the property test meets;
    in particular jsonschema-rs needs no adjustment there (it accepts 0.3 for 0.1 and rejects
    1e15 for 1.5 and 3, as exact arithmetic does).
    """
    schema = {"multipleOf": multiple_of}
    validator, rs = compile_schema(schema, formats=False), rs_reference(schema)
    for number in (*INTEGERS, *FLOATS):
        exact = Fraction(repr(number)) % Fraction(repr(multiple_of)) == 0
        assert validator.is_valid(number) is exact, number
        assert Reference(schema).is_valid(number) is exact, number
        assert rs.is_valid(number) is exact, number


@pytest.mark.parametrize(
    "schema",
    [{"dependentSchemas": {}}, {"properties": {"a": {"dependentSchemas": {}}}}],
)
def test_empty_dependent_schemas_compiles_to_a_validator_that_accepts_everything(
    schema: Any,
) -> None:
    """`dependentSchemas: {}` is valid 2020-12 and constrains nothing (found by the test above).

    Today the generator emits an `if` with an empty body, and compiling the source raises
    `IndentationError` instead of returning a validator or a `SchemaError`.
    """
    validator = compile_schema(schema, formats=False)
    assert validator.is_valid({"a": 1})
    assert validator.is_valid([])


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        pytest.param({"multipleOf": 0.1}, 0.3, id="0.3 / 0.1"),
        pytest.param({"multipleOf": 0.01}, 19.01, id="19.01 / 0.01"),
        pytest.param({"multipleOf": 0.0001}, 0.0075, id="0.0075 / 0.0001"),
    ],
)
def test_multiple_of_a_decimal_is_decided_on_decimal_values(schema: Any, instance: Any) -> None:
    """A deliberate difference from python-jsonschema, whose binary division rejects these."""
    assert compile_schema(schema, formats=False).is_valid(instance)
    assert reference_accepts(schema, instance)
    assert rs_reference_accepts(schema, instance)


@pytest.mark.parametrize(
    ("schema", "instance"),
    [
        pytest.param({"multipleOf": 3}, 1e17, id="1e17 / 3"),
        pytest.param({"multipleOf": 3}, 2.0**60, id="2**60 / 3"),
        pytest.param({"multipleOf": 7}, 1e20, id="1e20 / 7"),
    ],
)
def test_multiple_of_an_integer_rejects_a_large_float_that_is_not_a_multiple(
    schema: Any, instance: Any
) -> None:
    """Found by the differential test: a false accept, python-jsonschema rejects these.

    For a float instance and an integer `multipleOf`, the generated code tests whether the
    float quotient `instance / multipleOf` is integral; above 2**53 every float is, so any
    large float passes. 10**17 mod 3 == 1, 2**60 mod 3 == 1, 10**20 mod 7 == 2.
    """
    assert not Reference(schema).is_valid(instance)
    assert not rs_reference_accepts(schema, instance)
    assert not compile_schema(schema, formats=False).is_valid(instance)


@pytest.mark.parametrize(
    ("schema", "instance", "rs_faithful"),
    [
        pytest.param({"multipleOf": 0.7}, 1e28, True, id="1e28 / 0.7"),
        # NOTE: jsonschema-rs accepts this one: it divides the binary value of 1e300, which is
        # a multiple of 3 / 2, not 10**300 (Validation 2020-12 section 6.2.1).
        pytest.param({"multipleOf": 1.5}, 1e300, False, id="1e300 / 1.5"),
    ],
)
def test_multiple_of_a_decimal_is_exact_for_large_instances(
    schema: Any, instance: Any, rs_faithful: bool
) -> None:
    """An accepted invalid instance; python-jsonschema accepts these too (binary division).

    The generated code divides `Decimal(repr(instance)) / Decimal(repr(multipleOf))` in the
    default 28-digit context, so a quotient of 10**28 or more is rounded to an integer:
    10**29 / 7 and 2 * 10**300 / 3 are not integers.
    """
    assert not Reference(schema).is_valid(instance)
    assert rs_reference_accepts(schema, instance) is not rs_faithful
    assert not compile_schema(schema, formats=False).is_valid(instance)
