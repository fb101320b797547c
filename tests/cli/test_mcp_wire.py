"""`toolguard mcp` under a raw line client: what no SDK client sends, and how sessions end.

Duplicate members, batches and the 2025-11-25 `task` parameter cannot be sent through the SDK;
exit statuses and the server's environment need the process itself.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "mcp"
PROBE = DATA / "probe" / "contract.toml"
HOSTILE = [sys.executable, str(REPO / "tests" / "mcp" / "servers" / "hostile.py")]
INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "raw", "version": "1"},
    },
}
WAIT = 30.0


class RawClient:
    """`toolguard mcp ... -- SERVER` with pipes: lines in, lines out, stderr kept."""

    def __init__(
        self, *args: str | Path, server: list[str] = HOSTILE, env: dict[str, str] | None = None
    ) -> None:
        argv = [sys.executable, "-m", "toolguard", "mcp", *map(str, args), "--", *server]
        self.process = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=REPO,
            env=env if env is not None else dict(os.environ),
        )
        self.stderr = b""
        self._stderr = threading.Thread(target=self._read_stderr, daemon=True)
        self._stderr.start()

    def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        self.stderr = self.process.stderr.read()

    def send(self, line: bytes | dict[str, Any]) -> None:
        assert self.process.stdin is not None
        data = line if isinstance(line, bytes) else json.dumps(line).encode() + b"\n"
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def receive(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line, f"no answer; stderr: {self.stderr!r}"
        message: dict[str, Any] = json.loads(line)
        return message

    def initialize(self) -> dict[str, Any]:
        self.send(INITIALIZE)
        return self.receive()

    def close(self) -> int:
        """Close toolguard's stdin; its status once it exited (what it still wrote: `rest`)."""
        process = self.process
        assert process.stdin is not None
        assert process.stdout is not None
        assert process.stderr is not None
        process.stdin.close()
        self.rest = process.stdout.read()
        status = process.wait(WAIT)
        self._stderr.join(WAIT)
        process.stdout.close()
        process.stderr.close()
        return status


def call(request_id: Any, arguments: dict[str, Any], **params: Any) -> dict[str, Any]:
    body = {"name": "probe", "arguments": arguments, **params}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tools/call", "params": body}


def test_a_request_with_duplicate_members_is_refused_and_never_forwarded() -> None:
    """Two "name" members could route toolguard and the server apart: -32600, with the id."""
    client = RawClient("--contract", PROBE)
    client.initialize()
    client.send(
        b'{"jsonrpc":"2.0","id":7,"method":"tools/call","params":'
        b'{"name":"probe","name":"other","arguments":{"zone":"UTC"}}}\n'
    )
    answer = client.receive()
    assert answer["id"] == 7
    assert answer["error"]["code"] == -32600
    client.send(call(8, {"zone": "UTC"}))
    assert client.receive()["id"] == 8  # the session goes on; the refused call never left
    assert client.close() == 0
    assert b"duplicate member" in client.stderr


def test_a_batch_is_refused() -> None:
    """A JSON-RPC batch (an array) is answered with -32600 and id null; nothing is forwarded."""
    client = RawClient("--contract", PROBE)
    client.initialize()
    client.send([call(1, {"zone": "UTC"}), call(2, {"zone": "UTC"})])  # type: ignore[arg-type]
    answer = client.receive()
    assert (answer["id"], answer["error"]["code"]) == (None, -32600)
    assert client.close() == 0


def test_a_line_that_is_not_json_gets_a_parse_error() -> None:
    """Not JSON at all: -32700, id null."""
    client = RawClient("--contract", PROBE)
    client.send(b"hello\n")
    answer = client.receive()
    assert (answer["id"], answer["error"]["code"]) == (None, -32700)
    assert client.close() == 0


def test_a_task_augmented_call_is_refused() -> None:
    """2025-11-25's `task` parameter: the result would come back around the check: refused."""
    client = RawClient("--contract", PROBE)
    client.initialize()
    client.send(call(3, {"zone": "UTC"}, task={"ttl": 60000}))
    answer = client.receive()
    assert (answer["id"], answer["error"]["code"]) == (3, -32601)
    client.send({"jsonrpc": "2.0", "id": 4, "method": "tasks/result", "params": {"taskId": "t-1"}})
    assert client.receive()["error"]["code"] == -32601
    assert client.close() == 0


def test_the_server_gets_the_clients_environment_less_toolguards_own() -> None:
    """Credentials the client passes reach the server; TOOLGUARD_* settings do not."""
    env = {**os.environ, "SERVER_TOKEN": "for-the-server", "TOOLGUARD_AUDIT_KEY": "/nowhere"}
    client = RawClient("--contract", PROBE, env=env)
    client.initialize()
    client.send(call(5, {"zone": "UTC", "mode": "env"}))
    data = json.loads(client.receive()["result"]["content"][0]["text"])["data"]
    assert data == {"zone": "UTC", "n": 1}  # SERVER_TOKEN seen, no TOOLGUARD_* variable
    assert client.close() == 0


