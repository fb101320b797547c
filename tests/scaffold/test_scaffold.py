"""`toolguard init`'s engine: what it writes passes its own `lint` and `test`, for any sample.

The property is the promise of the command: for every sample response toolguard can accept,
the drafted folder lints without an error or a warning (notices allowed) and every one of its
fixtures passes. A sample the drafted contract cannot accept is refused, never written.
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
import tempfile
import tomllib
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies import hidden_prone_text, json_strings, json_values, number_texts

from toolguard import scaffold
from toolguard.errors import UsageError
from toolguard.fixtures.run import prepare, run_suite
from toolguard.invisible import find_invisible
from toolguard.lint import lint_paths
from toolguard.pointer import escape, lookup


def passes_its_own_lint_and_test(folder: Path) -> None:
    """No lint error or warning (notices are fine) and every fixture passes."""
    contract = folder / "contract.toml"
    report = lint_paths([contract])
    assert report.clean, [finding.message for finding in report.findings]
    assert {finding.severity for finding in report.findings} <= {"notice"}
    loaded, suite = prepare(contract)
    result = run_suite(suite, loaded)
    failures = [(r.case.id, r.message) for r in result.results if r.status != "pass"]
    assert result.passed, (suite.problems, failures)


def test_the_example_passes_its_own_lint_and_test(tmp_path: Path) -> None:
    """`toolguard init TOOL` without a sample: a working contract, lint clean, fixtures pass."""
    built = scaffold.build("ticket_status")
    scaffold.write(built, tmp_path / "ticket_status")
    passes_its_own_lint_and_test(tmp_path / "ticket_status")
    assert lint_paths([tmp_path / "ticket_status" / "contract.toml"]).findings == ()


def test_the_example_plays_the_articles_near_misses() -> None:
    """Extra field, duplicate, NaN, wrong type, limits, stale, wrong item, injection: all there."""
    names = {
        Path(file.path).name.removesuffix(".json")
        for file in scaffold.build("ticket_status").files
        if file.path.startswith("fixtures/reject/") and file.path.endswith(".json")
    }
    assert names == {
        "extra_property",
        "duplicate_member",
        "not_a_number",
        "null_instead_of_object",
        "array_instead_of_object",
        "wrong_type",
        "empty_identifier",
        "state_not_in_enum",
        "wrong_item",
        "stale",
        "future",
        "injection",
        "success_with_error",
        "limits_too_large",
        "limits_too_deep",
        "limits_string_too_long",
        "truncated",
        "empty_response",
    }


SAMPLES = st.dictionaries(
    json_strings(max_size=12), json_values(max_depth=3, max_items=3), min_size=1, max_size=5
)


@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(sample=SAMPLES, indent=st.sampled_from([None, 2]))
def test_a_draft_from_any_sample_passes_its_own_lint_and_test(
    sample: dict[str, Any], indent: int | None
) -> None:
    """`init --from`: for any object sample, the folder lints clean and its fixtures pass."""
    raw = json.dumps(sample, indent=indent, ensure_ascii=bool(indent)).encode()
    # A member holding a character a person cannot see is left out of the projection (which
    # would refuse it); a sample with no member left to project is refused with its reason:
    # the only member is named "" (a pointer no projection may use), or every other one
    # holds such a character.
    members = {key: value for key, value in sample.items() if key}
    hidden = [f"/{escape(key)}" for key, value in members.items() if find_invisible(value)]
    refusal = None
    if not members:
        refusal = 'its only member is named ""'
    elif len(hidden) == len(members):
        refusal = "no member can be projected, as each holds what the projection refuses"
    if refusal is not None:
        with pytest.raises(UsageError, match=re.escape(refusal)):
            scaffold.build("drafted_tool", (raw, "sample.json"))
        return
    built = scaffold.build("drafted_tool", (raw, "sample.json"))
    assert [member.pointer for member in built.left_out] == hidden
    with tempfile.TemporaryDirectory() as folder:
        scaffold.write(built, Path(folder))
        passes_its_own_lint_and_test(Path(folder))
        accepted = Path(folder, "fixtures", "accept", "sample.json")
        assert accepted.read_bytes() == raw


# Values an upstream really writes that a draft must not trip on: number tokens as written
# (17 digits, 1e400, -0, huge integers), hidden characters among real text (tags, bidi
# controls, selectors, a family emoji's joiners), timestamps with leap seconds or at the
# edges of a datetime, empty strings and identifiers where a rule is suggested, hostnames.
AWKWARD_SCALARS = st.one_of(
    number_texts(),
    hidden_prone_text(12, surrogates=False).map(json.dumps),
    st.sampled_from(
        [
            "2016-12-31T23:59:60Z",
            "1990-12-31T15:59:60-08:00",
            "2026-03-14T09:30:00.9999999Z",
            "9999-12-31T23:59:59.9999999Z",
            "9999-12-31T23:59:59-01:00",
            "0001-01-01T00:00:00+01:00",
            "",
            "ab--cd.example",
            "ops@ab--cd.example",
            "TCK-1",
            "\U0001f468\u200d\U0001f469\u200d\U0001f467",
        ]
    ).map(lambda text: json.dumps(text.encode().decode("unicode_escape"))),
    st.sampled_from(["0", "-0", "-0.0", "9223372036854775807", "12345678901234567.0"]),
)
AWKWARD_VALUES = st.one_of(
    AWKWARD_SCALARS,
    st.lists(AWKWARD_SCALARS, max_size=3).map(lambda items: f"[{', '.join(items)}]"),
    st.tuples(hidden_prone_text(6, surrogates=False), AWKWARD_SCALARS).map(
        lambda member: f"{{{json.dumps(member[0])}: {member[1]}}}"
    ),
)
AWKWARD_NAMES = st.sampled_from(["id", "user_id", "ticketId", "at", "updated_at", "price"]) | (
    hidden_prone_text(8, surrogates=False)
)


@st.composite
def awkward_samples(draw: st.DrawFn) -> bytes:
    """An object sample written as an upstream might write it: names and values as text."""
    names = draw(st.lists(AWKWARD_NAMES, min_size=1, max_size=4, unique=True))
    ascii_only = draw(st.booleans())
    members = [
        f"{json.dumps(name, ensure_ascii=ascii_only)}: {draw(AWKWARD_VALUES)}" for name in names
    ]
    return ("{" + ", ".join(members) + "}").encode()


def with_suggested_rules(folder: Path, raw: bytes) -> None:
    """Uncomment every suggested rule, and give the request context they read from the sample.

    What docs/first-contract.md step 3 does with the rule it keeps.
    """
    contract = folder / "contract.toml"
    lines, inside = [], False
    for line in contract.read_text(encoding="utf-8").splitlines():
        inside = line.startswith("# [[rules]]") or (inside and line.startswith("# "))
        lines.append(line.removeprefix("# ") if inside else line)
    contract.write_text("\n".join(lines) + "\n", encoding="utf-8")
    sample = json.loads(raw)
    context = {
        rule["context"]: lookup(sample, rule["pointer"])
        for rule in tomllib.loads(contract.read_text(encoding="utf-8")).get("rules", [])
        if rule["kind"] == "equals_context"
    }
    if context:
        (folder / "context.json").write_text(json.dumps(context), encoding="utf-8")


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(raw=awkward_samples())
def test_a_draft_from_an_awkward_sample_passes_its_own_test_or_is_refused_for_the_sample(
    raw: bytes,
) -> None:
    """`init --from` an answer written with awkward numbers, hidden characters, leap seconds:
    either the sample is refused for what it is (exit 2, never because the draft refused it),
    or the folder lints clean and its fixtures pass, as drafted and with its rules uncommented.
    """
    try:
        built = scaffold.build("drafted_tool", (raw, "sample.json"))
    except UsageError as exc:
        refusal = str(exc)
    else:
        refusal = None
    if refusal is not None:
        assert not refusal.startswith(("the drafted contract", "cannot draft a contract")), refusal
        return
    with tempfile.TemporaryDirectory() as folder:
        scaffold.write(built, Path(folder))
        passes_its_own_lint_and_test(Path(folder))
        assert Path(folder, "fixtures", "accept", "sample.json").read_bytes() == raw
        with_suggested_rules(Path(folder), raw)
        passes_its_own_lint_and_test(Path(folder))


@pytest.mark.parametrize(
    "raw",
    [
        b'{"id": "TCK-1", "at": "2016-12-31T23:59:60Z"}',
        b'{"user_id": "ops@ab--cd.example", "host": "ab--cd.example"}',
        b'{"at": "9999-12-31T23:59:59-01:00", "id": 9223372036854775807}',
        b'{"at": "0001-01-01T00:00:00+01:00", "n": -0}',
    ],
    ids=["leap second", "hostnames", "end of year 9999", "year 1 east of UTC"],
)
def test_a_draft_with_its_suggested_rules_uncommented_passes_its_own_test(
    raw: bytes, tmp_path: Path
) -> None:
    """Each suggested rule, uncommented with the sample's value as the request's: the sample
    still passes, and no near miss is refused first by the rule (an identifier is no place
    for the hidden character once a rule reads it)."""
    scaffold.write(scaffold.build("drafted_tool", (raw, "sample.json")), tmp_path)
    with_suggested_rules(tmp_path, raw)
    assert "[[rules]]" in (tmp_path / "contract.toml").read_text(encoding="utf-8")
    passes_its_own_lint_and_test(tmp_path)


def test_a_draft_keeps_the_sample_private(tmp_path: Path) -> None:
    """Files holding the sample's bytes are 0600; the contract and schema are not."""
    built = scaffold.build("drafted_tool", (b'{"id": "TCK-1"}', "sample.json"))
    scaffold.write(built, tmp_path)
    mode = stat.S_IMODE((tmp_path / "fixtures" / "accept" / "sample.json").stat().st_mode)
    assert mode == 0o600
    assert stat.S_IMODE((tmp_path / "fixtures" / "reject" / "truncated.json").stat().st_mode) == (
        0o600
    )
    assert stat.S_IMODE((tmp_path / "contract.toml").stat().st_mode) != 0o600 or (
        stat.S_IMODE((tmp_path / "contract.toml").stat().st_mode) == 0o666 & ~_umask()
    )


