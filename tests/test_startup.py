"""Start-up is designed: a `check` imports only what its path needs (modules, not timings).

Each test runs the real entry point in a fresh interpreter and lists `sys.modules` at exit. A
heavy import creeping back onto the check path (click, rich, the schema compiler, the TOML
parser on a warm artefact, ijson's generic layer and its `inspect`) fails here, long before
anyone notices a slower agent.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from first_import import by_the_scanner, watching

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "review_status"
CHECK = ["check", str(EXAMPLE / "contract.toml"), "--context", "change_id=CR-1042"]
# NOTE: the probe itself imports nothing a check might not (no `json`): arguments come as argv,
# the answer goes out as a `repr`. It runs after `first_import.watching`'s source, which
# defines `FIRST_IMPORTERS`.
_PROBE = """
import io, os, sys
sys.argv = ["toolguard", *sys.argv[1:]]
stdout = sys.stdout
sys.stdout, sys.stderr = io.StringIO(), io.StringIO()
os._exit = sys.exit  # a check leaves with os._exit (`respond.leave`); the probe reports first
from toolguard.one_shot import start
start(sys.argv)  # as the `toolguard` command does: toolguard's modules from the bundle
try:
    from toolguard.cli import main
    main()
except SystemExit as exit:
    status = exit.code
