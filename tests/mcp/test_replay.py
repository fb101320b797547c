"""`mcp.replay`: the lines whose verdict was never the contract's are told, not replayed.

The replay of every verdict the relay gives is tested end to end in
`tests/cli/test_mcp_recheck.py`, from a real session's audit trail.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from toolguard.contract import load_contract
from toolguard.errors import UsageError
from toolguard.mcp.replay import replay
from toolguard.request import make_request

PROBE = Path(__file__).resolve().parents[1] / "data" / "mcp" / "probe" / "contract.toml"


@pytest.mark.parametrize(
    ("line", "why"),
    [
        (b'[{"jsonrpc":"2.0","id":1,"result":{}}]\n', "named no call"),
        (b'{"jsonrpc":"2.0","result":{"n":NaN}}\n', "named no call"),
        (b'{"jsonrpc":"2.0","id":1,"method":"ping"}\n', "not the call's answer"),
        (b'{"jsonrpc":"2.0","id":1,"result":{"resultType":"input_required"}}\n', "input_required"),
    ],
    ids=["batch", "unreadable_without_id", "request", "input_required"],
)
def test_a_line_whose_verdict_was_not_the_contracts_is_not_replayed(line: bytes, why: str) -> None:
    """A line that failed every call in flight, that answers nothing, or an interim answer
    (what `mcp` made of it depends on what the record does not keep): a usage error saying so."""
    contract = load_contract(PROBE)
    request = make_request("req.replay.0001", {"zone": "UTC"}, None)
    with pytest.raises(UsageError, match=why):
        replay(contract, request, line)