def test_the_example_holds_no_users_answer_so_its_fixtures_are_not_private(
    tmp_path: Path,
) -> None:
    """The example's fixtures are written with the umask's mode, as the contract is."""
    mask = os.umask(0o022)
    try:
        scaffold.write(scaffold.build("ticket_status"), tmp_path)
    finally:
        os.umask(mask)
    for path in ("fixtures/accept/example.json", "fixtures/reject/truncated.json"):
        assert stat.S_IMODE((tmp_path / path).stat().st_mode) == 0o644, path


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_existing_files_are_not_overwritten_without_force(tmp_path: Path) -> None:
    """A second init into the same folder is refused and changes nothing; --force rewrites."""
    built = scaffold.build("ticket_status")
    scaffold.write(built, tmp_path)
    contract = tmp_path / "contract.toml"
    contract.write_text("# mine\n", encoding="utf-8")
    with pytest.raises(UsageError, match="already exist: pass --force to replace them"):
        scaffold.write(built, tmp_path)
    assert contract.read_text(encoding="utf-8") == "# mine\n"
    scaffold.write(built, tmp_path, force=True)
    assert contract.read_text(encoding="utf-8").startswith("# ticket_status: made by")


@contextmanager
def _disk_full_after(room: int) -> Iterator[None]:
    """`os.write` fails with ENOSPC after `room` writes: a disk that fills up part way."""
    real_write, writes = os.write, [0]

    def filling(fd: int, data: bytes) -> int:
        writes[0] += 1
        if writes[0] > room:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real_write(fd, data)

    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(os, "write", filling)
        yield


