"""A refused contract: every problem at once, in words, on its TOML line, near misses named."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import REPO, RunToolguard

from toolguard import ContractError, load_contract
from toolguard.contract.problems import WORDS
from toolguard.pointer import escape
from toolguard.shipped import shipped_schema

REVIEW = REPO / "examples" / "review_status"
# The two mistakes: a misspelt rule key, and a projection pointer without its '/'.
TWO_MISTAKES = """\
tool = "review_status"
version = "1.0.0"
schema = "response.schema.json"

[[rules]]
name = "change_matches_request"
kind = "equals_context"
pointr = "/change_id"
context = "change_id"

[projection]
change_id = "/change_id"
decision = "decision"
"""


@pytest.fixture
def two_mistakes(tmp_path: Path) -> Path:
    (tmp_path / "response.schema.json").write_bytes((REVIEW / "response.schema.json").read_bytes())
    contract = tmp_path / "contract.toml"
    contract.write_text(TWO_MISTAKES)
    return contract


def test_every_problem_is_reported_with_its_line_and_column(two_mistakes: Path) -> None:
    """Both mistakes at once, in line order, each placed where it is written."""
    with pytest.raises(ContractError) as info:
        load_contract(two_mistakes)
    found = [(p.field, p.line, p.column) for p in info.value.problems]
    assert found == [("rules.0.pointr", 8, 1), ("projection.decision", 13, 1)]
    assert info.value.lines() == [
        f"{two_mistakes}:8:1: rules.0.pointr: unknown key 'pointr': did you mean 'pointer'?",
        f"{two_mistakes}:13:1: projection.decision: must be a JSON Pointer starting with '/', "
        "such as '/ticket/id' ('~1' stands for a '/' inside a name, '~0' for a '~')",
    ]


def test_a_misspelt_key_does_not_also_report_the_key_it_stands_for(two_mistakes: Path) -> None:
    """`pointr` is the missing `pointer`: one problem, not a second 'missing required key'."""
    with pytest.raises(ContractError) as info:
        load_contract(two_mistakes)
    assert not any("missing required" in p.message for p in info.value.problems)


def test_a_key_with_no_near_miss_lists_what_is_allowed(tmp_path: Path) -> None:
    """An unknown key unlike any allowed one names every key allowed in its table."""
    (tmp_path / "s.json").write_text('{"type": "object"}')
    contract = tmp_path / "contract.toml"
    contract.write_text('tool = "t"\nversion = "1"\nschema = "s.json"\nzzz = 1\n[projection]\n')
    with pytest.raises(ContractError) as info:
        load_contract(contract)
    unknown = next(p for p in info.value.problems if p.field == "zzz")
    assert unknown.line == 4
    assert "allowed here: allow_hidden_characters, audit, description" in unknown.message


def test_a_misspelt_rule_kind_gets_a_did_you_mean(tmp_path: Path) -> None:
    """`equals_contxt` is not a kind: the message offers `equals_context`."""
    (tmp_path / "s.json").write_text('{"type": "object"}')
    contract = tmp_path / "contract.toml"
    contract.write_text(
        'tool = "t"\nversion = "1"\nschema = "s.json"\n[[rules]]\nname = "r"\n'
        'kind = "equals_contxt"\npointer = "/a"\n[projection]\na = "/a"\n'
    )
    with pytest.raises(ContractError) as info:
        load_contract(contract)
    assert info.value.field == "rules.0.kind"
    assert info.value.message.endswith("did you mean 'equals_context'?")


# Mistakes the contract schema cannot see: they need the payload schema, or two entries.
AFTER_THE_SCHEMA = """\
tool = "review_status"
version = "1.0.0"
schema = "response.schema.json"

[[rules]]
name = "matches"
kind = "equals_context"
pointer = "/change"
context = "change_id"

[[rules]]
name = "matches"
kind = "equals_context"
pointer = "/decision"
context = "decision"

[projection]
change_id = "/change_id"
decision = "/decisoin"

[allow_hidden_characters]
reviewer = "a reason long enough"

[[run.exit_status]]
status = 4
code = "NOT_FOUND"

