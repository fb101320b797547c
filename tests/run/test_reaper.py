"""The sweep: a subreaper's children end, its spared ones stay; a library caller is never swept.

The subreaper setting is process-wide and lasts, so each sweep runs in a Python of its own;
the pytest process itself never becomes one.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from toolguard.run import reaper
from toolguard.run.spawn import run_command

linux_only = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="a subreaper is Linux-only"
)

# In its own interpreter: become a subreaper, start a spared child, a child run through a
# program named "odd) (name", and a chain whose middle exits and whose end left the group;
# sweep, sparing the first; report what is still alive.
SWEEPER = r"""
import json, os, subprocess, sys, time
from toolguard.run import reaper

odd = os.path.join(sys.argv[1], "odd) (name")
os.symlink("/bin/sleep", odd)
subreaper = reaper.become_subreaper()
spared = subprocess.Popen(["/bin/sleep", "60"])
named = subprocess.Popen([odd, "60"])
chain = subprocess.Popen([sys.executable, "-I", "-c",
    "import os, time\n"
    "if os.fork() == 0:\n"
    "    os.setsid()\n"
    "    if os.fork() == 0:\n"
    "        print(os.getpid(), flush=True); time.sleep(60)\n"
    "    time.sleep(60)\n"
    "os._exit(0)\n"], stdout=subprocess.PIPE)
deep = int(chain.stdout.readline())
chain.wait()
ended = reaper.sweep(spare={spared.pid})
alive = []
for pid in (spared.pid, named.pid, deep):
    try:
        os.kill(pid, 0)
        alive.append(pid)
    except ProcessLookupError:
        pass
print(json.dumps({"subreaper": subreaper, "ended": ended, "alive": alive,
                  "spared": spared.pid, "named": named.pid, "deep": deep}))
spared.kill()
spared.wait()
"""


@linux_only
def test_sweep_ends_every_child_but_the_spared(tmp_path: Path) -> None:
    """Orphans of any depth, odd names included, are killed and reaped; spared children stay."""
    done = subprocess.run(
        [sys.executable, "-c", SWEEPER, str(tmp_path)],
        capture_output=True,
        check=True,
        timeout=30,
    )
    report = json.loads(done.stdout)
    assert report["subreaper"] is True
    assert report["alive"] == [report["spared"]]
    assert report["ended"] >= 3  # the named child, the setsid()'d one, the deepest one


def test_a_library_caller_keeps_its_own_children() -> None:
    """Without the CLI's become_subreaper, running a command never touches the caller's children."""
    with subprocess.Popen(["/bin/sleep", "60"]) as mine:
        try:
            attempt = run_command(
                ["/bin/true"], max_bytes=1024, timeout=5, env={"PATH": os.defpath}
            )
            assert attempt.exit_status == 0
            assert reaper.sweep() == 0
            assert mine.poll() is None, "the caller's own child was ended"
        finally:
            mine.send_signal(signal.SIGKILL)