@pytest.mark.parametrize("room", [0, 1, 5, 30])
def test_a_full_disk_leaves_no_half_written_scaffold(tmp_path: Path, room: int) -> None:
    """A write that fails part way (ENOSPC after `room` writes) leaves no file init writes,
    old or new: a later init needs no --force, and no later test reads a partial set."""
    built = scaffold.build("ticket_status")
    target = tmp_path / "ticket_status"
    with _disk_full_after(room), pytest.raises(UsageError, match="No space left on device"):
        scaffold.write(built, target)
    assert [path for path in tmp_path.rglob("*") if not path.is_dir()] == []
    scaffold.write(built, target)
    passes_its_own_lint_and_test(target)


def test_a_full_disk_under_force_leaves_the_earlier_files_as_they_were(tmp_path: Path) -> None:
    """--force on a full disk replaces nothing: every file is as the earlier init left it."""
    built = scaffold.build("ticket_status")
    scaffold.write(built, tmp_path)
    before = {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()}
    drafted = scaffold.build("ticket_status", (b'{"ticket_id": "TCK-1"}', "t.json"))
    with _disk_full_after(3), pytest.raises(UsageError, match="No space left on device"):
        scaffold.write(drafted, tmp_path, force=True)
    assert {path: path.read_bytes() for path in tmp_path.rglob("*") if path.is_file()} == before


