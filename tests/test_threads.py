"""toolguard as a library in a threaded, forking host: the answers a single thread gets.

Frameworks run tool calls in a thread pool (or `asyncio.to_thread`) and fork workers after
importing; every call must answer as it would alone and leave the host's process as it was.
"""

from __future__ import annotations

import gc
import hashlib
import json
import logging
import multiprocessing
import os
import signal
import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import toolguard
from toolguard.serve import Server

REPO = Path(__file__).resolve().parents[1]
CONTRACTS = sorted((REPO / "examples").glob("*/contract*.toml"))
NOW = "2026-03-14T09:30:00Z"
WAIT = 120  # seconds: a bound on joins that always complete, never a timing (a loaded CI box)
LARGE = b'{"items": [' + b",".join(b'{"n": %d, "s": "%s"}' % (i, b"x" * 40) for i in range(25_000))
LARGE += b"]}"  # over 1 MiB: the screen, the collector pause and the old-generation move


def _cases() -> Iterator[tuple[Path, bytes, dict[str, Any]]]:
    """Every example fixture with its context, a few hostile inputs and a large document."""
    for contract in CONTRACTS:
        folder = contract.parent
        context = json.loads((folder / "context.json").read_text())
        for response in sorted((folder / "fixtures").glob("*/*")):
            if response.is_dir() or response.name.endswith((".expected.json", ".toml")):
                continue
            if response.name.endswith(".context.json"):
                continue
            own = response.with_name(response.name.split(".")[0] + ".context.json")
            yield (
                contract,
                response.read_bytes(),
                json.loads(own.read_text()) if own.exists() else context,
            )
        for raw in (b"", b"[" * 200, b'{"a": 1, "a": 2}'):
            yield contract, raw, context
    yield CONTRACTS[0], LARGE, json.loads((CONTRACTS[0].parent / "context.json").read_text())


CASES = list(_cases())


def _answer(contracts: dict[Path, toolguard.Contract], number: int) -> str:
    contract, raw, context = CASES[number % len(CASES)]
    request_id = f"req.thread.{number % 5:04d}"
    envelope, diagnostics = toolguard.check(
        contracts[contract], raw, context=context, now=NOW, request_id=request_id
    )
    return json.dumps([envelope, diagnostics.error_code, diagnostics.layer], sort_keys=True)


def _together(count: int, task: Callable[[int], Any]) -> list[Any]:
    """`task(0)`... `task(count - 1)` on 8 threads that start at once; results in order."""
    start = threading.Barrier(8)

    def run(number: int) -> Any:
        if number < 8:
            start.wait(WAIT)
        return task(number)

    with ThreadPoolExecutor(8) as pool:
        return list(pool.map(run, range(count)))


def test_threads_checking_at_once_get_the_single_threaded_envelopes() -> None:
    """Every contract, fixture, context and request id, twice over, on eight threads."""
    contracts = {path: toolguard.load_contract(path) for path in CONTRACTS}
    count = 2 * len(CASES)
    alone = [_answer(contracts, number) for number in range(count)]
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # threads change hands often: the interleavings are many
    try:
        together = _together(count, lambda number: _answer(contracts, number))
    finally:
        sys.setswitchinterval(switch)
    assert together == alone
    assert gc.isenabled()


def test_one_server_answers_concurrent_lines_as_it_answers_them_one_by_one() -> None:
    """`Server.handle` shared by eight threads: each line gets the line it gets alone."""
    served = [path for path in CONTRACTS if path.name == "contract.toml"][:3]  # one per tool
    server = Server([toolguard.load_contract(path) for path in served])
    lines = [
        json.dumps(
            {
                "contract": str(path),
                "raw": raw.decode("latin-1"),
                "context": context,
                "now": NOW,
                "request_id": f"req.served.{number:04d}",  # else a random one
            }
        ).encode()
        for number, (path, raw, context) in enumerate(CASES)
        if path in served and raw is not LARGE
    ] + [b"not json", b'{"contract": "nobody", "raw": ""}', b"{}"]
    alone = [server.handle(line).line for line in lines]
    together = _together(2 * len(lines), lambda number: server.handle(lines[number % len(lines)]))
    assert [answer.line for answer in together] == alone * 2


