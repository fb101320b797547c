"""Patterns on hostile data: Python's `re` before, RE2 after, and a matcher of our own.

    .venv/bin/python benchmarks/patterns.py [--quick]

For each of the worst patterns we could build (overlapping alternatives under bounded and
unbounded quantifiers, nested quantifiers, long counted repetitions, Unicode classes, a DFA
that blows up) it times one search on 64 KiB of hostile input with:

- Python's `re` (toolguard before): in a child process stopped after `--cap` seconds; for the
  exponential ones, also the time at a few small sizes, and the growth per byte;
- RE2 through `toolguard.schema.matcher.Matcher` (toolguard after);
- `LazyDFA` below: the other route the issue weighed, a lazily built DFA over Python's parse
  of the pattern, in pure Python (no captures: a Pike VM for `[text]` groups would be slower).

Then what RE2 adds: import time, peak memory, the cost of one call on a short string, and the
worst case at toolguard's program-size bound. A script that prints figures and ratios, never a
test: timings depend on the machine.
"""

from __future__ import annotations

import argparse
import bisect
import json
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

from toolguard.errors import SchemaError
from toolguard.schema import charsets
from toolguard.schema.matcher import MAX_PROGRAM_SIZE, Matcher
from toolguard.schema.regex import translate

N = 64 * 1024
_L = charsets.property_ranges("L")
PY_L = "[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in _L) + "]"  # \p{L} for Python's re

