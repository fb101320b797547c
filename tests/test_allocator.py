"""Large buffers go back to the system once freed (`toolguard.allocator`)."""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

import pytest

from toolguard import allocator
from toolguard.allocator import return_large_blocks

GLIBC = sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"
# Reads the same large document three times in one process (`json.loads`, or toolguard's
# `parse`); prints the process's peak RSS in KiB.
READ_THRICE = """
import json, resource, sys
from toolguard.limits import Limits
from toolguard.parse import parse
raw = open(sys.argv[1], "rb").read()
limits = Limits(max_bytes=1 << 26, max_container_items=1 << 20)
read = json.loads if sys.argv[2] == "json.loads" else (lambda raw: parse(raw, limits))
for _ in range(3):
    read(raw)
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""


# NOTE: a child's peak RSS starts at its parent's (fork), and pytest's process is large: the
# reader is started by a small Python process of its own.
LAUNCH = "import subprocess, sys; subprocess.run(sys.argv[1:], check=True)"


def peak_kib(document: Path, reader: str, **env: str) -> int:
    """The peak RSS of a fresh process reading `document` three times with `reader`."""
    command = [sys.executable, "-c", LAUNCH, sys.executable, "-c", READ_THRICE]
    command += [str(document), reader]
    environment = {**os.environ, **env}
    run = subprocess.run(command, capture_output=True, text=True, check=True, env=environment)
    return int(run.stdout)


def test_the_threshold_is_set_once_and_answers_the_same() -> None:
    """A second call changes nothing and says what the first said (True on glibc)."""
    first = return_large_blocks()
    assert return_large_blocks() is first
    if GLIBC:
        assert first is True


@pytest.mark.skipif(not GLIBC, reason="glibc's dynamic mmap threshold only")
def test_parsing_a_large_document_repeatedly_peaks_where_json_loads_does(tmp_path: Path) -> None:
    """Three parses of a 12 MB document in one process peak within half its size of json.loads.

    (glibc's dynamic threshold made the later parses' buffers heap pages that stay resident:
    about three times the document's size more.)
    """
    records = [
        {"name": f"chloé 李雷 {i}", "note": 'a "b" \\ c', "n": i / 7} for i in range(150_000)
    ]
    document = tmp_path / "large.json"
    document.write_text(json.dumps(records, ensure_ascii=False), encoding="utf-8")
    size_kib = document.stat().st_size // 1024
    # NOTE: json.loads's own peak varies with the same heuristic: its process gets glibc's
    # threshold pinned from the start (the environment variable), the floor to compare with.
    floor = peak_kib(document, "json.loads", MALLOC_MMAP_THRESHOLD_=str(128 * 1024))
    added = peak_kib(document, "parse") - floor
    assert added < size_kib // 2, (added, size_kib)


def test_trimming_the_heap_is_harmless_anywhere(monkeypatch: pytest.MonkeyPatch) -> None:
    """`trim_heap` may run at any time, twice, and does nothing where `malloc_trim` is missing."""
    allocator.trim_heap()
    allocator.trim_heap()
    monkeypatch.setattr(allocator, "_malloc_trim", lambda: None)
    allocator.trim_heap()
