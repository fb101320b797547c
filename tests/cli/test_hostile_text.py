"""Hostile text never reaches a terminal raw: every command's text output, one case a route in.

Each case pushes the same hostile string (an OSC 52 clipboard write, an OSC 8 link, a line
erase, a carriage return, a bidi override, a C1 CSI) in where that command quotes something:
a response, a schema, an instance, a log, a file or folder name, a command's stderr. Whatever
the command answers, neither stdout nor stderr may hold one of those characters raw.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import unicodedata
from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import piped_environment

REPO = Path(__file__).resolve().parents[2]
REVIEW = REPO / "examples" / "review_status"
HOSTILE = (
    "x\x1b]52;c;cHduZWQ=\x07\x1b]8;;http://evil.example/\x07click\x1b]8;;\x07\r\x1b[2K\u202e\x9b"
)
NAME = HOSTILE.replace("/", "|")  # the same, as a file name
ID = "req.hostile.0001"
_ENV = piped_environment("TOOLGUARD_AUDIT", "TOOLGUARD_RAW")

Case = Callable[[Path], tuple[list[str], bytes]]  # tmp_path -> (arguments, stdin)


def _response() -> bytes:
    """The example's accepted response plus a member whose name is the hostile string."""
    document = json.loads((REVIEW / "response.json").read_bytes())
    document[HOSTILE] = HOSTILE
    return json.dumps(document).encode()


def _contract_in(folder: Path) -> Path:
    """A copy of the review_status example (fixtures too) in `folder`, whose name is hostile."""
    target = folder / f"c{NAME}"
    shutil.copytree(REVIEW, target)
    return target / "contract.toml"


def _private(tmp_path: Path) -> Path:
    folder = tmp_path / "private"
    folder.mkdir(mode=0o700, exist_ok=True)
    return folder


def _check_response(tmp_path: Path) -> tuple[list[str], bytes]:
    contract = str(REVIEW / "contract.toml")
    return ["check", contract, "--context", "change_id=CR-1042"], _response()


def _check_contract_path(tmp_path: Path) -> tuple[list[str], bytes]:
    contract = str(_contract_in(tmp_path))
    return ["check", contract, "--context", "change_id=CR-1042"], _response()


def _check_missing_contract(tmp_path: Path) -> tuple[list[str], bytes]:
    return ["check", str(tmp_path / f"{NAME}.toml")], b"{}"


def _run(tmp_path: Path) -> tuple[list[str], bytes]:
    response = tmp_path / "response.json"
    response.write_bytes(_response())
    script = 'printf "%s" "$0" >&2; cat "$1"'
    contract = str(REVIEW / "contract.toml")
    argv = ["run", contract, "--context", "change_id=CR-1042", "--", "sh", "-c", script]
    return [*argv, HOSTILE, str(response)], b""


def _serve(tmp_path: Path) -> tuple[list[str], bytes]:
    line = {"raw": _response().decode(), "context": {"change_id": "CR-1042"}}
    contract = str(REVIEW / "contract.toml")
    return ["serve", contract, "--diagnostics", "rich"], json.dumps(line).encode() + b"\n"


def _validate(tmp_path: Path) -> tuple[list[str], bytes]:
    schema = tmp_path / "schema.json"
    schema.write_text('{"type": "object", "additionalProperties": {"type": "integer"}}')
    instance = tmp_path / f"{NAME}.json"
    instance.write_text(json.dumps({HOSTILE: "s"}))
    return ["validate", str(schema), str(instance)], b""


def _logged(tmp_path: Path) -> Path:
    """An audit log holding the record of a check of the hostile response."""
    log = _private(tmp_path) / "audit.jsonl"
    argv = ["check", str(REVIEW / "contract.toml"), "--context", "change_id=CR-1042"]
    toolguard([*argv, "--request-id", ID, "--audit-log", str(log)], _response())
    assert log.stat().st_size > 0
    return log


def _explain(tmp_path: Path) -> tuple[list[str], bytes]:
    return ["explain", ID, "--audit-log", str(_logged(tmp_path))], b""


def _summary(tmp_path: Path) -> tuple[list[str], bytes]:
    return ["audit", "summary", str(_logged(tmp_path))], b""


def _summary_missing_log(tmp_path: Path) -> tuple[list[str], bytes]:
    return ["audit", "summary", str(tmp_path / NAME)], b""


def _prune(tmp_path: Path) -> tuple[list[str], bytes]:
    return ["audit", "prune", "--raw-dir", str(_private(tmp_path) / NAME)], b""


def _test(tmp_path: Path) -> tuple[list[str], bytes]:
    contract = _contract_in(tmp_path)
    (contract.parent / "fixtures" / "accept" / f"{NAME}.json").write_bytes(_response())
    return ["test", str(contract.parent)], b""


def _lint(tmp_path: Path) -> tuple[list[str], bytes]:
    return ["lint", str(_contract_in(tmp_path))], b""


def _diff(tmp_path: Path) -> tuple[list[str], bytes]:
    contract = _contract_in(tmp_path)
    schema = contract.with_name("response.schema.json")
    document = json.loads(schema.read_bytes())
    document["properties"][HOSTILE] = {"type": "string"}
    schema.write_text(json.dumps(document))
    return ["diff", str(REVIEW / "contract.toml"), str(contract)], b""


def _init(tmp_path: Path) -> tuple[list[str], bytes]:
    return ["init", "tool", str(tmp_path / NAME), "--from", "-"], _response()


CASES: dict[str, Case] = {
    "check-response": _check_response,
    "check-contract-path": _check_contract_path,
    "check-missing-contract": _check_missing_contract,
    "run-argv-and-stderr": _run,
    "serve": _serve,
    "validate": _validate,
    "explain": _explain,
    "audit-summary": _summary,
    "audit-summary-missing-log": _summary_missing_log,
    "audit-prune": _prune,
    "test": _test,
    "lint": _lint,
    "diff": _diff,
    "init": _init,
}


# A summary counts records by tool, outcome, code and layer, which a record's schema closes.
UNQUOTED = {"audit-summary"}


def toolguard(arguments: list[str], stdin: bytes) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(  # noqa: PLW1510 - the status is what the tests assert
        [sys.executable, "-m", "toolguard", *arguments],
        input=stdin,
        capture_output=True,
        cwd=REPO,
        env=_ENV,
        timeout=60,
    )


def raw_controls(output: bytes) -> list[str]:
    """The characters of `output` a terminal would act on or hide (newline and tab aside)."""
    text = output.decode("utf-8", "replace")
    return sorted(
        {
            char
            for char in text
            if char not in "\n\t" and unicodedata.category(char) in {"Cc", "Cf", "Zl", "Zp"}
        }
    )


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_no_command_writes_a_hostile_character_raw(tmp_path: Path, case: str) -> None:
    """Whatever route the hostile string takes in, every text output holds it escaped."""
    arguments, stdin = CASES[case](tmp_path)
    done = toolguard(arguments, stdin)
    assert done.returncode != 4, done.stderr  # a defined answer, never a crash
    assert raw_controls(done.stdout) == []
    assert raw_controls(done.stderr) == []
    if case not in UNQUOTED:
        assert b"\\x1b" in done.stdout + done.stderr  # the string was quoted, escaped
