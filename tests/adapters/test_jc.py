"""The jc text adapter fails closed where jc itself fails open (`toolguard[jc]`)."""

from __future__ import annotations

import importlib
import json
import os
import resource
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from rejections import saying

from toolguard import load_contract
from toolguard.adapters import jc as jc_adapter
from toolguard.adapters.jc import JcAdapter
from toolguard.errors import ContractError, Rejection
from toolguard.fixtures.discover import discover
from toolguard.limits import Limits
from toolguard.pipeline import check

jc = pytest.importorskip("jc", reason="jc is not installed (pip install 'toolguard-cli[jc]')")

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "disk_usage"
REAL = Path(__file__).resolve().parents[1] / "data" / "real_outputs"
REGRESSIONS = Path(__file__).resolve().parents[1] / "data" / "fuzz" / "pipeline_check"
CONTRACT = EXAMPLE / "contract.jc.toml"
REQUEST_ID = "req.fixture.0001"
GARBAGE = "total garbage\nnot df output at all\n"


def fixtures(kind: str) -> list[Any]:
    """The line adapter's fixtures, found by `toolguard test`'s own walk (goldens do not apply)."""
    cases = discover(CONTRACT).cases
    return [pytest.param(case.response, id=case.name) for case in cases if case.kind == kind]


@pytest.mark.parametrize("path", fixtures("accept"))
def test_accept_fixture_is_accepted_through_jc(path: Path) -> None:
    """The line adapter's accepted `df -P` outputs are accepted through jc's `df` too."""
    envelope, diagnostics = check(load_contract(CONTRACT), path.read_bytes(), request_id=REQUEST_ID)
    assert diagnostics.outcome == "success", diagnostics
    assert {record["mounted_on"] for record in envelope["data"]["file_systems"]} >= {"/"}


