"""The `_json` codec reads and writes exactly what the `json` package does, without importing it."""

from __future__ import annotations

import ast
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from first_import import by_the_scanner, watching
from hypothesis import given, settings
from hypothesis import strategies as st
from strategies import HOSTILE_FRAGMENTS, json_values, mutated_json_texts, same_json

from toolguard import json_codec

REPO = Path(__file__).resolve().parent.parent
SUITE = REPO / "tests" / "conformance" / "jsontestsuite" / "test_parsing"


def pairs(items: list[tuple[str, Any]]) -> list[tuple[str, Any]]:
    return items


def tagged(value: dict[str, Any]) -> list[Any]:
    return ["object", sorted(value.items())]


def reference(text: str, **hooks: Any) -> tuple[str, Any]:
    try:
        return "value", json.JSONDecoder(**hooks).decode(text)
    except ValueError:
        return "error", None
    except RecursionError:
        return "too deep", None


def ours(text: str, **hooks: Any) -> tuple[str, Any]:
    try:
        return "value", json_codec.Decoder(**hooks).decode(text)
    except ValueError:
        return "error", None
    except RecursionError:
        return "too deep", None


def same(left: tuple[str, Any], right: tuple[str, Any]) -> bool:
    """The same outcome, and the same value (NaN included: compared as json writes it)."""
    if left[0] != right[0]:
        return False
    return left[0] != "value" or (
        same_json(left[1], right[1]) or json.dumps(left[1]) == json.dumps(right[1])
    )


@settings(max_examples=400, deadline=None)
@given(mutated_json_texts())
def test_decode_agrees_with_json_on_mangled_texts(raw: bytes) -> None:
    """Valid or not, a text gets json's value or json's refusal (a ValueError)."""
    text = raw.decode("utf-8", "replace")
    assert same(ours(text), reference(text))
    hooks = {"object_pairs_hook": pairs, "parse_float": str, "parse_int": str}
    assert same(ours(text, **hooks), reference(text, **hooks))
    assert same(ours(text, object_hook=tagged), reference(text, object_hook=tagged))


@given(st.sampled_from(["", " ", "1 2", "[] x", " {} \n", "\t0\r\n", "nul", '"a', "[1,]"]))
def test_white_space_and_extra_data_as_json_reads_them(text: str) -> None:
    """Only JSON's four white-space characters around one value; anything else is refused."""
    assert same(ours(text), reference(text))


@pytest.mark.parametrize("fragment", HOSTILE_FRAGMENTS)
def test_hostile_fragments_as_json_reads_them(fragment: bytes) -> None:
    text = fragment.decode("utf-8", "replace")
    assert same(ours(text), reference(text))
    assert same(ours(f"[{text}]"), reference(f"[{text}]"))


def test_the_json_test_suite_as_json_reads_it() -> None:
    """Every file of JSONTestSuite's parsing tests gets json's answer (hooks as the parser's)."""
    files = sorted(SUITE.glob("*.json"))
    assert len(files) > 300
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(5000)  # comparing the 500-deep document the suite accepts
    try:
        for file in files:
            text = file.read_bytes().decode("utf-8", "replace")
            left, right = (
                ours(text, object_pairs_hook=pairs),
                reference(text, object_pairs_hook=pairs),
            )
            assert same(left, right), file.name
    finally:
        sys.setrecursionlimit(limit)


def test_constants_and_their_hook() -> None:
    """NaN and the infinities are json's floats by default, the hook's answer when given."""
    assert math.isnan(json_codec.loads("NaN"))
    assert json_codec.loads("[-Infinity]") == [-math.inf]
    assert json_codec.Decoder(parse_constant=lambda name: name).decode("Infinity") == "Infinity"


@settings(max_examples=400, deadline=None)
@given(json_values(max_depth=4))
def test_encode_writes_what_json_writes(value: Any) -> None:
    """Compact ASCII JSON text, byte for byte json's, for every value."""
    assert json_codec.encoder()(value) == json.dumps(value, separators=(",", ":"))
    assert json_codec.dumps(value) == json.dumps(value, separators=(",", ":"))


@pytest.mark.parametrize("value", [{1, 2}, [object()], {"a": b"bytes"}, {(1, 2): 0}])
def test_encode_refuses_what_json_refuses(value: Any) -> None:
    """What is not JSON is a TypeError, as json's, and a failed call leaves nothing behind."""
    with pytest.raises(TypeError):
        json.dumps(value)
    with pytest.raises(TypeError):
        json_codec.dumps(value)
    shared = [1]
    assert json_codec.dumps([shared, shared]) == "[[1],[1]]"


def test_a_cycle_is_refused_as_json_refuses_it() -> None:
    cycle: list[Any] = []
    cycle.append(cycle)
    with pytest.raises(ValueError, match="Circular reference"):
        json_codec.dumps(cycle)


def test_importing_it_imports_neither_json_nor_re() -> None:
    """The point of the module: `json` (and `re` with it) stay out of a one-shot check."""
    probe = "import sys, toolguard.json_codec as c; c.loads('[1]'); c.dumps({'a': 1});"
    probe += "print(sorted({'json', 're', 'enum'} & set(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert done.stdout.strip() == "[]"


# Texts the accelerator refuses with a message (each a different error path of its scanner).
MALFORMED = ["[1 2]", '{"ok": 1 2}', '{"a" 1}', '"abc', "[1.]", "[1e]", "[-00]", '["a\\x"]', "[1,]"]


@pytest.mark.parametrize("text", MALFORMED)
def test_a_malformed_text_is_a_value_error_where_json_was_never_imported(text: str) -> None:
    """CPython 3.11's scanner finds its exception class only in an imported `json.decoder`;
    3.12 on imports it then. Either way a ValueError, and only that call imports `json`."""
    probe = watching("json") + (
        "import sys, toolguard.json_codec as c\n"
        "try:\n"
        f"    c.loads({text!r})\n"
        "except ValueError:\n"
        "    print('refused')\n"
        "print(('json' in sys.modules, FIRST_IMPORTERS))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=False, cwd=REPO
    )
    assert (done.returncode, done.stderr) == (0, "")
    verdict, imports = done.stdout.splitlines()
    assert verdict == "refused"
    imported, first = ast.literal_eval(imports)
    assert imported == bool(first)  # the probe saw the import, if there was one
    assert [importer for importer in first if not by_the_scanner(importer)] == []
