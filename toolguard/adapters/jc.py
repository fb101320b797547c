"""A jc parser as the text adapter (`toolguard[jc]`), held to toolguard's fail-closed rules.

jc fails open, always with exit status 0: on garbage its `df`, `ps` and `ls` parsers invent
records (the first line becomes the column names) and `ifconfig` returns `[]`. So nothing jc
says is trusted alone: the text must pass the same hygiene as the line adapter, an exception
or an empty result is a rejection, the result is re-read by the strict JSON parser within the
contract's limits, and the contract's closed schema must then reject invented records.

jc runs in a child interpreter with its memory and CPU time capped (`budget`): its table
parsers are super-linear on hostile text (`sparse_table_parse` doubles a line for each header
column it cannot find between two spaces: 38 bytes asked for gigabytes), and toolguard must
answer every input with bounded memory and time. Past a cap the answer is a rejection.

The child is toolguard's own business: it runs in its own session, so a signal sent to the
caller's process group (Ctrl-C, a supervisor's SIGTERM) reaches toolguard alone, which ends
as documented (`serve` writes the answer being computed; `check` ends the child), and it gets
no `TOOLGUARD_*` variable, nor (isolated: `_jc_folder`) a `PYTHON*` one. A child that did not
judge the text is not the response's fault: one that could not start (no descriptor or
process left, `ulimit -n`), that failed on its own before judging (its budget out of the
caller's reach, `ulimit -v`; an exit status it never gives) or that a signal its budget does
not send ended: toolguard could not check the response, an internal error, never a rejection.
"""

from __future__ import annotations

import importlib
import os
import signal
import subprocess
import sys
from typing import Any

from toolguard.adapters import Setting
from toolguard.adapters.lines import strict_text
from toolguard.errors import ContractError, LimitExceeded, MissingExtra, ParseError
from toolguard.frozen import frozen
from toolguard.limits import Limits
from toolguard.parse import parse
from toolguard.run.environment import without_toolguard
from toolguard.signals import signal_name

# What the child may spend: a fixed start plus so much per byte of text. Honest `df` output
# takes about 20 times the memory of its text and a millisecond or two per line.
MEMORY_BASE = 64 << 20
MEMORY_PER_BYTE = 64
CPU_BASE_SECONDS = 2
CPU_SECONDS_PER_MIB = 30
# The child reports by exit status; its stdout is the result (or jc's exception's name).
_FAILED, _NOT_JSON, _EMPTY, _TOO_LARGE, _OVER_BUDGET = 3, 4, 5, 6, 7
# How the budget itself ends the child: RLIMIT_CPU's soft and hard limits (SIGXCPU, SIGKILL),
# and an allocation under RLIMIT_AS that Python could not turn into a MemoryError (a crash).
_BUDGET_SIGNALS = frozenset({
    signal.SIGXCPU, signal.SIGKILL, signal.SIGSEGV, signal.SIGBUS, signal.SIGABRT
})  # fmt: skip
# NOTE: the child imports jc, never toolguard, and sets its own limits: `preexec_fn` is not
# safe in a process with threads (serve's, mcp's). It bounds its own output to `cap` bytes.
_CHILD = """
import json, resource, sys
parser, cap, memory, cpu = sys.argv[1], *map(int, sys.argv[2:5])
sys.path.append(sys.argv[5])
resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
try:
    import jc
    text = sys.stdin.buffer.read().decode("utf-8")
    try:
        result = jc.parse(parser, text, quiet=True)
    except MemoryError:
        raise
    except Exception as exc:
        sys.stdout.write(type(exc).__name__[:64])
        sys.exit(3)
    if not result or not isinstance(result, (list, dict)):
        sys.exit(5)
    try:
        encoded = json.dumps(result, allow_nan=False).encode()
    except (TypeError, ValueError):
        sys.exit(4)
    if len(encoded) > cap:
        sys.exit(6)
    sys.stdout.buffer.write(encoded)
except MemoryError:
    sys.exit(7)
"""