@pytest.mark.parametrize("path", fixtures("reject"))
def test_reject_fixture_is_rejected_through_jc(path: Path) -> None:
    """Garbage, banners, warnings, truncated output and hidden characters are rejected, whatever
    jc made of them."""
    raw = path.read_bytes()
    envelope, diagnostics = check(load_contract(CONTRACT), raw, request_id=REQUEST_ID)
    assert envelope["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert diagnostics.layer in {"parse", "limits", "schema", "projection"}
    assert set(envelope) == {"tool", "request_id", "outcome", "error"}


def test_jc_invents_records_from_garbage_and_the_schema_rejects_them() -> None:
    """jc's `df` turns two lines of garbage into a record; the closed schema refuses it."""
    assert jc.parse("df", GARBAGE, quiet=True)  # jc fails open: a record out of nothing
    _, diagnostics = check(load_contract(CONTRACT), GARBAGE.encode(), request_id=REQUEST_ID)
    assert (diagnostics.layer, diagnostics.reason) == ("schema", "required")


def test_an_empty_jc_result_is_a_rejection() -> None:
    """jc's `ifconfig` returns [] for garbage, with no error: toolguard rejects it."""
    assert jc.parse("ifconfig", GARBAGE, quiet=True) == []
    with pytest.raises(Rejection, check=saying("found nothing")):
        JcAdapter("ifconfig")(GARBAGE.encode(), Limits())


def test_a_jc_parser_that_raises_says_it_could_not_read_the_output() -> None:
    """macOS's `df -P` has a file system named with a space: jc's `df` raises, and the message
    says jc could not read the output, not just an exception's name."""
    text = (REAL / "df_p.txt").read_bytes()  # real `df -P` on Debian 12
    text += b"map auto_home 0 0 0 100% /System/Volumes/Data/home\n"
    with pytest.raises(Rejection) as caught:
        JcAdapter("df")(text, Limits())
    assert caught.value.reason == "jc_failed"
    assert caught.value.message.startswith("jc df could not read the output: it raised ")


def test_jc_results_are_held_to_the_contract_limits() -> None:
    """The document jc builds is re-read by the strict parser, within the contract's budgets."""
    text = (EXAMPLE / "response.txt").read_bytes()
    with pytest.raises(Rejection) as caught:
        JcAdapter("df")(text, Limits(max_string_length=3))
    assert caught.value.layer == "limits"


@settings(max_examples=40, deadline=None)  # each text jc reads costs a child interpreter
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_any_bytes_get_a_document_or_a_rejection(raw: bytes) -> None:
    """Whatever the bytes, the jc adapter returns a document or raises a `Rejection`."""
    try:
        document = JcAdapter("df")(raw, Limits())
    except Rejection:
        return
    assert set(document) <= {"records", "record"}


def test_unknown_jc_parser_is_a_contract_error() -> None:
    """A parser jc does not have is refused when the contract loads."""
    with pytest.raises(ContractError, match="no parser"):
        JcAdapter.load("no_such_parser", "contract.toml")


def test_missing_jc_is_a_contract_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without the jc extra, a contract naming a jc parser is refused with the install hint."""
    real = importlib.import_module

    def without_jc(name: str, *args: Any) -> Any:
        if name == "jc":
            raise ImportError(name)
        return real(name, *args)

    monkeypatch.setattr(importlib, "import_module", without_jc)
    with pytest.raises(ContractError, match=r"toolguard-cli\[jc\]"):
        JcAdapter.load("df", "contract.toml")


def test_jc_and_line_patterns_together_are_refused(tmp_path: Path) -> None:
    """A `[text]` table is either line patterns or a jc parser, never both."""
    contract = tmp_path / "contract.toml"
    contract.write_text(
        CONTRACT.read_text(encoding="utf-8").replace('jc = "df"', "jc = \"df\"\nline = '^x$'"),
        encoding="utf-8",
    )
    (tmp_path / "jc.response.schema.json").write_bytes(
        (EXAMPLE / "jc.response.schema.json").read_bytes()
    )
    with pytest.raises(ContractError):
        load_contract(contract)


def _at_most_two_gib() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def test_jc_exhausting_its_memory_is_a_rejection_and_the_check_survives() -> None:
    """A `df` header with tab-separated columns makes jc double a line per column
    (found by fuzzing): jc's child runs out of its memory cap and the check rejects, in a
    `toolguard check` held to 2 GiB that never comes near it."""
    raw = (REGRESSIONS / "jc_header_tabs.txt").read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "toolguard", "check", str(CONTRACT), "--diagnostics", "json"],
        input=raw,
        capture_output=True,
        timeout=120,
        preexec_fn=_at_most_two_gib,  # the test process starts no threads
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert json.loads(done.stdout)["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert json.loads(done.stderr)["reason"] == "jc_over_budget"


def test_the_jc_child_has_its_own_session_and_none_of_toolguards_variables(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A signal to the caller's process group reaches toolguard alone; no TOOLGUARD_* leaks."""
    monkeypatch.setenv("TOOLGUARD_AUDIT_KEY", "/secret/key")
    spy = (
        "import json, os, sys\n"
        "own = sorted(name for name in os.environ if name.startswith('TOOLGUARD_'))\n"
        "sys.stdout.write(json.dumps({'session': os.getsid(0), 'own': own}))\n"
    )
    monkeypatch.setattr(jc_adapter, "_CHILD", spy)
    seen = json.loads(jc_adapter._run_jc("df", b"x\n", Limits()))
    assert seen["session"] != os.getsid(0)
    assert seen["own"] == []


def test_the_jc_child_imports_nothing_from_the_working_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A `json.py` or `jc.py` in the working folder (a shared one: anyone's) is never run."""
    marker = tmp_path / "ran"
    for module in ("json", "resource", "jc"):
        planted = f"open({str(marker)!r}, 'a').write({module!r})\nraise SystemExit(42)\n"
        (tmp_path / f"{module}.py").write_text(planted)
    monkeypatch.chdir(tmp_path)
    records = json.loads(
        jc_adapter._run_jc("df", (EXAMPLE / "response.txt").read_bytes(), Limits())
    )
    assert not marker.exists()
    assert records[0]["filesystem"] == "/dev/vda"


def test_the_jc_child_ignores_the_callers_python_variables(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """PYTHONINSPECT, PYTHONSTARTUP, PYTHONPATH, PYTHONWARNINGS: none reaches the child.

    Under PYTHONINSPECT the child's exit statuses became 1 (a rejection read as an internal
    error); a `jc.py` on PYTHONPATH ran in place of jc.
    """
    marker = tmp_path / "ran"
    hostile = tmp_path / "hostile.py"
    hostile.write_text(f"open({str(marker)!r}, 'a').write('startup')\n")
    (tmp_path / "jc.py").write_text(
        f"open({str(marker)!r}, 'a').write('jc')\nraise SystemExit(42)\n"
    )
    monkeypatch.setenv("PYTHONINSPECT", "1")
    monkeypatch.setenv("PYTHONSTARTUP", str(hostile))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.setenv("PYTHONWARNINGS", "error")
    records = json.loads(
        jc_adapter._run_jc("df", (EXAMPLE / "response.txt").read_bytes(), Limits())
    )
    assert records[0]["filesystem"] == "/dev/vda"
    with pytest.raises(Rejection) as caught:
        jc_adapter._run_jc("ifconfig", GARBAGE.encode(), Limits())
    assert caught.value.reason == "jc_empty"
    assert not marker.exists()


def test_the_jc_child_finds_jc_where_toolguard_found_it(monkeypatch: pytest.MonkeyPatch) -> None:
    """Isolated from the caller's variables, the child still imports this process's jc."""
    spy = "import jc, json, sys\nsys.stdout.write(json.dumps([sys.flags.isolated, jc.__file__]))"
    monkeypatch.setattr(jc_adapter, "_CHILD", spy)
    isolated, where = json.loads(jc_adapter._run_jc("df", b"x\n", Limits()))
    assert isolated == 1
    assert where == jc.__file__


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_a_jc_child_ended_by_someone_elses_signal_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, signum: int
) -> None:
    """Not the response's fault: never INVALID_RESPONSE, always a failure envelope."""
    monkeypatch.setattr(jc_adapter, "_CHILD", f"import os; os.kill(os.getpid(), {int(signum)})")
    with pytest.raises(jc_adapter.JcNotJudged, match=signal.Signals(signum).name):
        jc_adapter._run_jc("df", b"x\n", Limits())
    outcome = check(load_contract(CONTRACT), (EXAMPLE / "response.txt").read_bytes())
    assert outcome.diagnostics.outcome == "internal"
    assert outcome.envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}


@pytest.mark.parametrize(
    "child",
    [
        "raise ValueError('not allowed')",  # its limits refused (a lower `ulimit -v` above it)
        "raise SystemExit(9)",  # a status the child never gives
    ],
    ids=["its-own-exception", "unknown-status"],
)
def test_a_jc_child_that_failed_on_its_own_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, child: str
) -> None:
    """The child failed before judging the text: never INVALID_RESPONSE (`jc_failed`), which
    would blame every response for the environment's limits."""
    monkeypatch.setattr(jc_adapter, "_CHILD", child)
    with pytest.raises(jc_adapter.JcNotJudged, match=r"failed before judging the text"):
        jc_adapter._run_jc("df", b"x\n", Limits())
    outcome = check(load_contract(CONTRACT), (EXAMPLE / "response.txt").read_bytes())
    assert outcome.diagnostics.outcome == "internal"
    assert outcome.envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}