[[run.exit_status]]
status = 4
code = "UPSTREAM_UNAVAILABLE"
"""


def test_problems_found_after_the_schema_are_all_reported_on_their_lines(
    tmp_path: Path, run_toolguard: RunToolguard
) -> None:
    """Undeclared pointers, a repeated rule name or exit status, an unprojected allowance: all,
    each placed."""
    (tmp_path / "response.schema.json").write_bytes((REVIEW / "response.schema.json").read_bytes())
    contract = tmp_path / "contract.toml"
    contract.write_text(AFTER_THE_SCHEMA)
    with pytest.raises(ContractError) as info:
        load_contract(contract)
    found = [(p.field, p.line, p.column) for p in info.value.problems]
    assert found == [
        ("rules.0.pointer", 8, 1),
        ("rules.1.name", 12, 1),
        ("projection.decision", 19, 1),
        ("allow_hidden_characters.reviewer", 22, 1),
        ("run.exit_status.1.status", 29, 1),
    ]
    run = run_toolguard("check", contract, stdin=b"{}")
    assert run.status == 3
    assert [line.split(": ")[2] for line in run.stderr.decode().splitlines()] == [
        f"{contract}:{line}:1" for line in (8, 12, 19, 22, 29)
    ]


def test_a_rule_option_its_factory_refuses_is_placed_on_its_rule(tmp_path: Path) -> None:
    """A problem only the rule's factory finds still names the line of its `[[rules]]`."""
    (tmp_path / "response.schema.json").write_bytes((REVIEW / "response.schema.json").read_bytes())
    contract = tmp_path / "contract.toml"
    contract.write_text(
        TWO_MISTAKES.replace("pointr", "pointer")
        .replace('"decision"', '"/decision"')
        .replace('context = "change_id"', "pattern = '(a)\\1'")
        .replace('kind = "equals_context"', 'kind = "matches_context_pattern"')
    )
    with pytest.raises(ContractError) as info:
        load_contract(contract)
    assert (info.value.field, info.value.problems[0].line) == ("rules.0", 5)


def test_a_json_schema_given_as_the_contract_says_so() -> None:
    """The schema file instead of the contract: 'looks like a JSON Schema', not a TOML error."""
    with pytest.raises(ContractError) as info:
        load_contract(REVIEW / "response.schema.json")
    assert "looks like a JSON Schema, not a contract" in info.value.message
    assert "TOML" not in info.value.message


def _patterns(node: Any, where: str = "") -> Iterator[str]:
    """The location of every `pattern` and `propertyNames` in a schema."""
    if isinstance(node, dict):
        for key, value in node.items():
            at = f"{where}/{escape(key)}"
            if key == "propertyNames" or (key == "pattern" and isinstance(value, str)):
                yield at
            else:
                yield from _patterns(value, at)
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _patterns(value, f"{where}/{index}")


def test_every_pattern_of_the_contract_schema_has_its_words() -> None:
    """No regular expression of contract.schema.json reaches an author: each has words."""
    schema = json.loads(shipped_schema("contract.schema.json").read_text(encoding="utf-8"))
    located = set(_patterns(schema))
    assert located - WORDS.keys() == set()
    assert WORDS.keys() - located == set(), "words for a pattern the schema no longer has"


def test_the_cli_prints_each_problem_on_its_own_line(
    run_toolguard: RunToolguard, two_mistakes: Path
) -> None:
    """Text: one `toolguard: error:` line per problem; JSON: one record per problem; exit 3."""
    text = run_toolguard("check", two_mistakes, stdin=b"{}")
    assert text.status == 3
    assert text.stdout == b""
    lines = text.stderr.decode().splitlines()
    assert [line.split(": ")[2] for line in lines] == [
        f"{two_mistakes}:8:1",
        f"{two_mistakes}:13:1",
    ]
    as_json = run_toolguard("check", two_mistakes, "--diagnostics", "json", stdin=b"{}")
    records = [json.loads(line) for line in as_json.stderr.splitlines()]
    assert [record["exit_status"] for record in records] == [3, 3]
    assert "did you mean 'pointer'?" in records[0]["message"]


def test_lint_prints_each_problem_on_its_own_line(
    run_toolguard: RunToolguard, two_mistakes: Path
) -> None:
    """`toolguard lint` on a refused contract shows the same lines and exits 3."""
    run = run_toolguard("lint", two_mistakes)
    assert run.status == 3
    assert len(run.stderr.decode().splitlines()) == 2