@frozen
class JcAdapter:
    """The contract's `[text] jc = "PARSER"`."""

    parser: str
    block: bool = False  # an MCP text block, last newline optional: set by `reading_text_blocks`

    @classmethod
    def load(cls, parser: str, source: str, *, need_library: bool = True) -> JcAdapter:
        """Refuse the contract now if jc or the parser is missing, not on the first answer.

        `need_library=False` (for lint) builds it without jc: the parser name goes unchecked.
        """
        try:
            jc = importlib.import_module("jc")
        except ImportError:
            if not need_library:
                return cls(parser)
            raise MissingExtra.needed_by(
                "[text] jc", "jc", source=source, field="text.jc"
            ) from None
        if parser not in jc.parser_mod_list():
            raise ContractError(f"jc has no parser {parser!r}", source=source, field="text.jc")
        return cls(parser)

    def describe(self) -> dict[str, str]:
        """What made the payload, for the audit record: jc's version and its parser's."""
        import jc  # noqa: PLC0415 - loaded already: `load` and every call import it

        info = jc.parser_info(self.parser) or {}
        return {
            "kind": "jc",
            "parser": f"{self.parser} {info.get('version', '?')}",
            "version": jc.__version__,
        }

    def settings(self) -> dict[str, Setting]:
        """The parser decides everything jc reads."""
        return {"jc": Setting(self.parser, "jc parser")}

    def __call__(self, raw: bytes, limits: Limits) -> dict[str, Any]:
        """The document jc makes of the text, or a `ParseError` / `LimitExceeded`."""
        text = strict_text(raw, block=self.block)
        encoded = _run_jc(self.parser, text.encode("utf-8"), limits)
        document = parse(encoded, limits)  # the same budgets as any JSON answer
        return {"records": document} if isinstance(document, list) else {"record": document}


def budget(size: int) -> tuple[int, int]:
    """The child's address-space bytes and CPU seconds for `size` bytes of text."""
    return (
        MEMORY_BASE + MEMORY_PER_BYTE * size,
        CPU_BASE_SECONDS + -(-CPU_SECONDS_PER_MIB * size // (1 << 20)),
    )


def _run_jc(parser: str, text: bytes, limits: Limits) -> bytes:
    """The JSON of what jc made of `text`, from a child held to `budget`, or a rejection."""
    memory, cpu = budget(len(text))
    numbers = (limits.max_bytes, memory, cpu)
    argv = [sys.executable, "-I", "-c", _CHILD, parser, *map(str, numbers), _jc_folder()]
    try:
        # NOTE: the wall-clock timeout only backs the CPU limit up (a child that sleeps).
        # `run` kills the child on any exception, a KeyboardInterrupt included: no orphan.
        child = subprocess.run(  # noqa: S603 - our own interpreter and code, no shell
            argv,
            input=text,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            timeout=4 * cpu + 5,
            check=False,
            env=without_toolguard(os.environ),
            start_new_session=True,
        )
    except subprocess.TimeoutExpired:
        raise ParseError("jc_over_budget", f"jc {parser} ran out of time") from None
    except OSError as exc:
        raise JcNotJudged(f"cannot start jc {parser}: {exc.strerror or exc}") from None
    status = child.returncode
    if status == 0:
        return child.stdout
    if status == _FAILED:
        name = child.stdout.decode("ascii", "replace")
        raise ParseError("jc_failed", f"jc {parser} could not read the output: it raised {name}")
    if status == _EMPTY:
        raise ParseError("jc_empty", f"jc {parser} found nothing in the output")
    if status == _NOT_JSON:
        raise ParseError("jc_not_json", f"jc {parser} returned non-JSON data")
    if status == _TOO_LARGE:
        raise LimitExceeded("too_large", f"jc's result is larger than max_bytes={limits.max_bytes}")
    if status == _OVER_BUDGET or -status in _BUDGET_SIGNALS:
        raise ParseError(
            "jc_over_budget", f"jc {parser} needed more than {memory >> 20} MiB or {cpu} s of CPU"
        )
    if status < 0:
        raise JcNotJudged(f"jc {parser} was ended by {signal_name(-status)}")
    # NOTE: 1 is an exception the child did not expect (its limits refused, jc not importable)
    raise JcNotJudged(f"jc {parser} failed before judging the text (exit status {status})")


def _jc_folder() -> str:
    """The `sys.path` folder this process imports jc from, for the child to look in last.

    NOTE: the child runs isolated (`-I`): no `PYTHON*` variable reaches it (`PYTHONINSPECT`
    would hold it at a prompt, `PYTHONSTARTUP`, `PYTHONPATH` or `PYTHONWARNINGS` run or change
    code), nor the working folder (a `json.py` or `jc.py` there, anyone's in a shared folder,
    would run as this user), nor the user's site-packages. The interpreter's own
    site-packages (a venv's) stay, and jc is found where this process found it (`PYTHONPATH`,
    `pip install --user`, an editable install), after the standard library.
    """
    import jc  # noqa: PLC0415 - loaded already: `load` imports it

    return os.path.dirname(os.path.dirname(os.path.abspath(jc.__file__)))  # noqa: PTH100, PTH120


class JcNotJudged(Exception):
    """Raised when the jc child did not judge the text.

    It could not start, failed on its own, or something other than its budget ended it. Not a
    `Rejection`: the response was never judged. The pipeline turns it into an internal error,
    as for any failure of toolguard's own.
    """