def test_client_eof_ends_the_session_with_status_0() -> None:
    """The client closes its side: the server's stdin is closed; toolguard exits 0."""
    client = RawClient("--contract", PROBE)
    client.initialize()
    assert client.close() == 0


def test_a_server_crash_ends_the_session_with_status_5() -> None:
    """The server exits 3 mid-call: the call fails (retryable), then toolguard exits 5."""
    client = RawClient("--contract", PROBE)
    client.initialize()
    client.send(call(9, {"zone": "UTC", "mode": "crash"}))
    answer = client.receive()
    assert answer["result"]["structuredContent"]["error"] == {
        "code": "UPSTREAM_UNAVAILABLE",
        "retryable": True,
    }
    assert client.close() == 5
    assert b"the server ended the session (status 3)" in client.stderr


def test_a_server_that_cannot_start_ends_with_status_5() -> None:
    """No such command: exit 5, and stderr says why."""
    client = RawClient("--contract", PROBE, server=["/nonexistent/mcp-server"])
    assert client.close() == 5
    assert b"cannot start the server" in client.stderr


@pytest.mark.parametrize(
    ("args", "status", "says"),
    [
        (
            ["--contract", PROBE, "--contract", PROBE],
            3,
            b"two contracts guard the server tool 'probe'",
        ),
        (["--contract", PROBE, "--allow-unguarded", "probe"], 2, b"--allow-unguarded names a tool"),
        ([], 2, b"at least one --contract"),
        (["--contract", DATA / "missing.toml"], 3, b"cannot read contract"),
        (
            ["--contract", PROBE, "--shut-channel", "resource"],
            2,
            b"--shut-channel: no such channel: resource (channels: resources, prompts, "
            b"completions, logging, progress, sampling, elicitation, all)",
        ),
    ],
    ids=["two contracts", "allow a guarded tool", "no contract", "missing contract", "channel"],
)
def test_set_up_errors_exit_before_the_server_starts(
    args: list[Any], status: int, says: bytes
) -> None:
    """A session that cannot be guarded is refused with its exit status, nothing on stdout."""
    client = RawClient(*args, server=[sys.executable, "-c", "raise SystemExit('server started')"])
    assert client.close() == status
    assert client.rest == b""
    assert says in client.stderr
    assert b"server started" not in client.stderr


@pytest.mark.parametrize(
    ("flags", "relayed"),
    [((), True), (("--shut-channel", "resources"), True), (("--shut-channel", "all"), False)],
)
def test_a_method_mcp_does_not_define_is_relayed_unless_all_channels_are_shut(
    flags: tuple[str, ...], relayed: bool
) -> None:
    """A vendor's request reaches the server (which answers it) unless `--shut-channel all`."""
    client = RawClient("--contract", PROBE, *flags)
    client.initialize()
    client.send({"jsonrpc": "2.0", "id": 5, "method": "vendor/secret", "params": {}})
    answer = client.receive()
    assert (answer["id"], answer["error"]["code"]) == (5, -32601)
    if relayed:
        assert answer["error"]["message"] == "no vendor/secret"  # the server's own answer
    else:
        assert "only the methods MCP defines (--shut-channel all)" in answer["error"]["message"]
    assert client.close() == 0


def test_options_after_the_command_belong_to_the_server() -> None:
    """Without `--`, what follows COMMAND is the server's, never toolguard's (no injection)."""
    argv = [
        sys.executable,
        "-m",
        "toolguard",
        "mcp",
        "--contract",
        str(PROBE),
        *HOSTILE,
        "--max-line-bytes",
        "0",
    ]
    done = subprocess.run(argv, input=b"", capture_output=True, cwd=REPO, timeout=WAIT, check=False)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP], ids=["SIGTERM", "SIGHUP"])
def test_sigterm_kills_the_servers_group_and_exits_130(signum: signal.Signals) -> None:
    """SIGTERM or SIGHUP to toolguard (a client stopping it): the server goes at once; exit 130."""
    client = RawClient("--contract", PROBE)
    client.initialize()
    client.send(call(1, {"zone": "UTC", "mode": "silent"}))
    children = Path(f"/proc/{client.process.pid}/task/{client.process.pid}/children")
    server = int(children.read_text().split()[0])
    client.process.send_signal(signum)
    assert client.process.wait(WAIT) == 130  # its stdin still open: the signal ended it
    client.close()
    for _ in range(100):
        stat = Path(f"/proc/{server}/stat")
        if not stat.exists() or stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            break
        time.sleep(0.05)
    else:
        raise AssertionError("the server outlived toolguard")


# 0: each side's reader sleeps at once; 1 s: it polls that long for every answer it is owed.
@pytest.mark.parametrize("busy_poll", ["0", "1000000"])
def test_guarded_calls_in_lock_step_are_answered_in_order_however_long_it_polls(
    busy_poll: str,
) -> None:
    client = RawClient("--contract", PROBE, "--busy-poll", busy_poll)
    assert client.initialize()["id"] == 0
    for request_id in range(1, 6):
        client.send(call(request_id, {"zone": "UTC"}))
        answer = client.receive()
        assert answer["id"] == request_id
        assert answer["result"]["isError"] is False
    assert client.close() == 0