@pytest.mark.parametrize(
    "tool", ["TicketStatus", "ticket-status", "_ticket", "ticket__status", "ticket_", "9lives", ""]
)
def test_a_tool_name_lint_would_flag_is_refused(tool: str) -> None:
    """Only snake_case words (lint TG013) of at most 64 characters name a tool."""
    with pytest.raises(UsageError, match="is not a tool name: snake_case words"):
        scaffold.build(tool)


def test_a_tool_name_of_64_characters_is_the_longest(tmp_path: Path) -> None:
    """64 characters is allowed (the contract schema's bound); 65 is not."""
    scaffold.build("t" * 64)
    with pytest.raises(UsageError):
        scaffold.build("t" * 65)


def test_the_summary_says_what_was_written_and_what_to_run() -> None:
    """Two lines: the files, then the test and lint commands for the folder."""
    built = scaffold.build("ticket_status")
    assert scaffold.summary(built, Path("ticket_status")) == (
        "wrote ticket_status/: contract.toml, response.schema.json, context.json, "
        "fixtures/ (1 accept, 18 reject)\n"
        "next: toolguard test ticket_status && toolguard lint ticket_status/contract.toml\n"
    )


def test_a_draft_toolguard_refuses_is_a_usage_error_naming_the_sample(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A bound init does not check first still ends as exit 2 about the sample, not exit 3
    about a temporary file the user never wrote."""
    monkeypatch.setattr("toolguard.scaffold.sample.MAX_PROJECTED", 10_000)  # no early check
    raw = json.dumps({f"m{n}": n for n in range(300)}).encode()
    with pytest.raises(UsageError) as caught:
        scaffold.build("many", (raw, "sample.json"))
    message = str(caught.value)
    assert message.startswith("cannot draft a contract from --from sample.json:")
    assert "projection: must contain less than or equal to 256 properties" in message
    assert "toolguard-init-" not in message


def _fixtures(folder: Path) -> set[str]:
    return {str(path.relative_to(folder)) for path in (folder / "fixtures").rglob("*.*")}


def test_force_replaces_the_fixtures_an_earlier_init_wrote(tmp_path: Path) -> None:
    """init, then init --from --force: the example's fixtures go, the author's stay, and the
    folder passes its own test straight away."""
    scaffold.write(scaffold.build("tickets"), tmp_path)
    mine = {"fixtures/reject/my_case.json", "fixtures/reject/my_case.expect.toml"}
    for path in mine:
        (tmp_path / path).write_text("mine\n", encoding="utf-8")
    drafted = scaffold.build("tickets", (b'{"ticket_id": "TCK-1", "summary": "a b"}', "t.json"))
    with pytest.raises(UsageError, match="already exist: pass --force to replace them"):
        scaffold.write(drafted, tmp_path)
    removed = scaffold.write(drafted, tmp_path, force=True)
    assert "fixtures/accept/example.json" in removed
    assert "fixtures/reject/wrong_item.expect.toml" in removed
    written = {file.path for file in drafted.files if file.path.startswith("fixtures/")}
    assert _fixtures(tmp_path) == written | mine
    for path in mine:
        (tmp_path / path).unlink()
    passes_its_own_lint_and_test(tmp_path)
    assert "removed the earlier init's fixtures this draft has not: accept/example, " in (
        scaffold.summary(drafted, tmp_path, removed)
    )


def test_an_earlier_inits_fixture_alone_is_refused_without_force(tmp_path: Path) -> None:
    """A fixture init wrote and this draft would leave behind counts as an existing file."""
    stale = tmp_path / "fixtures" / "reject" / "wrong_item.json"
    stale.parent.mkdir(parents=True)
    stale.write_text("{}", encoding="utf-8")
    with pytest.raises(UsageError, match=r"wrong_item\.json already exist"):
        scaffold.write(scaffold.build("t", (b'{"a": 1}', "s.json")), tmp_path)
    assert stale.exists()


SAMPLES_OF_EVERY_MISS = [
    b'{"id": "TCK-1", "note": "free text here", "at": "2026-03-14T09:30:00Z", "n": [1]}',
    b'{"a": null}',
    b'{"a": [true, 1, "x"], "b": {"c": 1.5}}',
]


@pytest.mark.parametrize("sample", [None, *SAMPLES_OF_EVERY_MISS])
def test_every_fixture_init_writes_is_one_force_may_replace(sample: bytes | None) -> None:
    """GENERATED names each fixture init writes, with its suffixes: none is left behind."""
    built = scaffold.build("t", None if sample is None else (sample, "s.json"))
    for file in built.files:
        kind, _, name = file.path.removeprefix("fixtures/").partition("/")
        if kind in scaffold.GENERATED:
            stem, _, suffix = name.partition(".")
            assert stem in scaffold.GENERATED[kind], file.path
            assert f".{suffix}" in scaffold.SUFFIXES[kind], file.path


def test_generated_names_only_fixtures_init_writes() -> None:
    """Each GENERATED name is one some draft writes: the list is what init makes, no more."""
    seen: dict[str, set[str]] = {kind: set() for kind in scaffold.GENERATED}
    for sample in [None, *SAMPLES_OF_EVERY_MISS]:
        built = scaffold.build("t", None if sample is None else (sample, "s.json"))
        for file in built.files:
            kind, _, name = file.path.removeprefix("fixtures/").partition("/")
            seen.get(kind, set()).add(name.partition(".")[0])
    assert seen == scaffold.GENERATED


def test_a_refusal_to_overwrite_names_three_files_and_counts_the_rest(tmp_path: Path) -> None:
    """Every file of the folder exists: the first three are named, the others counted."""
    built = scaffold.build("ticket_status")
    scaffold.write(built, tmp_path)
    with pytest.raises(UsageError) as caught:
        scaffold.write(built, tmp_path)
    shown = ", ".join(str(tmp_path / file.path) for file in built.files[:3])
    more = len(built.files) - 3
    assert str(caught.value) == (
        f"{shown} and {more} more already exist: pass --force to replace them"
    )


def test_a_refusal_to_overwrite_three_files_names_them_all(tmp_path: Path) -> None:
    """Exactly three files exist: each is named, with no count after them."""
    built = scaffold.build("ticket_status")
    for file in built.files[:3]:
        (tmp_path / file.path).write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError) as caught:
        scaffold.write(built, tmp_path)
    shown = ", ".join(str(tmp_path / file.path) for file in built.files[:3])
    assert str(caught.value) == f"{shown} already exist: pass --force to replace them"


def test_a_folder_not_there_yet_is_made_with_its_parents(tmp_path: Path) -> None:
    """`toolguard init tool contracts/tool`: every missing folder on the way is made."""
    folder = tmp_path / "contracts" / "ticket_status"
    scaffold.write(scaffold.build("ticket_status"), folder)
    assert (folder / "contract.toml").is_file()


def test_a_dangling_symbolic_link_counts_as_an_existing_file(tmp_path: Path) -> None:
    """A link to nowhere where init would write is refused, never written through."""
    (tmp_path / "contract.toml").symlink_to(tmp_path / "elsewhere.toml")
    with pytest.raises(UsageError, match=r"contract\.toml already exist"):
        scaffold.write(scaffold.build("ticket_status"), tmp_path)
    assert not (tmp_path / "elsewhere.toml").exists()


def test_a_file_that_cannot_be_written_is_a_usage_error_naming_it(tmp_path: Path) -> None:
    """`fixtures` is a file, not a folder: exit 2 naming the file init could not write."""
    (tmp_path / "fixtures").write_text("mine\n", encoding="utf-8")
    with pytest.raises(UsageError, match=r"^cannot write .*/fixtures/fixtures\.toml: "):
        scaffold.write(scaffold.build("ticket_status"), tmp_path, force=True)


def test_an_earlier_fixture_that_cannot_be_removed_is_a_usage_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """--force over an earlier init whose fixture cannot be removed: exit 2, naming it."""
    scaffold.write(scaffold.build("t"), tmp_path)

    def refuse(path: Path, missing_ok: bool = False) -> None:
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(Path, "unlink", refuse)
    with pytest.raises(
        UsageError, match=r"^cannot remove .*/fixtures/accept/example\.expected\.json: "
    ):
        scaffold.write(scaffold.build("t", (b'{"a": 1}', "s.json")), tmp_path, force=True)


def test_only_init_s_files_of_a_fixture_name_count_as_an_earlier_init_s(tmp_path: Path) -> None:
    """`wrong_item.txt` and a folder `wrong_item.json/` are the author's: kept, not refused."""
    reject = tmp_path / "fixtures" / "reject"
    (reject / "wrong_item.json").mkdir(parents=True)
    (reject / "wrong_item.txt").write_text("mine\n", encoding="utf-8")
    assert scaffold.write(scaffold.build("t", (b'{"a": 1}', "s.json")), tmp_path) == ()
    assert (reject / "wrong_item.txt").exists()
    assert (reject / "wrong_item.json").is_dir()


@pytest.mark.parametrize(
    ("count", "shown"),
    [
        (4, "/m0, /m1, /m2, /m3"),
        (5, "/m0, /m1, /m2, /m3 and 1 more"),
        (6, "/m0, /m1, /m2, /m3 and 2 more"),
    ],
)
def test_the_summary_names_five_left_out_members_and_counts_the_rest(
    count: int, shown: str
) -> None:
    """One line per cause, with at most five pointers, each cut to 40 characters."""
    members = {"name": "ok", "k" * 50: "a\tb", **{f"m{n}": "a\tb" for n in range(count)}}
    built = scaffold.build("t", (json.dumps(members).encode(), "s.json"))
    assert scaffold.summary(built, Path("t")).splitlines()[1] == (
        "left out of [projection], as they hold a character a person cannot see: "
        f"/{'k' * 39}... [11 more characters], {shown}"
    )


def _fixture(built: scaffold.Scaffold, path: str) -> bytes:
    return next(file.data for file in built.files if file.path == path)


@pytest.mark.parametrize("value", ["TCK-1", 7, -7, 0, 1.5, True, False])
def test_the_duplicate_member_says_something_else_of_the_same_type(value: object) -> None:
    """The first member twice, the second another value of its type: a parser that keeps the
    last would hand the agent a different answer without a word."""
    built = scaffold.build("t", (json.dumps({"first": value, "b": 1}).encode(), "s.json"))
    raw = _fixture(built, "fixtures/reject/duplicate_member.json")
    pairs = json.loads(raw, object_pairs_hook=lambda pairs: pairs)
    (key, kept), (again, said) = pairs[:2]
    assert (key, again, kept) == ("first", "first", value)
    assert said != value
    assert type(said) is type(value)


def test_a_sample_holding_every_extra_member_name_drops_those_near_misses(tmp_path: Path) -> None:
    """Every name an added member would take is the sample's own: no such fixture, and the
    folder still passes its own lint and test."""
    taken = ["unexpected_field", "unexpected", "extra_field", "message", "note", "comment"]
    taken += ["instructions", "error", "errors", "failure"]
    built = scaffold.build("t", (json.dumps(dict.fromkeys(taken, "x")).encode(), "s.json"))
    names = {Path(file.path).name.split(".")[0] for file in built.files}
    assert not names & {"extra_property", "injection", "success_with_error"}
    scaffold.write(built, tmp_path)
    passes_its_own_lint_and_test(tmp_path)


def test_a_long_member_name_inside_an_array_gets_room_in_the_limits(tmp_path: Path) -> None:
    """A name of 300 characters in an array's object: max_string_length holds it, so the
    drafted contract accepts its own sample."""
    raw = json.dumps({"rows": [{"k" * 300: 1}]}).encode()
    built = scaffold.build("t", (raw, "s.json"))
    scaffold.write(built, tmp_path)
    limits = tomllib.loads((tmp_path / "contract.toml").read_text("utf-8"))["limits"]
    assert limits["max_string_length"] >= 300
    passes_its_own_lint_and_test(tmp_path)


@pytest.mark.parametrize("value", [None, [1], {"a": 1}])
def test_a_first_member_of_no_scalar_type_is_duplicated_as_it_is(value: object) -> None:
    """null, an array, an object: the duplicate repeats the member, still refused as one."""
    built = scaffold.build("t", (json.dumps({"first": value, "b": 1}).encode(), "s.json"))
    raw = _fixture(built, "fixtures/reject/duplicate_member.json")
    pairs = json.loads(raw, object_pairs_hook=lambda pairs: pairs)
    assert pairs[0][0] == pairs[1][0] == "first"
    assert pairs[0][1] == pairs[1][1]


@pytest.mark.parametrize("sample", [None, *SAMPLES_OF_EVERY_MISS])
def test_each_limits_near_miss_is_one_past_its_limit(sample: bytes | None) -> None:
    """Too large by one byte, too deep by one level, too long by one character: each probes
    the limit the contract sets, not somewhere past it."""
    built = scaffold.build("t", None if sample is None else (sample, "s.json"))
    limits = tomllib.loads(_fixture(built, "contract.toml").decode())["limits"]
    reject = "fixtures/reject/limits_"
    assert len(_fixture(built, f"{reject}too_large.json")) == limits["max_bytes"] + 1
    deep = json.loads(_fixture(built, f"{reject}too_deep.json"))
    assert _depth(deep) == limits["max_depth"] + 1
    long = json.loads(_fixture(built, f"{reject}string_too_long.json"))
    assert max(len(text) for text in long.values() if isinstance(text, str)) == (
        limits["max_string_length"] + 1
    )


def _depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(_depth, value), default=0)
    return 0