def test_a_jc_child_that_cannot_start_is_an_internal_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """No process or descriptor left (`ulimit -n`, `ulimit -u`), no interpreter: the text was
    never judged, so the answer is UPSTREAM_UNAVAILABLE, not a rejection."""
    monkeypatch.setattr(jc_adapter.sys, "executable", str(tmp_path / "gone"))
    with pytest.raises(jc_adapter.JcNotJudged, match=r"^cannot start jc df: "):
        jc_adapter._run_jc("df", b"x\n", Limits())
    outcome = check(load_contract(CONTRACT), (EXAMPLE / "response.txt").read_bytes())
    assert outcome.diagnostics.outcome == "internal"
    assert outcome.envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": False}


@pytest.mark.skipif(not hasattr(signal, "SIGRTMIN"), reason="no real-time signals here")
def test_a_jc_child_ended_by_a_signal_with_no_name_is_said_by_its_number(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    number = int(signal.SIGRTMIN) + 1  # a real-time signal: `signal.Signals` has no member
    monkeypatch.setattr(jc_adapter, "_CHILD", f"import os; os.kill(os.getpid(), {number})")
    with pytest.raises(jc_adapter.JcNotJudged, match=f"was ended by signal {number}$"):
        jc_adapter._run_jc("df", b"x\n", Limits())


def test_a_jc_child_ended_by_its_cpu_limit_is_over_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """SIGXCPU is the budget's own signal: the response is rejected, as before."""
    monkeypatch.setattr(
        jc_adapter, "_CHILD", "import os, signal; os.kill(os.getpid(), signal.SIGXCPU)"
    )
    with pytest.raises(Rejection) as caught:
        jc_adapter._run_jc("df", b"x\n", Limits())
    assert caught.value.reason == "jc_over_budget"


def test_the_jc_child_sends_nothing_past_max_bytes() -> None:
    """A result one byte over `max_bytes` is refused in the child, not read whole by toolguard."""
    text = (EXAMPLE / "response.txt").read_bytes()
    size = len(json.dumps(jc.parse("df", text.decode(), quiet=True)).encode())
    assert jc_adapter._run_jc("df", text, Limits(max_bytes=size))
    with pytest.raises(Rejection) as caught:
        jc_adapter._run_jc("df", text, Limits(max_bytes=size - 1))
    assert caught.value.layer == "limits"
    assert caught.value.message == f"jc's result is larger than max_bytes={size - 1}"
