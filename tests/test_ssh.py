"""`toolguard run` over real SSH: a throwaway sshd on 127.0.0.1, keys in a temporary folder.

`.ci/run` installs OpenSSH server from the distribution; where `sshd` is absent these tests
skip with the reason. The remote command is the deploy_status example's stand-in upstream,
run through ssh on this same machine.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, RunToolguard

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
CONTRACT = REPO / "examples" / "deploy_status" / "contract.toml"
UPSTREAM = REPO / "examples" / "deploy_status" / "upstream.py"
pytestmark = pytest.mark.skipif(
    not Path(SSHD).is_file() or shutil.which("ssh") is None or shutil.which("ssh-keygen") is None,
    reason="OpenSSH server/client not installed (apt-get install openssh-server openssh-client)",
)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def keygen(path: Path) -> None:
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(path)],
        check=True,
    )


@pytest.fixture(scope="module")
def sshd(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[int, Path]]:
    """A private sshd accepting only a throwaway user key; yields (port, key file)."""
    folder = tmp_path_factory.mktemp("sshd")
    keygen(folder / "host_key")
    keygen(folder / "user_key")
    shutil.copy(folder / "user_key.pub", folder / "authorized_keys")
    port = free_port()
    (folder / "sshd_config").write_text(
        f"Port {port}\nListenAddress 127.0.0.1\nHostKey {folder}/host_key\n"
        f"AuthorizedKeysFile {folder}/authorized_keys\nPidFile {folder}/sshd.pid\n"
        "PasswordAuthentication no\nKbdInteractiveAuthentication no\nPubkeyAuthentication yes\n"
        "PermitRootLogin prohibit-password\nStrictModes no\nUsePAM no\nLogLevel ERROR\n"
    )
    if os.geteuid() == 0:
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)  # privilege separation directory
    server = subprocess.Popen(
        [SSHD, "-D", "-e", "-f", str(folder / "sshd_config")],
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if server.poll() is not None:
                error = server.stderr.read().decode(errors="replace") if server.stderr else ""
                pytest.skip(f"sshd could not start here: {error.strip()}")
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        else:
            pytest.fail("sshd did not listen within 10 s")
        yield port, folder / "user_key"
    finally:
        server.terminate()
        try:
            server.wait(timeout=5)
        except subprocess.TimeoutExpired:
            server.kill()
            server.wait()
        if server.stderr is not None:
            server.stderr.close()


def ssh(port: int, key: Path, *remote: str) -> list[str]:
    """An ssh argv that trusts nothing from the user's own configuration."""
    return [
        "ssh", "-F", "/dev/null", "-p", str(port), "-i", str(key), "-o", "IdentitiesOnly=yes",
        "-o", "BatchMode=yes", "-o", "StrictHostKeyChecking=no",
        "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", "-o", "ConnectTimeout=5",
        f"{getpass.getuser()}@127.0.0.1", *remote,
    ]  # fmt: skip


def run(run_toolguard: RunToolguard, argv: list[str]) -> tuple[int, Any, dict[str, Any]]:
    done = run_toolguard(
        "run", CONTRACT, "--context", "environment=staging", "--request-id", "req.ssh.000001",
        "--diagnostics", "json", "--", *argv,
    )  # fmt: skip
    return done.status, done.envelope(), done.diagnostics()


def test_answer_over_ssh_is_accepted(run_toolguard: RunToolguard, sshd: tuple[int, Path]) -> None:
    """A remote command that prints the expected JSON gives a success envelope."""
    port, key = sshd
    status, envelope, _ = run(run_toolguard, ssh(port, key, sys.executable, str(UPSTREAM)))
    assert status == 0
    assert envelope["outcome"] == "success"
    assert envelope["data"] == {"environment": "staging", "revision": "a83f19c", "state": "healthy"}


def test_banner_before_the_json_is_rejected(
    run_toolguard: RunToolguard, sshd: tuple[int, Path]
) -> None:
    """A login banner printed before the JSON makes the whole answer INVALID_RESPONSE."""
    port, key = sshd
    argv = ssh(port, key, sys.executable, str(UPSTREAM), "--banner")
    status, envelope, diagnostics = run(run_toolguard, argv)
    assert status == 1
    assert envelope["error"] == {"code": "INVALID_RESPONSE", "retryable": False}
    assert diagnostics["layer"] == "parse"
    assert "Welcome" not in str(envelope)


def test_refused_connection_is_unavailable_and_retryable(
    run_toolguard: RunToolguard, sshd: tuple[int, Path]
) -> None:
    """ssh exits 255 when nothing listens: UPSTREAM_UNAVAILABLE, retried, still retryable."""
    _, key = sshd
    status, envelope, diagnostics = run(run_toolguard, ssh(free_port(), key, "true"))
    assert status == 1
    assert envelope["error"] == {"code": "UPSTREAM_UNAVAILABLE", "retryable": True}
    attempts = diagnostics["attempts"]
    assert isinstance(attempts, list)
    assert [attempt["exit_status"] for attempt in attempts] == [255, 255, 255]
