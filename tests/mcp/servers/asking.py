"""An MCP server that asks: after `initialize`, it sends COUNT `sampling/createMessage`
requests of about 2 KB as fast as it can, while another thread reads the client's answers,
slowly (4 KB every 2 ms). Once every request is answered it says so
(`notifications/message`, "all answered").

Far more than a pipe holds is then in flight both ways: a relay must keep reading the client
(writing its answers) while more of the server's requests wait for the client.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from collections.abc import Iterator

COUNT = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
out = sys.stdout.buffer
lock = threading.Lock()
initialized = threading.Event()


def send(message: dict[str, object]) -> None:
    with lock:
        out.write(json.dumps(message).encode() + b"\n")
        out.flush()


def lines() -> Iterator[bytes]:
    buffer = b""
    while chunk := os.read(0, 4096):
        buffer += chunk
        *complete, buffer = buffer.split(b"\n")
        yield from complete
        if initialized.is_set():
            time.sleep(0.002)


def read() -> None:
    answered: set[object] = set()
    for line in lines():
        message = json.loads(line)
        if message.get("method") == "initialize":
            result = {
                "protocolVersion": message["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "asking", "version": "1"},
            }
            send({"jsonrpc": "2.0", "id": message["id"], "result": result})
            initialized.set()
        elif "result" in message:
            answered.add(message["id"])
            if len(answered) == COUNT:
                params = {"level": "info", "data": "all answered"}
                send({"jsonrpc": "2.0", "method": "notifications/message", "params": params})


threading.Thread(target=read, daemon=True).start()
initialized.wait()
for number in range(COUNT):
    content = {"type": "text", "text": "q" * 2000}
    params = {"messages": [{"role": "user", "content": content}], "maxTokens": 10}
    send(
        {
            "jsonrpc": "2.0",
            "id": f"ask-{number}",
            "method": "sampling/createMessage",
            "params": params,
        }
    )
threading.Event().wait()  # until the client goes