def test_large_calls_and_large_answers_at_once_never_stall_the_relay() -> None:
    """Megabytes both ways: a server writing an answer reads no request meanwhile.

    One thread relays both sides; had it waited to write the next call to the server while
    the server waited to write its answer, neither would move again.
    """
    client = RawClient("--contract", PROBE)
    assert client.initialize()["id"] == 0
    calls = [call(n, {"zone": "UTC", "mode": "big", "filler": "f" * (2 << 20)}) for n in (1, 2, 3)]
    sender = threading.Thread(target=lambda: [client.send(each) for each in calls], daemon=True)
    answers: list[dict[str, Any]] = []
    receiver = threading.Thread(
        target=lambda: answers.extend(client.receive() for _ in calls), daemon=True
    )
    sender.start()
    receiver.start()
    receiver.join(WAIT)
    if receiver.is_alive():
        client.process.kill()  # its server goes once its output has no reader
        raise AssertionError("the relay stalled")
    assert [answer["id"] for answer in answers] == [1, 2, 3]
    assert all(answer["result"]["isError"] for answer in answers)  # too large for the contract
    assert client.close() == 0


def test_a_client_answering_a_flood_of_server_requests_one_by_one_is_always_read() -> None:
    """Megabytes of server requests wait for the client while it writes its answers.

    A client that reads a request, then writes its answer, blocks on that write if toolguard
    stopped reading it because its own answers pile up: neither side would move again.
    """
    asking = [sys.executable, str(REPO / "tests" / "mcp" / "servers" / "asking.py"), "2000"]
    client = RawClient("--contract", PROBE, server=asking)
    assert client.initialize()["id"] == 0
    done = threading.Event()

    def answer_each() -> None:
        while True:
            message = client.receive()
            if message.get("method") == "notifications/message":
                done.set()
                return
            reply = {"role": "assistant", "model": "m", "content": {"type": "text", "text": "a"}}
            client.send(
                {"jsonrpc": "2.0", "id": message["id"], "result": reply | {"x": "a" * 2000}}
            )

    threading.Thread(target=answer_each, daemon=True).start()
    if not done.wait(WAIT):
        client.process.kill()  # its server goes once its output has no reader
        raise AssertionError("the relay stalled")
    assert client.close() == 0


def test_a_client_that_closes_its_side_gets_every_answer_it_reads_later() -> None:
    """Calls, the end of the client's input, a pause, then the answers: none is lost.

    Far more answers than a pipe holds wait in toolguard once the server has gone; they are
    written for as long as the client keeps reading.
    """
    client = RawClient("--contract", PROBE)
    assert client.initialize()["id"] == 0
    process = client.process
    assert process.stdin is not None
    assert process.stdout is not None
    for request_id in range(1, 601):
        client.send(call(request_id, {"zone": "UTC"}))
    process.stdin.close()
    time.sleep(1.5)  # longer than toolguard's grace for the server's output
    answers = [json.loads(line) for line in process.stdout.read().splitlines()]
    assert [answer["id"] for answer in answers] == list(range(1, 601))
    assert not any(answer["result"]["isError"] for answer in answers)
    assert client.close() == 0


def test_the_busy_poll_flag_reaches_the_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """`mcp` polls for 100 us unless told otherwise (`session.Settings.busy_poll_us`)."""
    from click.testing import CliRunner  # noqa: PLC0415

    from toolguard.cli import respond  # noqa: PLC0415
    from toolguard.cli.app import cli  # noqa: PLC0415
    from toolguard.mcp import session  # noqa: PLC0415
    from toolguard.run import reaper  # noqa: PLC0415

    seen = []

    def recorded(**parts: Any) -> int:
        seen.append(parts["settings"].busy_poll_us)
        return 0

    def leave(status: int) -> None:
        raise SystemExit(status)

    monkeypatch.setattr(session, "run", recorded)
    monkeypatch.setattr(respond, "leave", leave)
    # NOTE: not in the test process: a subreaper's sweep would end other tests' children.
    monkeypatch.setattr(reaper, "become_subreaper", lambda: None)
    for flag, window in (([], 100), (["--busy-poll", "40"], 40)):
        done = CliRunner().invoke(cli, ["mcp", "--contract", str(PROBE), *flag, "--", "server"])
        assert done.exit_code == 0, done.output
        assert seen.pop() == window


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs /dev/full")
def test_a_failing_stdout_ends_the_session_and_says_what_it_met() -> None:
    """Stdout on a full disk: the session ends, stderr says why, and the status is 4 as for
    `check` and `serve` (a client that leaves ends it with 0: no client left here)."""
    argv = [sys.executable, "-m", "toolguard", "mcp", "--contract", str(PROBE), "--", *HOSTILE]
    with Path("/dev/full").open("wb") as full:
        done = subprocess.run(
            argv, input=json.dumps(INITIALIZE).encode() + b"\n", stdout=full,
            stderr=subprocess.PIPE, cwd=REPO, check=False, timeout=WAIT,
        )  # fmt: skip
    assert done.returncode == 4, done.stderr
    assert b"stdout failed (No space left on device)" in done.stderr
    assert b"Traceback" not in done.stderr
