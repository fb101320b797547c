"""session.py: the session's clock (what `_look` decides), beyond what a whole session shows."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

from toolguard.contract import load_contract
from toolguard.mcp.operator import OperatorChannel
from toolguard.mcp.relay import Options
from toolguard.mcp.session import DRAIN_GRACE, _Session, guards

PROBE = Path(__file__).resolve().parents[1] / "data" / "mcp" / "probe" / "contract.toml"


def test_a_server_gone_is_waited_for_while_the_client_still_reads_what_it_sent() -> None:
    """Its output is not read while the client lags: the grace runs from the client's last read.

    Otherwise answers still in the exited server's pipe would be failed as lost.
    """
    child = subprocess.Popen(
        [sys.executable, "-c", "pass"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    child.wait(30)
    by_tool, listed = guards([load_contract(PROBE)], None, ())
    read, write = os.pipe()
    operator = OperatorChannel(io.StringIO(), "rich")
    with os.fdopen(write, "wb") as client_out:
        session = _Session(child, by_tool, Options(listed=listed), client_out, operator)
        session.to_client.write(b"a" * (3 << 20) + b"\n")  # far behind: the server is not read
        assert session.to_client.full
        start = 1000.0
        session._look(start)  # the server has exited
        os.read(read, 1 << 16)  # the client reads a little
        session.to_client.flush()
        session._look(start + DRAIN_GRACE * 0.8)
        session._look(start + DRAIN_GRACE * 1.6)  # no read since, but within the grace
        assert not session.relay.done
        session._look(start + DRAIN_GRACE * 2)  # a whole grace without a read
        assert session.relay.done
    os.close(read)
    for stream in (child.stdin, child.stdout, child.stderr):
        assert stream is not None
        stream.close()
    operator.close()