def _state() -> dict[str, Any]:
    """What a library call must leave as it was in its host."""
    umask = os.umask(0o077)
    os.umask(umask)
    return {
        "handlers": {number: signal.getsignal(number) for number in signal.Signals},
        "blocked": signal.pthread_sigmask(signal.SIG_BLOCK, []),
        "collector": (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count()),
        "recursion": sys.getrecursionlimit(),
        "cwd": Path.cwd(),
        "umask": umask,
        "warnings": list(warnings.filters),
        "switch": sys.getswitchinterval(),
        "digits": sys.get_int_max_str_digits(),
        "hooks": (sys.excepthook, threading.excepthook, sys.gettrace(), sys.getprofile()),
    }


def _library_calls() -> None:
    """Each entry point for Python callers, on good and bad input."""
    for path in CONTRACTS:
        contract = toolguard.load_contract(path)
        context = json.loads((path.parent / "context.json").read_text())
        for raw in (b"{}", b"nope"):
            toolguard.check(contract, raw, context=context, now=NOW)
        server = Server([contract])
        for line in (
            b"x",
            b'{"raw": "{}"}',
            json.dumps({"raw": "{}", "context": context}).encode(),
        ):
            server.handle(line)
    toolguard.check(contract, LARGE, context=context, now=NOW)
    validator = toolguard.compile_schema({"type": "object", "patternProperties": {"[[a]": {}}})
    validator.is_valid({"a": 1})
    with pytest.raises(toolguard.ContractError):
        toolguard.load_contract(REPO / "no such contract.toml")


def test_library_calls_from_a_thread_leave_the_host_as_it_was(
    capfd: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A host with its own SIGTERM handler calls toolguard from a thread, then gets SIGTERM.

    No handler, mask, collector setting or other global is changed, nothing is written on
    stdout or stderr, nothing is logged (a warning would fail the test: `filterwarnings`), and
    the host's handler is the one that runs.
    """
    caplog.set_level(logging.DEBUG)
    received: list[int] = []
    previous = signal.signal(signal.SIGTERM, lambda number, frame: received.append(number))
    try:
        before = _state()
        worker = threading.Thread(target=_library_calls)
        worker.start()
        worker.join(WAIT)
        _library_calls()  # and from the main thread
        assert _state() == before
        assert capfd.readouterr() == ("", "")
        assert caplog.records == []
        os.kill(os.getpid(), signal.SIGTERM)
        signal.pthread_sigmask(signal.SIG_BLOCK, [])  # NOTE: a call: pending handlers run
        assert received == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, previous)


def _load_all(start: Any) -> list[str]:
    start.wait(WAIT)
    contracts = [toolguard.load_contract(path) for path in CONTRACTS]
    return [json.dumps(contract.digest) for contract in contracts]


def _load_in_child(start: Any, answers: Any) -> None:
    answers.put(_load_all(start))


def test_cold_loads_at_once_from_threads_and_forks_fill_one_intact_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four threads, then four forked processes, load every contract into an empty cache."""
    toolguard.schema._metaschema()
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", "")
    expected = [json.dumps(toolguard.load_contract(path).digest) for path in CONTRACTS]
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(tmp_path / "threads"))
    start = threading.Barrier(4)
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(lambda _: _load_all(start), range(4))) == [expected] * 4
    monkeypatch.setenv("TOOLGUARD_CACHE_DIR", str(tmp_path / "forks"))
    fork = multiprocessing.get_context("fork")
    barrier, answers = fork.Barrier(4), fork.Queue()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12+: fork with threads about
        children = [fork.Process(target=_load_in_child, args=(barrier, answers)) for _ in range(4)]
        for child in children:
            child.start()
    assert [answers.get(timeout=WAIT) for _ in children] == [expected] * 4
    for child in children:
        child.join(WAIT)
        assert child.exitcode == 0
    for folder in ("threads", "forks"):
        entries = sorted((tmp_path / folder).iterdir())
        assert entries, folder
        for entry in entries:
            assert entry.suffix == ".bin", entry.name  # no temporary left behind
            blob = entry.read_bytes()
            assert hashlib.sha256(blob[32:]).digest() == blob[:32], entry.name