stdout.write(repr((int(status or 0), sorted(sys.modules), FIRST_IMPORTERS)))
"""
# Never on the check path: the CLI framework and renderers, the schema compiler and its
# checks, commands other than check, `run`'s process machinery, the audit writer when no
# trail is configured, formats no schema here uses, and Unicode tables no string here needs.
NEVER = (
    "click",
    "rich",
    "fastjsonschema",
    "toolguard.cli.app",
    "toolguard.cli.answering",
    "toolguard.cli.authoring",
    "toolguard.cli.reading",
    "toolguard.lint",
    "toolguard.diff",
    "toolguard.explain",
    "toolguard.fixtures",
    "toolguard.validate",
    "toolguard.serve",
    "toolguard.schema.keywords",
    "toolguard.schema.generator",
    "toolguard.schema.formats",
    "toolguard.run.spawn",
    "subprocess",
    "toolguard.adapters.lines",
    "toolguard.adapters.jc",
    "toolguard.audit.record",
    "toolguard.audit.raw",
    "toolguard.invisible_tables",  # built on the first string beyond Latin-1: none here
    "secrets",
    "tempfile",
    "traceback",
    "toolguard.signed",  # the signed rule and its JOSE library: only for contracts that use it
    "joserfc",
    "cryptography",
)
# Not needed once the contract artefact is warm and the response is accepted.
NOT_WHEN_WARM = ("tomllib", "ijson")


def _modules(
    arguments: list[str], cache: Path, response: Path | bytes | None = None
) -> tuple[int, set[str]]:
    """A check's exit status and the modules it imported; `response` (a file, or its bytes
    through a pipe) on stdin, if given."""
    status, modules, _ = _probe(arguments, cache, response)
    return status, modules


def _probe(
    arguments: list[str],
    cache: Path,
    response: Path | bytes | None = None,
    watched: tuple[str, ...] = (),
) -> tuple[int, set[str], list[tuple[str, str, int]]]:
    """`_modules`, and who first imported each of the `watched` modules (`first_import`)."""
    environment = {**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)}
    for name in ("TOOLGUARD_AUDIT_LOG", "TOOLGUARD_RAW_DIR"):
        environment.pop(name, None)
    done = subprocess.run(
        [sys.executable, "-c", watching(*watched) + _PROBE, *arguments],
        input=response.read_bytes() if isinstance(response, Path) else response or b"",
        capture_output=True,
        env=environment,
        check=True,
    )
    status, modules, first = ast.literal_eval(done.stdout.decode())
    return status, set(modules), first


@pytest.fixture(scope="module")
def warm_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    cache = tmp_path_factory.mktemp("cache")
    _modules(CHECK, cache, EXAMPLE / "response.json")  # the first run builds the artefact
    return cache


def test_a_warm_check_imports_nothing_heavy(warm_cache: Path) -> None:
    """An accepted response with a warm artefact: none of the heavy modules is imported."""
    status, modules = _modules(CHECK, warm_cache, EXAMPLE / "response.json")
    assert status == 0
    assert sorted(modules & {*NEVER, *NOT_WHEN_WARM}) == []


def test_a_rejected_response_still_avoids_the_cli_and_the_compiler(warm_cache: Path) -> None:
    """A rejection takes the strict parser, but never click, rich or the schema compiler."""
    rejected = EXAMPLE / "fixtures" / "reject" / "decision_not_in_enum.json"
    status, modules = _modules(CHECK, warm_cache, rejected)
    assert status == 1
    assert sorted(modules & set(NEVER)) == []


@pytest.mark.parametrize("response", [b"[1 2]", b'{"ok": 1 2}', b'"abc', b"[1.]", b"[-00]"])
def test_a_malformed_response_is_rejected_not_an_internal_error(
    warm_cache: Path, response: bytes
) -> None:
    """A warm check never imports `json`: its decoder's syntax errors are still rejections.

    Only `_json`'s scanner may load it, to build its error (CPython 3.12 on: `first_import`).
    """
    status, modules, first = _probe(CHECK, warm_cache, response, watched=("json",))
    assert status == 1
    assert ("json" in modules) == bool(first)  # the probe saw the import, if there was one
    assert [importer for importer in first if not by_the_scanner(importer)] == []


@pytest.mark.parametrize(
    "response", [b"[" * 100_000, b'{"ok": ' + b"9" * 5000 + b"}"], ids=["deep", "long-integer"]
)
def test_the_usual_attacks_are_rejected_without_the_strict_parser(
    warm_cache: Path, response: bytes
) -> None:
    """Deep nesting and an integer beyond 64 bits: neither ijson nor `re` (`parse`'s note)."""
    status, modules = _modules(CHECK, warm_cache, response)
    assert status == 1
    assert sorted(modules & {"ijson", "re"}) == []


def test_an_oversize_stream_is_refused_without_openssl(tmp_path: Path) -> None:
    """A stream over the default 1 MiB: refused, hashed without `hashlib` (OpenSSL's memory)."""
    (tmp_path / "schema.json").write_text(
        '{"type": "object", "properties": {"ok": {"type": "boolean"}},'
        ' "required": ["ok"], "additionalProperties": false}'
    )
    contract = tmp_path / "contract.toml"
    contract.write_text(
        'tool = "bench"\nversion = "1"\nschema = "schema.json"\n[projection]\nok = "/ok"\n'
    )
    for _ in range(2):  # the first run builds the artefact; a pipe: never sized first
        status, modules = _modules(["check", str(contract)], tmp_path / "cache", b" " * (2 << 20))
    assert status == 1
    assert sorted(modules & {"hashlib", "_hashlib"}) == []


def test_a_cold_check_compiles_but_still_skips_click_and_rich(tmp_path: Path) -> None:
    """The first run compiles (fastjsonschema, tomllib) yet never imports click or rich."""
    status, modules = _modules(CHECK, tmp_path / "cache", EXAMPLE / "response.json")
    assert status == 0
    assert "fastjsonschema" in modules  # the probe sees a real compile
    assert sorted(modules & {"click", "rich", "toolguard.cli.app"}) == []


def test_a_signed_check_loads_the_jose_library_and_nothing_else_heavy(tmp_path: Path) -> None:
    """A contract with a signed rule imports joserfc; the CLI and the compiler stay out."""
    signed = REPO / "examples" / "review_status_signed"
    arguments = [
        "check",
        str(signed / "contract.toml"),
        "--context",
        "change_id=CR-1042",
        "--now",
        "2026-03-14T09:30:00Z",
    ]
    _modules(arguments, tmp_path / "cache", signed / "response.json")  # builds the artefact
    status, modules = _modules(arguments, tmp_path / "cache", signed / "response.json")
    assert status == 0
    assert {"toolguard.signed.verify", "joserfc"} <= modules
    # joserfc itself imports `secrets` (for key generation it is never asked to do here)
    heavy = set(NEVER) - {"toolguard.signed", "joserfc", "cryptography", "secrets"}
    assert sorted(modules & {*heavy, *NOT_WHEN_WARM}) == []


def test_help_and_other_commands_still_go_through_click(tmp_path: Path) -> None:
    """Anything the fast parser is unsure of is left to click (here `--help`)."""
    status, modules = _modules([*CHECK, "--help"], tmp_path / "cache", EXAMPLE / "response.json")
    assert status == 0
    assert "click" in modules


def test_re2_is_loaded_only_for_a_pattern_plain_matching_cannot_answer(
    warm_cache: Path, tmp_path: Path
) -> None:
    """The pattern engine is imported to run a pattern that is not plain (`plain_match.py`),
    never on the warm path of a contract whose patterns are (the example's `change_id`, an
    identifier); the same contract with an alternation in that pattern shows the probe sees it.
    A cold check compiles toolguard's own schemas, whose patterns load it."""
    status, modules = _modules(CHECK, warm_cache, EXAMPLE / "response.json")
    assert status == 0
    assert "re2" not in modules
    schema = json.loads((EXAMPLE / "response.schema.json").read_bytes())
    assert schema["properties"]["change_id"]["pattern"] == "^CR-[0-9]{1,10}$"
    schema["properties"]["change_id"]["pattern"] = "^CR-[0-9]{1,10}(-[a-z]+)?$"
    (tmp_path / "response.schema.json").write_text(json.dumps(schema), encoding="utf-8")
    contract = (EXAMPLE / "contract.toml").read_text(encoding="utf-8")
    (tmp_path / "contract.toml").write_text(contract, encoding="utf-8")
    grouped = ["check", str(tmp_path / "contract.toml"), "--context", "change_id=CR-1042"]
    _modules(grouped, tmp_path / "cache", EXAMPLE / "response.json")  # builds the artefact
    status, modules = _modules(grouped, tmp_path / "cache", EXAMPLE / "response.json")
    assert status == 0
    assert "re2" in modules


# A warm check's imports are chosen: besides the bare interpreter's modules and toolguard's
# own, only these. Adding one is a decision (what it costs a one-shot check, and why the path
# needs it), taken here.
CHECK_PATH_STANDARD_LIBRARY = frozenset(
    {
        # `_json`, not `json`: the fast parser and the envelope (`json_codec.py`); `json`
        # would bring `re`, and `re` `enum`: half of what starting Python costs
        "_json",
        # small and needed: budgets and the cache's files, numbers, the clock, the artefact's
        # digest (the interpreter's own SHA-256, not OpenSSL's), the parse's GC pause, frozen
        # mappings. Not `functools`, `contextlib` or `collections` (`standins.py`), nor
        # `signal` (`_signal`, built in) or `enum` (`ExitStatus`).
        *("__future__", "errno", "gc", "math", "types"),
        *("_datetime", "_sha256", "_sha2"),
        # text beyond Latin-1 (the hidden-character screen's class, its tables), the text
        # adapter's records, a pattern RE2 runs: `re`, only on those paths (see below)
        *("unicodedata", "copy", "weakref", "_weakrefset"),
        *("re", "re._casefix", "re._compiler", "re._constants", "re._parser", "_sre", "copyreg"),
        *("enum", "functools", "_functools", "collections", "_collections", "operator"),
        *("_operator", "keyword", "reprlib", "itertools"),
    }
)
# What an ASCII answer checked by a contract whose patterns are plain never imports.
NOT_FOR_PLAIN_ASCII = frozenset(
    {"json", "re", "_sre", "signal", "enum", "functools", "contextlib", "collections"}
)
# Only for a schema or adapter with patterns; google-re2 1.1 (the floor) is `re2.py` over a
# top-level `_re2` extension, later releases a package holding `re2._re2`.
PATTERN_ENGINE = frozenset({"re2", "re2._re2", "_re2"})
_BARE_PROBE = "import io, sys; sys.stdout.write(repr(sorted(sys.modules)))"


def _bundled_cases() -> list[Any]:
    """Every accept and history fixture of the bundled examples that need no extra."""
    from toolguard.fixtures.discover import discover  # noqa: PLC0415 - at collection only

    cases = []
    for contract in sorted(REPO.glob("examples/*/contract.toml")):
        if "signed" in contract.parent.name:
            continue  # the signed rule's JOSE library: measured and tested on its own
        suite = discover(contract)
        assert suite.settings is not None
        for case in suite.cases:
            if case.kind == "reject":
                continue
            arguments = ["check", str(contract), "--input", str(case.response)]
            arguments += ["--now", str(suite.settings.now), "--request-id", "req.fixture.0001"]
            if case.context_file is not None:
                arguments += ["--context-file", str(case.context_file)]
            name = f"{contract.parent.name}/{case.response.name}"
            cases.append(pytest.param(arguments, id=name))
    return cases


@pytest.fixture(scope="module")
def bare_modules() -> set[str]:
    done = subprocess.run([sys.executable, "-c", _BARE_PROBE], capture_output=True, check=True)
    return set(ast.literal_eval(done.stdout.decode()))


@pytest.mark.parametrize("arguments", _bundled_cases())
def test_a_warm_check_imports_only_the_allow_list(
    arguments: list[str], bare_modules: set[str], warm_cache: Path
) -> None:
    """An accepted fixture, warm: nothing imported beyond the allow-list and toolguard's own."""
    _modules(arguments, warm_cache)  # the first run of this contract builds its artefact
    status, modules = _modules(arguments, warm_cache)
    assert status == 0
    chosen = CHECK_PATH_STANDARD_LIBRARY | PATTERN_ENGINE
    inherited = modules - bare_modules - chosen
    assert sorted(name for name in inherited if name.partition(".")[0] != "toolguard") == []
    compiled = {"click", "rich", "fastjsonschema", "toolguard.schema.generator", "toolguard.lint"}
    assert sorted(modules & {*compiled, *NOT_WHEN_WARM}) == []  # nothing built, nothing parsed


def _plain_ascii_cases() -> list[Any]:
    """The bundled cases answered in ASCII by a contract whose patterns are all plain."""
    return [
        case
        for case in _bundled_cases()
        if Path(case.values[0][3]).read_bytes().isascii()
        and case.id.partition("/")[0] in ("job_run", "review_status", "deploy_status")
    ]


@pytest.mark.parametrize("arguments", _plain_ascii_cases())
def test_an_ascii_answer_with_plain_patterns_imports_neither_json_nor_re(
    arguments: list[str], warm_cache: Path
) -> None:
    """The common case stays light: `_json` without `json`, plain patterns without `re` or
    RE2, `_signal` without `signal` (each would add a tenth or more of Python's start-up)."""
    _modules(arguments, warm_cache)
    status, modules = _modules(arguments, warm_cache)
    assert status == 0
    assert sorted(modules & (NOT_FOR_PLAIN_ASCII | PATTERN_ENGINE)) == []


def test_the_installed_command_imports_no_re(warm_cache: Path) -> None:
    """`toolguard` itself is a plain script: an entry point's wrapper would import `re`."""
    command = Path(sys.executable).with_name("toolguard")
    if not command.exists():
        pytest.skip(f"toolguard is not installed beside {sys.executable}")
    assert command.read_text(encoding="utf-8").splitlines()[0].startswith("#!")
    env = {**os.environ, "TOOLGUARD_CACHE_DIR": str(warm_cache), "PYTHONPROFILEIMPORTTIME": "1"}
    for _ in range(2):  # the first run builds the artefact
        done = subprocess.run(
            [command, *CHECK],
            input=(EXAMPLE / "response.json").read_bytes(),
            capture_output=True,
            env=env,
            check=False,
        )
    assert done.returncode == 0, done.stderr
    imported = _import_names(done.stderr)
    assert "toolguard.cli" in imported
    assert sorted(imported & NOT_FOR_PLAIN_ASCII) == []


@pytest.mark.parametrize(
    ("arguments", "stdin"),
    [
        (CHECK, EXAMPLE / "response.json"),
        ([*CHECK, "--input", "-"], EXAMPLE / "response.json"),
        (
            [*CHECK[:2], "--context-file", "-", "--input", str(EXAMPLE / "response.json")],
            b'{"change_id": "CR-1042"}',
        ),
    ],
    ids=["stdin", "input-dash", "context-file-dash"],
)
def test_a_blocking_stdin_is_read_without_select(
    arguments: list[str], stdin: Path | bytes, warm_cache: Path
) -> None:
    """Only a stdin the caller made non-blocking needs `polled_input` (and `select`)."""
    status, modules = _modules(arguments, warm_cache, stdin)
    assert status == 0
    assert sorted(modules & {"select", "toolguard.polled_input"}) == []


def _imported_by(command: list[str], cache: Path) -> set[str]:
    """The modules `command` imports (`-X importtime`), its response from the example."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", *command],
        input=(EXAMPLE / "response.json").read_bytes(),
        capture_output=True,
        env={**os.environ, "TOOLGUARD_CACHE_DIR": str(cache)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return _import_names(done.stderr)


def _import_names(stderr: bytes) -> set[str]:
    """The modules named in `-X importtime`'s (or `PYTHONPROFILEIMPORTTIME`'s) lines."""
    return {
        line.rpartition("|")[2].strip()
        for line in stderr.decode().splitlines()
        if line.startswith("import time:")
    }


def test_python_dash_m_adds_only_what_dash_m_itself_imports(warm_cache: Path) -> None:
    """`python -m toolguard` pays for `runpy` (and, through it, `importlib.util`: 3-5 ms), as
    any `-m` does (here the frozen `__hello__`); beyond that, only the allow-list."""
    dash_m = _imported_by(["-m", "__hello__"], warm_cache)
    imported = _imported_by(["-m", "toolguard", *CHECK], warm_cache)
    assert "runpy" in dash_m
    inherited = imported - dash_m - CHECK_PATH_STANDARD_LIBRARY
    assert sorted(name for name in inherited if name.partition(".")[0] != "toolguard") == []
    assert sorted((imported - dash_m) & NOT_FOR_PLAIN_ASCII) == []
