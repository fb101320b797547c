"""Operator diagnostics on stderr: a record as plain text, the closing line of a channel."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from strategies import hidden_prone_text

from toolguard import frozen, pipeline, report
from toolguard.contract import load_contract
from toolguard.result import AttemptRecord, Diagnostics


def test_dropped_lines_are_reported_as_one_json_line() -> None:
    """JSON mode: an object a program can count from (`outcome` "dropped", `count`)."""
    stream = io.StringIO()
    report.dropped(4876, "json", stream)
    line = json.loads(stream.getvalue())
    assert (line["outcome"], line["count"]) == ("dropped", 4876)
    assert stream.getvalue().count("\n") == 1


def test_dropped_lines_are_reported_as_a_warning_for_people() -> None:
    """Rich mode: one line a person reads as a warning, with the count."""
    stream = io.StringIO()
    report.dropped(3, "rich", stream)
    assert stream.getvalue() == (
        "toolguard: warning: 3 diagnostics line(s) dropped: stderr was not being read\n"
    )


def test_a_gap_is_reported_apart_from_the_closing_count() -> None:
    """Said where lines went missing: outcome "gap" (JSON), "here" (people); never "dropped",
    so a program counting the closing line's total counts no line twice."""
    stream = io.StringIO()
    report.dropped(12, "json", stream, gap=True)
    line = json.loads(stream.getvalue())
    assert (line["outcome"], line["count"]) == ("gap", 12)
    stream = io.StringIO()
    report.dropped(12, "rich", stream, gap=True)
    assert stream.getvalue() == (
        "toolguard: warning: 12 diagnostics line(s) dropped here: stderr was not read fast enough\n"
    )


# The plain text of a diagnostics record, built directly, against the rich lines it stands for.

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _joined(diagnostics: Diagnostics) -> str:
    """The reference: each of `_lines`' lines, its segments joined, as rich prints to a pipe."""
    return "".join("".join(text for text, _ in line) + "\n" for line in report._lines(diagnostics))


def _corpus() -> list[Diagnostics]:
    """The diagnostics of every bundled example's fixtures, accepted and rejected."""
    found = []
    for contract_path in sorted(EXAMPLES.glob("*/contract.toml")):
        contract = load_contract(contract_path)
        context_file = contract_path.parent / "context.json"
        context = json.loads(context_file.read_text()) if context_file.exists() else {}
        for response in sorted((contract_path.parent / "fixtures").rglob("*")):
            if not response.is_file() or response.suffix == ".toml":
                continue
            outcome = pipeline.check(contract, response.read_bytes(), context=context)
            found.append(outcome.diagnostics)
    return found


def test_plain_text_is_the_rich_lines_joined_for_every_fixture() -> None:
    """Every example fixture's diagnostics read the same built directly as joined from lines."""
    corpus = _corpus()
    assert len(corpus) > 20
    attempt = AttemptRecord(number=1, duration_ms=1.0, outcome="success", stderr_size=3)
    for diagnostics in corpus:
        for variant in (
            diagnostics,
            frozen.replace(diagnostics, upstream=("srv", "--x"), attempts=(attempt,)),
        ):
            assert report.as_text(variant, "rich") == _joined(variant)


@given(
    st.sampled_from(["success", "failure", "internal"]),
    hidden_prone_text(),
    st.none() | hidden_prone_text(),
    st.none() | st.sampled_from(["schema", "rules", "parse"]),
    st.none() | st.integers(-1, 10**6),
)
def test_plain_text_is_the_rich_lines_joined_for_hostile_text(
    outcome: str, message: str, rule: str | None, layer: str | None, offset: int | None
) -> None:
    """Hostile free text is escaped the same way on both paths."""
    diagnostics = Diagnostics(
        tool="t",
        request_id="req.report.01",
        contract=message,
        outcome=outcome,  # type: ignore[arg-type]
        layer=layer,  # type: ignore[arg-type]
        reason="x" if layer else None,
        message=message,
        rule=rule,
        offset=offset,
        instance_path="" if rule is None else rule,
        upstream=(message, "b"),
    )
    assert report.as_text(diagnostics, "rich") == _joined(diagnostics)


# The JSON line of a diagnostics record, written field by field, against the generic writer.


def _json_reference(diagnostics: Diagnostics) -> str:
    """What `json_line` writes for the record's fields (its attempts as plain mappings)."""
    values = {name: getattr(diagnostics, name) for name in frozen.fields(diagnostics)}
    values["attempts"] = [
        {name: getattr(attempt, name) for name in frozen.fields(attempt)}
        for attempt in diagnostics.attempts
    ]
    stream = io.StringIO()
    report.json_line(values, stream)
    return stream.getvalue()


def test_json_text_is_the_generic_line_for_every_fixture() -> None:
    corpus = _corpus()
    attempt = AttemptRecord(number=1, duration_ms=1.0, outcome="failure", stderr_size=3)
    for diagnostics in corpus:
        for variant in (
            diagnostics,
            frozen.replace(diagnostics, upstream=("srv", "--x"), attempts=(attempt, attempt)),
        ):
            assert report.as_text(variant, "json") == _json_reference(variant)


TEXT = hidden_prone_text() | st.sampled_from(['a"b', "a\\b", "x" * 2048, "x" * 2049, "\x7f"])
NUMBER = st.none() | st.integers() | st.booleans() | st.floats() | st.sampled_from([-0.0, 1e-7])


@given(
    st.sampled_from(["success", "failure", "internal"]),
    TEXT,
    st.none() | TEXT,
    NUMBER,
    st.floats() | st.integers(),
    st.none() | st.tuples(TEXT, TEXT),
)
def test_json_text_is_the_generic_line_for_any_value(
    outcome: str,
    text: str,
    maybe: str | None,
    number: object,
    duration: float,
    upstream: tuple[str, ...] | None,
) -> None:
    """Hostile text, quotes, backslashes, strings at the bound, any number: the same line."""
    diagnostics = Diagnostics(
        tool=text,
        request_id=text,
        contract=text,
        outcome=outcome,  # type: ignore[arg-type]
        size=number,  # type: ignore[arg-type]
        sha256=maybe,
        duration_ms=duration,
        reason=maybe,
        message=text,
        offset=number,  # type: ignore[arg-type]
        instance_path=maybe,
        upstream=upstream,
        attempts=(AttemptRecord(number=2, duration_ms=duration, outcome="failure"),),
    )
    assert report.as_text(diagnostics, "json") == _json_reference(diagnostics)


def test_render_to_sends_what_render_writes_to_a_pipe() -> None:
    """`render_to` hands a channel the text `render` writes to a stream that is no terminal."""
    diagnostics = _corpus()[0]
    for mode in ("json", "rich"):
        stream, sent = io.StringIO(), []
        report.render(diagnostics, mode, stream)
        report.render_to(diagnostics, mode, io.StringIO(), sent.append)
        assert sent == [stream.getvalue()]


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("term", ["dumb", "unknown"])
def test_a_terminal_that_cannot_redraw_gets_no_progress_bar(
    term: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TERM=dumb cannot redraw a line: no bar, no stray blank line; a capable terminal has one."""
    monkeypatch.delenv("FORCE_COLOR", raising=False)
    monkeypatch.setenv("TERM", term)
    dumb = _Terminal()
    with report.progress(3, "toolguard test", dumb) as advance:
        advance(3)
    assert dumb.getvalue() == ""
    monkeypatch.setenv("TERM", "xterm-256color")
    capable = _Terminal()
    with report.progress(3, "toolguard test", capable) as advance:
        advance(3)
    assert "toolguard test" in capable.getvalue()
