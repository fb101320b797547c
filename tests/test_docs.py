"""The references in docs/ document the real command: help, tables and links checked against it."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from tests.test_examples import ARTICLE_ATTACKS
from toolguard.cli.app import cli as main
from toolguard.limits import DEPTH_CEILING, INTEGER_DIGITS_CEILING, Limits
from toolguard.lint import LINT_RULES
from toolguard.schema.vocabulary import ANNOTATIONS

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
EXAMPLES = ROOT / "examples"

_FENCE = re.compile(r"^```.*?^```[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`]*`")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_SCHEME = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)


def _read(page: str) -> str:
    return (DOCS / page).read_text(encoding="utf-8")


def _section(text: str, marker: str) -> str:
    match = re.search(f"<!-- {marker} -->\n(.*?)<!-- /{marker} -->", text, re.DOTALL)
    assert match, f"no <!-- {marker} --> block"
    return match.group(1)


def _prose(text: str) -> str:
    """The page without its code blocks, where `#` lines and brackets are not Markdown."""
    return _FENCE.sub("", text)


def _anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces as hyphens, -N repeats."""
    anchors: set[str] = set()
    for heading in re.findall(r"^#{1,6} +(.+?) *#*$", _prose(path.read_text("utf-8")), re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")
        repeat = 0
        while (candidate := f"{slug}-{repeat}" if repeat else slug) in anchors:
            repeat += 1
        anchors.add(candidate)
    return anchors


def _links(path: Path) -> list[str]:
    return _LINK.findall(_CODE_SPAN.sub("", _prose(path.read_text("utf-8"))))


HELP_COMMANDS = [
    "",
    "check",
    "run",
    "serve",
    "mcp",
    "schema",
    "init",
    "validate",
    "test",
    "lint",
    "diff",
    "explain",
    "audit summary",
    "audit prune",
]


@pytest.mark.parametrize("command", HELP_COMMANDS, ids=lambda command: command or "toolguard")
def test_help_in_docs_matches_the_real_help(command: str) -> None:
    """docs/cli.md shows each command's `--help` exactly as it prints at 80 columns.

    NOTE: printed by the command itself, not by click's test runner, which lays help out 80
    wide where a terminal of 80 columns gets 78.
    """
    done = subprocess.run(
        [sys.executable, "-m", "toolguard", *command.split(), "--help"],
        capture_output=True,
        env={**os.environ, "COLUMNS": "80"},
        cwd=ROOT,
        timeout=120,
        check=True,
    )
    marker = f"{command.replace(' ', '-') or 'toolguard'}-help"
    block = _section(_read("cli.md"), marker).strip().removeprefix("```").removesuffix("```")
    assert block.strip("\n") == done.stdout.decode().rstrip("\n")


def test_the_output_of_test_examples_in_the_docs_is_the_real_one() -> None:
    """docs/testing.md quotes `toolguard test examples/`: each piece it shows is printed so."""
    done = subprocess.run(
        [sys.executable, "-m", "toolguard", "test", "examples/"],
        capture_output=True,
        cwd=ROOT,
        timeout=300,
        check=True,
    )
    printed = done.stdout.decode()
    block = _section(_read("testing.md"), "test-examples").strip().strip("`").strip("\n")
    pieces = [piece.strip("\n") for piece in block.split("...") if piece.strip()]
    assert len(pieces) == 2
    assert pieces[0] in printed
    assert printed.rstrip("\n").endswith(pieces[-1])


def _shown_commands(text: str) -> list[tuple[str, str]]:
    """Each `$ command` block of a page: the command (continuations joined) and what it shows."""
    shown = []
    for block in re.findall(r"^```\n(\$ .*?)^```$", text, re.MULTILINE | re.DOTALL):
        lines = block.splitlines()
        command = lines.pop(0).removeprefix("$ ")
        while command.endswith("\\"):
            command = command.removesuffix("\\") + lines.pop(0)
        shown.append((" ".join(command.split()), "\n".join(lines)))
    return shown


def _clockless(text: str) -> str:
    return re.sub(r"^  time: [0-9.]+ ms$", "  time: N ms", text, flags=re.MULTILINE)


def test_the_first_contract_walk_prints_what_the_page_shows(tmp_path: Path) -> None:
    """docs/first-contract.md, run as `benchmarks/first_contract.py` walks it: each command
    prints what its block shows (stdout, then stderr where the block shows it; times aside).

    NOTE: about fifteen processes; the walk is the page a newcomer reads first.
    """
    spec = importlib.util.spec_from_file_location("walk", ROOT / "benchmarks/first_contract.py")
    assert spec
    assert spec.loader
    walk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(walk)
    shown = _shown_commands(_read("first-contract.md"))
    folder = tmp_path / "walk"
    folder.mkdir()
    ran = list(walk.walk(folder, walk.environment(tmp_path)))
    assert [" ".join(command.split()) for command, _, _ in ran] == [c for c, _ in shown]
    for (command, done, _), (_, expected) in zip(ran, shown, strict=True):
        out = done.stdout.decode().rstrip("\n")
        both = _clockless((done.stdout + done.stderr).decode().rstrip("\n"))
        assert _clockless(expected) in (out, both), f"{command}\n{out}"


def test_the_floor_plan_in_the_docs_is_the_import_contract() -> None:
    """docs/architecture.md draws the layers `lint-imports` enforces, line for line."""
    contract = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["tool"]["importlinter"]
    layers = next(one["layers"] for one in contract["contracts"] if one["type"] == "layers")
    drawn = _read("architecture.md").split("Imports go one way", 1)[1].split("```")[1]
    lines = [re.sub(r"\s*\(.*\)$", "", line).strip() for line in drawn.strip().splitlines()]
    assert lines == layers


def test_every_command_has_its_help_in_the_docs() -> None:
    """No command of the CLI is missing from the help blocks the docs show."""
    listed = {command.split()[0] for command in HELP_COMMANDS if command}
    assert listed == set(main.commands)


def test_annotation_keywords_listed_in_the_docs_are_exactly_the_allowed_ones() -> None:
    """The schema engine page lists exactly the keywords that only annotate."""
    text = _read("schema-engine.md")
    paragraph = text.split("Keywords that only annotate are allowed", 1)[1].split("\n\n", 1)[0]
    listed = set(re.findall(r"`([$\w]+)`", paragraph)) - {"format"}
    assert listed == set(ANNOTATIONS)


def test_lint_rule_table_lists_exactly_the_registered_rules() -> None:
    """docs/lint.md's rule table holds one row per registered rule, in id order, named alike."""
    rows = re.findall(r"^\| `(TG\d{3})` \| `([a-z-]+)` \|", _read("lint.md"), re.MULTILINE)
    assert rows == [(rule.id, rule.name) for rule in LINT_RULES.values()]


def test_audit_record_table_names_exactly_the_record_schema_fields() -> None:
    """docs/audit.md's record table names every top-level field of the shipped record schema."""
    text = _read("audit.md").split("| field | what |", 1)[1].split("\n\n", 1)[0]
    named = {
        name for row in text.splitlines()[1:] for name in re.findall(r"`(\w+)`", row.split("|")[1])
    }
    record_schema = ROOT / "schemas" / "audit-record.schema.json"
    fields = set(json.loads(record_schema.read_text(encoding="utf-8"))["properties"])
    assert named == fields


_BUDGET_NAMES = ("max_bytes", "max_depth", "max_string_length", "max_container_items")


def test_limits_table_gives_the_defaults_and_ceilings_a_contract_gets() -> None:
    """docs/contract.md's limits table states `Limits()`'s defaults and the parser's ceilings,
    and the contract schema allows no more than those ceilings."""
    text = _read("contract.md").split("| limit | default | enforced |", 1)[1].split("\n\n", 1)[0]
    defaults = Limits()
    rows = re.findall(r"^\| `(\w+)` \| (\d+)", text, re.MULTILINE)
    assert {name: int(value) for name, value in rows} == {
        name: getattr(defaults, name) for name in (*_BUDGET_NAMES, "max_integer_digits")
    }
    assert f"{defaults.max_depth} (at most {DEPTH_CEILING})" in text
    assert f"{INTEGER_DIGITS_CEILING} (also the ceiling)" in text
    schema = json.loads((ROOT / "schemas" / "contract.schema.json").read_text(encoding="utf-8"))
    bounds = schema["properties"]["limits"]["properties"]
    assert bounds["max_depth"]["maximum"] == DEPTH_CEILING
    assert bounds["max_integer_digits"]["maximum"] == INTEGER_DIGITS_CEILING


def test_near_miss_table_names_only_existing_fixtures() -> None:
    """Every fixture the near-miss table names is in its example's fixtures folder."""
    text = _read("testing.md").split("## The article's near misses", 1)[1].split("\n## ", 1)[0]
    header, _, *rows = [line for line in text.splitlines() if line.startswith("|")]
    examples = [cell.split()[0] for cell in header.strip("|").split("|")[1:]]
    named = 0
    for row in rows:
        for example, cell in zip(examples, row.strip("|").split("|")[1:], strict=True):
            for name in re.findall(r"`([\w./]+)`", cell):
                folder = EXAMPLES / example / "fixtures"
                target = folder / name if "/" in name else folder / "reject" / name
                found = target.is_dir() or any(target.parent.glob(f"{target.name}.*"))
                assert found, f"{example}: no fixture {name}"
                named += 1
    assert named > 30


def test_article_attack_table_matches_the_examples_test() -> None:
    """docs/testing.md's attack table holds exactly the rows tests/test_examples.py checks."""
    text = _read("testing.md").split("## The article's attacks", 1)[1].split("\n## ", 1)[0]
    rows = [line.strip("|").split("|") for line in text.splitlines() if line.startswith("| ")]
    found = set()
    for _, example, fixture, verdict in rows[1:]:
        layer, _, reason = verdict.strip().rstrip(")").partition(" (")
        found.add((example.strip(), fixture.strip().strip("`"), layer, reason))
    assert found == set(ARTICLE_ATTACKS.values())


def _broken_links(page: Path, root: Path = ROOT) -> list[str]:
    """The relative links of `page` that leave `root`, name no file, or name no heading."""
    broken = []
    for link in _links(page):
        if _SCHEME.match(link):
            continue
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        if not path.is_relative_to(root):
            broken.append(f"{link}: leaves the repository")
        elif not path.exists():
            broken.append(f"{link}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{link}: no such heading")
    return broken


@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_relative_link_resolves(page: Path) -> None:
    """Each relative link leads to a file or folder of the repository, and to its heading."""
    assert _broken_links(page) == []


def test_link_checker_finds_a_broken_anchor(tmp_path: Path) -> None:
    """A link to a heading that is not there, on the page or another, is reported; one that is
    there (GitHub's slug: code, brackets and punctuation dropped, a repeat numbered) is not."""
    (tmp_path / "other.md").write_text("# Other\n\n## `[run]` and `[retry]`\n", "utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "## Twice\n\n## Twice\n\n[a](#twice-1) [b](other.md#run-and-retry)"
        " [c](#twice-2) [d](other.md#run) [e](missing.md)\n",
        "utf-8",
    )
    assert _broken_links(page, tmp_path) == [
        "#twice-2: no such heading",
        "other.md#run: no such heading",
        "missing.md: no such file",
    ]


# Where the code, its comments and messages, and the changelog point a reader into the docs.
_CITED_ANCHOR = re.compile(r"\b((?:docs/[\w-]+|README)\.md)#([\w-]+)")
CITING = [
    ROOT / "pyproject.toml",
    ROOT / ".ci" / "run",
    ROOT / ".pre-commit-hooks.yaml",
    ROOT / "CHANGELOG.md",
    *sorted(ROOT.glob("toolguard/**/*.py")),
    *sorted(ROOT.glob("benchmarks/*.py")),
    *sorted(ROOT.glob("fuzz/*.py")),
    *sorted(ROOT.glob("schemas/*.json")),
]


def test_every_docs_anchor_cited_outside_the_docs_exists() -> None:
    """A `docs/PAGE.md#anchor` named in code, a comment, a message or the changelog names a
    heading of that page, so a renamed heading cannot leave a dead pointer behind."""
    cited = [
        (path, page, anchor)
        for path in CITING
        for page, anchor in _CITED_ANCHOR.findall(path.read_text("utf-8"))
    ]
    assert len(cited) >= 3
    dead = [
        f"{path.relative_to(ROOT)}: {page}#{anchor}"
        for path, page, anchor in cited
        if anchor not in _anchors(ROOT / page)
    ]
    assert dead == []


def test_link_checker_sees_the_links() -> None:
    """The link test cannot pass vacuously: the README links to every page in docs/."""
    targets = {link.partition("#")[0] for link in _links(ROOT / "README.md")}
    assert {f"docs/{page.name}" for page in DOCS.glob("*.md")} <= targets
