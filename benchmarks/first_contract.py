"""docs/first-contract.md, timed: every command of the walk, in order, in a new folder.

Runs the installed `toolguard` (the one beside this Python) as a newcomer would, with the
walk's edits made between commands, and prints each command's wall clock and exit status,
then the total. The virtual environment is made beforehand and not counted; reading and
editing time is a person's, not measured here.

    .venv/bin/python benchmarks/first_contract.py
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path

BIN = Path(sys.executable).parent
TICKET = """{
  "ticketId": "TCK-4821",
  "status": "open",
  "summary": "Cannot download the March invoice.",
  "assignee": "ada@example.com",
  "internal_notes": "customer is on the legacy plan",
  "updated_at": "2026-03-14T09:12:44Z"
}
"""
ANSWER = '{"id": "%s", "state": "failed", "observed_at": "2026-03-14T09:28:00Z"}'
CHECK = (
    "echo '%s' | toolguard check ticket_status/contract.toml --context id=item-1042 "
    "--now 2026-03-14T09:30:00Z --request-id req.walk.%s"
)


def edit_the_draft(folder: Path) -> None:
    """Step 3: keep what the agent needs, pin the values, turn the request rule on."""
    schema = folder / "tickets" / "response.schema.json"
    text = schema.read_text(encoding="utf-8")
    text = re.sub(
        r'    "ticketId": \{.*?\n    "summary"',
        '    "ticketId": {"type": "string", "pattern": "^TCK-[0-9]{1,10}$"},\n'
        '    "status": {"enum": ["open", "pending", "closed"]},\n    "summary"',
        text,
        flags=re.DOTALL,
    )
    schema.write_text(text, encoding="utf-8")
    contract = folder / "tickets" / "contract.toml"
    lines = contract.read_text(encoding="utf-8").splitlines()
    start = next(i for i, line in enumerate(lines) if "is /ticketId what" in line)
    for index in range(start, start + 5):
        lines[index] = lines[index].removeprefix("# ")
    kept = [line for line in lines if not line.startswith(("assignee =", "internal_notes ="))]
    contract.write_text("\n".join(kept) + "\n", encoding="utf-8")
    (folder / "tickets" / "context.json").write_text('{"ticket_id": "TCK-4821"}\n')


def add_a_near_miss(folder: Path) -> None:
    """Step 3: the same answer about another ticket, refused by the rule."""
    reject = folder / "tickets" / "fixtures" / "reject"
    (reject / "wrong_ticket.json").write_text(TICKET.replace("TCK-4821", "TCK-4822"))
    (reject / "wrong_ticket.expect.toml").write_text(
        'code = "INVALID_RESPONSE"\nlayer = "rule"\n'
        'rule = "ticket_id_matches_request"\nreason = "mismatch"\n'
    )


def commit_and_drop_pending(folder: Path) -> None:
    """Step 4: commit, then drop a status from the enum."""
    git = ["git", "-C", str(folder), "-c", "user.name=t", "-c", "user.email=t@example.com"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "contracts"]):
        subprocess.run([*git, *args], check=True, capture_output=True)
    schema = folder / "tickets" / "response.schema.json"
    text = schema.read_text(encoding="utf-8").replace(
        '"open", "pending", "closed"', '"open", "closed"'
    )
    schema.write_text(text, encoding="utf-8")


def bump_the_major_version(folder: Path) -> None:
    contract = folder / "tickets" / "contract.toml"
    text = contract.read_text(encoding="utf-8").replace('version = "0.1.0"', 'version = "1.0.0"')
    contract.write_text(text, encoding="utf-8")


WALK: list[str | Callable[[Path], None]] = [
    "toolguard init ticket_status",
    "toolguard test ticket_status",
    "toolguard lint ticket_status/contract.toml",
    CHECK % (ANSWER % "item-1042", "0001"),
    CHECK % (ANSWER % "item-1043", "0002"),
    lambda folder: (folder / "ticket.json").write_text(TICKET),
    "toolguard init tickets --from ticket.json",
    "cat tickets/contract.toml",
    "toolguard test tickets",
    "toolguard lint tickets/contract.toml",
    edit_the_draft,
    "toolguard test tickets",
    "toolguard test tickets --update | tail -1",
    add_a_near_miss,
    "toolguard test tickets",
    "toolguard lint tickets/contract.toml",
    commit_and_drop_pending,
    "toolguard diff --against HEAD tickets/contract.toml",
    bump_the_major_version,
    "toolguard diff --against HEAD tickets/contract.toml | tail -1",
]


def walk(
    folder: Path, env: dict[str, str]
) -> Iterator[tuple[str, subprocess.CompletedProcess[bytes], float]]:
    """Each command of the walk run in `folder`, the edits made between them, with its time.

    tests/test_docs.py runs it too: what each command prints is what the page shows.
    """
    for step in WALK:
        if callable(step):
            step(folder)
            continue
        started = time.perf_counter()
        done = subprocess.run(
            step, shell=True, cwd=folder, env=env, capture_output=True, check=False
        )
        yield step, done, time.perf_counter() - started


def environment(private: Path) -> dict[str, str]:
    """The installed `toolguard` first on PATH, a cold compile cache, a 120-column terminal."""
    return {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ['PATH']}",
        "TOOLGUARD_CACHE_DIR": str(private / "cache"),  # a newcomer's cold cache
        "COLUMNS": "120",
    }


def main() -> None:
    total = 0.0
    with tempfile.TemporaryDirectory() as private:
        folder = Path(private, "walk")
        folder.mkdir()
        for step, done, elapsed in walk(folder, environment(Path(private))):
            total += elapsed
            print(f"{elapsed:6.2f} s  exit {done.returncode}  {step[:80]}")
    commands = sum(isinstance(step, str) for step in WALK)
    print(f"{total:6.2f} s  in all, {commands} commands ({total / commands:.2f} s each on average)")


if __name__ == "__main__":
    main()
