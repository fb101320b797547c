"""A command whose descendant leaves its process group, records its pid, and would outlive it.

    python leave_group.py PIDFILE MODE AFTER

MODE: `setsid` (a grandchild in a session of its own, holding the stdout pipe), `setpgid` (a
grandchild in a group of its own), `double-fork` (a daemon: setsid, fork again, the middle
process exits, stdio on /dev/null). The command prints a run_probe answer once the pid file
exists, then exits (AFTER `exit`) or sleeps (AFTER `hang`, for a timeout).
"""

import json
import os
import sys
import time
from pathlib import Path

pidfile, mode, after = Path(sys.argv[1]), sys.argv[2], sys.argv[3]

if os.fork() == 0:
    if mode == "setsid":
        os.setsid()
    elif mode == "setpgid":
        os.setpgid(0, 0)
    elif mode == "double-fork":
        os.setsid()
        if os.fork() != 0:
            os._exit(0)
        devnull = os.open(os.devnull, os.O_RDWR)
        for stream in (0, 1, 2):
            os.dup2(devnull, stream)
    written = pidfile.with_suffix(".tmp")
    written.write_text(str(os.getpid()))
    written.replace(pidfile)
    time.sleep(60)
    os._exit(0)
while not pidfile.exists():
    time.sleep(0.005)
print(json.dumps({"env": {}}), flush=True)
if after == "hang":
    time.sleep(60)
