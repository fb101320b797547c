"""`ErrorCode` is the one list of agent-facing codes: every schema that names codes agrees."""

from __future__ import annotations

import json
import pickle
from pathlib import Path
from typing import Any

import pytest

import toolguard
from toolguard import load_contract
from toolguard.errors import (
    ERROR_CODES,
    LAYERS,
    BrokenInstall,
    ContextError,
    ContractError,
    ExitStatus,
    MissingExtra,
    Problem,
    Rejection,
    SchemaUnreadable,
    ToolguardError,
    UpstreamError,
    operator_text,
)
from toolguard.shipped import shipped_schema

REPO = Path(__file__).resolve().parents[1]


def _shipped(name: str) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(shipped_schema(name).read_text(encoding="utf-8"))
    return loaded


def test_the_contract_schema_allows_exactly_the_error_codes() -> None:
    """`[run]` mappings and `retry_on` can name every code, and nothing else."""
    assert _shipped("contract.schema.json")["$defs"]["error_code"]["enum"] == list(ERROR_CODES)


def test_the_audit_record_schema_allows_exactly_the_error_codes_and_layers() -> None:
    """A record's code and layer come from the same lists as the envelope's."""
    definitions = _shipped("audit-record.schema.json")["$defs"]
    assert definitions["error_code"]["enum"] == list(ERROR_CODES)
    assert definitions["layer"]["enum"] == list(LAYERS)


@pytest.mark.parametrize("example", sorted(p.name for p in (REPO / "examples").iterdir()))
def test_every_envelope_schema_allows_exactly_the_error_codes(example: str) -> None:
    """The failure branch of each contract's envelope schema lists every code, in order."""
    schema = load_contract(REPO / "examples" / example / "contract.toml").envelope_schema
    failure = next(branch for branch in schema["oneOf"] if branch["title"] == "Failure result")
    assert failure["properties"]["error"]["properties"]["code"]["enum"] == list(ERROR_CODES)


def test_bad_request_is_not_an_agent_facing_code() -> None:
    """serve's BAD_REQUEST belongs to its protocol, never to an envelope."""
    assert "BAD_REQUEST" not in ERROR_CODES


def test_every_rejection_class_names_a_listed_code_and_layer() -> None:
    """A rejection can only ever become a listed code at a listed layer, exiting 1."""
    classes = list(Rejection.__subclasses__())
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        assert cls.code in ERROR_CODES
        assert cls.layer in LAYERS
        assert cls.exit_status == ExitStatus.FAILURE


def test_every_invocation_error_exits_with_a_listed_status() -> None:
    """Usage, contract and internal errors map to statuses in the exit-status table."""
    classes = list(ToolguardError.__subclasses__())
    while classes:
        cls = classes.pop()
        classes.extend(cls.__subclasses__())
        assert cls.exit_status in set(ExitStatus)


def test_exit_statuses_read_as_the_enum_they_replace() -> None:
    """Each status is an int with a name; the class lists them in order, each value once.

    (Which statuses, in which order, is the README's table: `test_readme.py` holds them.)
    """
    statuses = list(ExitStatus)
    assert [status.name for status in statuses] == [
        name for name in vars(ExitStatus)["__annotations__"] if name.isupper()
    ]
    assert all(getattr(ExitStatus, status.name) is status for status in statuses)
    assert all(isinstance(status, ExitStatus) and isinstance(status, int) for status in statuses)
    assert len({int(status) for status in statuses}) == len(statuses)
    assert sorted(statuses) == statuses
    assert str(ExitStatus.INTERRUPTED) == f"{ExitStatus.INTERRUPTED}" == "130"
    assert repr(ExitStatus.USAGE) == "<ExitStatus.USAGE: 2>"
    assert hash(ExitStatus.CONTRACT) == hash(3)


CANARY = "CANARY-ignore-previous-instructions"


def _every(base: type[ToolguardError]) -> list[type[ToolguardError]]:
    classes, found = [base], []
    while classes:
        cls = classes.pop()
        found.append(cls)
        classes.extend(cls.__subclasses__())
    return found


def _rejection(cls: type[Rejection]) -> Rejection:
    """A rejection of `cls` whose every operator field quotes the canary."""
    if cls is UpstreamError:
        return UpstreamError("exit_status", f"said {CANARY}", code="NOT_FOUND", retryable=True)
    return cls(
        "pattern",
        f"data.{CANARY} must match pattern ^x$",
        offset=7,
        schema_path="/properties/a/pattern",
        instance_path=f"/{CANARY}",
        rule=f"rule on {CANARY}",
    )


@pytest.mark.parametrize(
    "cls", [cls for cls in _every(Rejection) if cls is not Rejection], ids=lambda cls: cls.__name__
)
def test_a_rejection_told_as_text_says_its_layer_and_reason_only(cls: type[Rejection]) -> None:
    """str, repr, f-strings and args of every rejection class quote nothing of the response.

    A host that logs the exception, or hands `str(exc)` or `exc.args[0]` to the model, passes
    on only `LAYER: REASON`; the operator reads the rest by name (`message`...).
    """
    rejection = _rejection(cls)
    told = [str(rejection), repr(rejection), f"{rejection}", *map(str, rejection.args)]
    assert not any(CANARY in text for text in told)
    assert str(rejection) == f"{cls.layer}: {rejection.reason}"
    assert CANARY in rejection.message
    assert CANARY in operator_text(rejection)


def test_a_schema_violation_raised_to_a_library_caller_quotes_nothing_of_the_instance() -> None:
    """`Validator.validate`'s error: member name and value only in `message`, `instance_path`."""
    validator = toolguard.compile_schema(
        {"properties": {"a": {"pattern": "^x$"}}, "additionalProperties": {"type": "integer"}}
    )
    for instance in ({"a": CANARY}, {CANARY: "text"}):
        with pytest.raises(toolguard.ValidationError) as caught:
            validator.validate(instance)
        assert CANARY not in str(caught.value)
        assert CANARY not in repr(caught.value)
        assert str(caught.value).startswith("schema: ")
    assert caught.value.instance_path == f"/{CANARY}"


def _instances() -> list[ToolguardError]:
    made: list[ToolguardError] = [_rejection(cls) for cls in _every(Rejection)[1:]]
    problems = (Problem("rules.0", "no such kind", 3, 1), Problem("schema", "missing", 4))
    made += [
        toolguard.UsageError("bad --context"),
        ContextError("missing request context: change_id"),
        BrokenInstall("toolguard's dependency ijson is not installed"),
        ContractError("one", source="c.toml", problems=problems),
        MissingExtra("jc", "needs the jc extra", source="c.toml", field="adapter"),
        toolguard.SchemaError("unknown keyword", source="s.json", field="maxLenght"),
        SchemaUnreadable("cannot read schema: gone", source="s.json"),
    ]
    return made


@pytest.mark.parametrize("error", _instances(), ids=lambda error: type(error).__name__)
def test_every_error_survives_pickling_whole(error: ToolguardError) -> None:
    """A process pool can hand any toolguard error back to its host: same class, args, fields.

    `Exception` rebuilds one as `cls(*args)`, which a class whose `__init__` takes other
    arguments (a rejection, an upstream error, a missing extra) refused.
    """
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert copy.args == error.args
    assert vars(copy) == vars(error)
    assert str(copy) == str(error)