# (name, ECMA-262 pattern for toolguard, the same pattern in Python syntax, hostile text)
CASES: list[tuple[str, str, str, str]] = [
    ("overlap bounded  ^(a|a){1,64}$", "^(a|a){1,64}$", "^(a|a){1,64}$", "a" * N + "!"),
    ("overlap unbounded ^(a|a)*$", "^(a|a)*$", "^(a|a)*$", "a" * N + "!"),
    ("nested ^(a+)+$", "^(a+)+$", "^(a+)+$", "a" * N + "!"),
    ("nested ^(\\w+\\s?)*$", r"^(\w+\s?)*$", r"^(\w+\s?)*$", "a" * N + "!"),
    (
        "email-ish ^([a-z]+\\.)*[a-z]+@",
        r"^([a-z]+\.)*[a-z]+@",
        r"^([a-z]+\.)*[a-z]+@",
        "a." * (N // 2),
    ),
    ("alternation ^(a|ab|b)*c$", "^(a|ab|b)*c$", "^(a|ab|b)*c$", "ab" * (N // 2)),
    ("DFA blow-up (a|b)*a(a|b){20}x", "(a|b)*a(a|b){20}x", "(a|b)*a(a|b){20}x", "ab" * (N // 2)),
    ("counted [^!]{1,1000}! (search)", "[^!]{1,1000}!", "[^!]{1,1000}!", "a" * N),
    (
        "counted ^.{0,400}$ (Unicode .)",
        "^.{0,400}$",
        "^[^\\n\\r\\u2028\\u2029]{0,400}$",
        "\u00e9" * N,
    ),
    ("Unicode ^\\p{L}+\\d$", r"^\p{L}+\d$", f"^{PY_L}+[0-9]$", "\u00e9" * N),
    ("Unicode (\\p{L}|\\w)*! (overlap)", r"(\p{L}|\w)*!", f"({PY_L}|[0-9A-Za-z_])*!", "a" * N),
]
_RE_CHILD = """
import re, sys, time
pattern, text = sys.argv[1], sys.stdin.read()
compiled = re.compile(pattern)
start = time.perf_counter()
found = compiled.search(text) is not None
print(time.perf_counter() - start, found)
"""


def time_re(pattern: str, text: str, cap: float) -> tuple[float | None, bool | None]:
    """Seconds for `re.search` in a child process, or (None, None) if stopped at `cap`."""
    return _time_child(["-c", _RE_CHILD, pattern], text, cap)


def _time_child(arguments: list[str], text: str, cap: float) -> tuple[float | None, bool | None]:
    """Run a timing child on `text`: its seconds and whether it found a match, or (None, None)."""
    try:
        done = subprocess.run(
            [sys.executable, *arguments],
            input=text,
            capture_output=True,
            text=True,
            timeout=cap,
            check=True,
        )
    except subprocess.TimeoutExpired:
        return None, None
    seconds, found = done.stdout.split()
    return float(seconds), found == "True"


def growth(pattern: str, cap: float) -> str:
    """Python's time at a few small sizes, for the cases that blow up: the rate per byte."""
    times = []
    for size in (16, 18, 20, 22):
        seconds, _ = time_re(pattern, "a" * size + "!", cap)
        if seconds is None:
            break
        times.append((size, seconds))
    if len(times) < 2 or times[-1][1] < 1e-3:
        return ""
    (small, first), (large, last) = times[0], times[-1]
    rate = (last / first) ** (1 / (large - small))
    at_35 = last * rate ** (35 - large)
    return (
        f"  re at {large + 1} B: {last:.2f} s, x{rate:.2f} per byte"
        f" -> ~{at_35 / 3600:.1f} h at 35 B"
    )


def best(function: Callable[[], Any], repeat: int = 3) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = function()
        times.append(time.perf_counter() - start)
    return min(times), result


# --- the other route: a lazily built DFA over Python's own parse tree, in pure Python ---------


class LazyDFA:
    """Thompson NFA from `re._parser`'s tree, simulated as a DFA built one state at a time.

    Enough of the syntax for the cases above (literals, classes, `.`, groups, alternation,
    greedy/lazy repeats, `^` and `$`/`\\Z` at the ends). States are cached up to `limit`, then
    the cache is flushed, as RE2 does; no captures.
    """

    def __init__(self, pattern: str, limit: int = 10_000) -> None:
        parser: Any = __import__("re._parser", fromlist=["parse"])
        self.p = parser
        self.kinds: list[str] = []  # "char", "split", "eps", "bol", "eol", "match"
        self.data: list[Any] = []
        self.out: list[list[int]] = []
        tree = list(parser.parse(pattern))
        self.anchored = bool(tree) and tree[0] == (parser.AT, parser.AT_BEGINNING)
        self.start = self._sequence(tree, self._state("match", None, []))
        self.limit = limit
        self.cache: dict[tuple[frozenset[int], str], frozenset[int]] = {}

    def _state(self, kind: str, data: Any, out: list[int]) -> int:
        self.kinds.append(kind)
        self.data.append(data)
        self.out.append(out)
        return len(self.kinds) - 1

    def _sequence(self, items: list[tuple[Any, Any]], then: int) -> int:
        for op, av in reversed(items):
            then = self._item(op, av, then)
        return then

    def _item(self, op: Any, av: Any, then: int) -> int:
        p = self.p
        if op is p.LITERAL:
            return self._state("char", (((av, av),), False), [then])
        if op is p.NOT_LITERAL:
            return self._state("char", (((av, av),), True), [then])
        if op is p.ANY:
            return self._state("char", (((10, 10),), True), [then])
        if op is p.IN:
            negate = any(item[0] is p.NEGATE for item in av)
            spans = []
            for kind, value in av:
                if kind is p.LITERAL:
                    spans.append((value, value))
                elif kind is p.RANGE:
                    spans.append(value)
                elif kind is p.CATEGORY:
                    spans.extend(_CATEGORY[str(value)])
            return self._state("char", (charsets.union(spans), negate), [then])
        if op is p.BRANCH:
            return self._state("split", None, [self._sequence(list(alt), then) for alt in av[1]])
        if op is p.SUBPATTERN:
            return self._sequence(list(av[3]), then)
        if op in (p.MAX_REPEAT, p.MIN_REPEAT):
            low, high, body = av
            if high == p.MAXREPEAT:
                loop = self._state("split", None, [])
                self.out[loop][:] = [self._sequence(list(body), loop), then]
                tail = loop
            else:
                tail = then
                for _ in range(high - low):
                    tail = self._state("split", None, [self._sequence(list(body), tail), then])
            for _ in range(low):
                tail = self._sequence(list(body), tail)
            return tail
        if op is p.AT:
            kind = "bol" if av is p.AT_BEGINNING else "eol"
            return self._state(kind, None, [then])
        raise ValueError(f"LazyDFA does not run {op}")

    def _closure(self, seeds: list[int], *, begin: bool, end: bool) -> frozenset[int]:
        seen: set[int] = set()
        stack = list(seeds)
        while stack:
            state = stack.pop()
            if state in seen:
                continue
            seen.add(state)
            kind = self.kinds[state]
            if kind in ("split", "eps") or (kind == "bol" and begin) or (kind == "eol" and end):
                stack.extend(self.out[state])
        return frozenset(seen)

    def _accepts(self, state: int, char: int) -> bool:
        spans, negate = self.data[state]
        at = bisect.bisect_right(spans, (char, 0x110000)) - 1
        inside = at >= 0 and spans[at][0] <= char <= spans[at][1]
        return inside != negate

    def _step(self, current: frozenset[int], char: str) -> frozenset[int]:
        key = (current, char)
        found = self.cache.get(key)
        if found is None:
            code = ord(char)
            seeds = [
                self.out[s][0]
                for s in current
                if self.kinds[s] == "char" and self._accepts(s, code)
            ]
            if not self.anchored:
                seeds.append(self.start)
            if len(self.cache) >= self.limit:
                self.cache.clear()
            found = self.cache[key] = self._closure(seeds, begin=False, end=False)
        return found

    def search(self, text: str) -> bool:
        current = self._closure([self.start], begin=True, end=not text)
        for char in text:
            if any(self.kinds[s] == "match" for s in current):
                return True
            current = self._step(current, char)
        final = self._closure(list(current), begin=False, end=True)
        return any(self.kinds[s] == "match" for s in final)


_CATEGORY = {
    "CATEGORY_DIGIT": [(48, 57)],
    "CATEGORY_WORD": [(48, 57), (65, 90), (95, 95), (97, 122)],
    "CATEGORY_SPACE": [(9, 13), (32, 32)],
}


def time_lazy_dfa(pattern: str, text: str, cap: float) -> tuple[float | None, bool | None]:
    """Seconds for the pure-Python lazy DFA in a child process, or (None, None) at `cap`."""
    return _time_child([__file__, "--child-dfa", pattern], text, cap)


def child_dfa(pattern: str) -> None:
    text = sys.stdin.read()
    dfa = LazyDFA(pattern)
    start = time.perf_counter()
    found = dfa.search(text)
    print(time.perf_counter() - start, found)


# --- what RE2 costs ------------------------------------------------------------------------


_IMPORT_PROBE = """
import codecs, functools, itertools, time
start = time.perf_counter()
from re2 import _re2
print((time.perf_counter() - start) * 1e3)
"""
# Resident memory a process gains from RE2: toolguard is imported first, then measured.
_RSS_PROBE = """
import gc
from toolguard.schema.matcher import Matcher
def rss():
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
text = {text}
gc.collect()
before = rss()
matchers = [Matcher(source) for source in {sources!r}]  # kept alive: their DFAs count
for matcher in matchers:
    matcher.search(text)
print(rss() - before)
"""


def _child_float(code: str) -> float:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


def per_call_ns(function: Callable[[], Any], number: int) -> float:
    start = time.perf_counter()
    for _ in range(number):
        function()
    return (time.perf_counter() - start) / number * 1e9


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller caps and fewer runs")
    parser.add_argument("--cap", type=float, default=10.0, help="seconds before stopping re")
    parser.add_argument("--child-dfa", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child_dfa is not None:
        child_dfa(args.child_dfa)
        return
    cap = 2.0 if args.quick else args.cap
    runs = 5 if args.quick else 15

    print(f"One search on hostile input ({N // 1024} KiB unless said); re stopped at {cap:.0f} s")
    print(
        f"{'case':38} {'re (before)':>12} {'RE2 (after)':>12} {'lazy DFA':>12}"
        f" {'re/RE2':>9} {'DFA/RE2':>8}"
    )
    for name, ecma, python, text in CASES:
        matcher = Matcher(translate(ecma))
        matcher.search("")  # compile outside the timing
        re2_seconds, re2_found = best(lambda m=matcher, t=text: m.search(t))
        re_seconds, re_found = time_re(python, text, cap)
        dfa_seconds, dfa_found = time_lazy_dfa(python, text, cap)
        for found in (re_found, dfa_found):
            assert found in (None, re2_found), f"{name}: engines disagree"
        print(
            f"{name:38} {_seconds(re_seconds, cap):>12} {_seconds(re2_seconds, cap):>12} "
            f"{_seconds(dfa_seconds, cap):>12} {_ratio(re_seconds, re2_seconds, cap):>9} "
            f"{_ratio(dfa_seconds, re2_seconds, cap):>8}"
        )
        if re_seconds is None and text.startswith("a" * 40) and text.endswith("!"):
            line = growth(python, cap)
            if line:
                print(line)

    print(
        f"\nThe worst we could build within the program bound ({MAX_PROGRAM_SIZE:,} instructions)"
    )
    texts = [
        ("64 KiB of a", "a" * N),
        ("64 Ki mixed letters", _letters(N)),
        ("64 Ki CJK", "".join(chr(0x4E00 + (i * 7919) % 20000) for i in range(N))),
    ]
    for template in (
        "[^!]{{1,{k}}}!",
        "[^!]{{1,{k}}}[^#]{{1,{k}}}!",
        "(?:[^!]{{1,{k}}}){{1,10}}!",
        "(?:a|[^!]){{1,{k}}}!",
        ".{{1,{k}}}!",
    ):
        ecma = template.format(k=_largest(template))
        matcher = Matcher(translate(ecma))  # within the bound, as every schema pattern is
        matcher.search("")
        for label, text in texts:
            seconds, _ = best(lambda m=matcher, t=text: m.search(t), repeat=1)
            per_byte = seconds / len(text.encode()) * 1e9
            print(
                f"  {ecma:28} {_program_size(matcher.source):>6,} instructions, {label:20}"
                f" {seconds * 1e3:8.1f} ms ({per_byte:,.0f} ns/byte)"
            )

    print("\nWhat RE2 adds")
    imports = [_child_float(_IMPORT_PROBE) for _ in range(runs)]
    print(f"  import of re2 (median of {runs} processes): {statistics.median(imports):.1f} ms")
    sources = [translate(ecma) for _, ecma, _, _ in CASES]
    added = _child_float(_RSS_PROBE.format(sources=sources, text="'a' * 65536 + '!'"))
    print(
        f"  resident memory after the {len(CASES)} patterns above run on 64 KiB: +{added:.1f} MiB"
    )
    worst = [translate("[^!]{1,333}[^#]{1,333}!")]
    cjk = f"''.join(chr(0x4E00 + (i * 7919) % 20000) for i in range({N}))"
    added = _child_float(_RSS_PROBE.format(sources=worst, text=cjk))
    print(f"  one pattern driven past its DFA budget on 64 Ki CJK: +{added:.1f} MiB")
    short = "CR-1042"
    source = translate("^CR-[0-9]{1,10}$")
    matcher, python = Matcher(source), re.compile("^CR-[0-9]{1,10}\\Z")
    matcher.search(short)
    import re2  # noqa: PLC0415 - the public wrapper, for comparison

    options = re2.Options()
    options.log_errors = False
    public = re2.compile(source, options)
    number = 20_000 if args.quick else 200_000
    ns_re = per_call_ns(lambda: python.search(short), number)
    ns_ours = per_call_ns(lambda: matcher.search(short), number)
    ns_public = per_call_ns(lambda: public.search(short), number)
    print(
        f"  one search of {short!r}: re {ns_re:.0f} ns, Matcher {ns_ours:.0f} ns "
        f"(x{ns_ours / ns_re:.1f}), the public re2 wrapper {ns_public:.0f} ns"
        f" (x{ns_public / ns_re:.1f})"
    )
    print(json.dumps({"python": sys.version.split()[0]}))


def _largest(template: str) -> int:
    """The largest count (at most 1000) for which `template` stays within the program bound."""
    low, high = 1, 1000
    while low < high:
        middle = (low + high + 1) // 2
        try:
            translate(template.format(k=middle))
        except SchemaError:
            high = middle - 1
        else:
            low = middle
    return low


def _program_size(source: str) -> int:
    import re2  # noqa: PLC0415

    options = re2.Options()
    options.log_errors = False
    return int(re2.compile(source, options).programsize)


def _letters(count: int) -> str:
    letters = [chr(c) for low, high in _L[:300] for c in range(low, min(high, low + 3) + 1)]
    return "".join(letters[(i * 7919) % len(letters)] for i in range(count))


def _seconds(value: float | None, cap: float) -> str:
    if value is None:
        return f"> {cap:.0f} s"
    return f"{value * 1e3:.2f} ms" if value < 1 else f"{value:.2f} s"


def _ratio(slow: float | None, fast: float, cap: float) -> str:
    return f"> x{cap / fast:,.0f}" if slow is None else f"x{slow / fast:,.0f}"


if __name__ == "__main__":
    main()
