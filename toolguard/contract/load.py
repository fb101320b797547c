"""Load a contract: a TOML file (+ its JSON Schemas) -> a frozen `Contract`, or a `ContractError`.

The TOML is validated against the shipped `schemas/contract.schema.json` before anything is
built from it, so an unknown key or a wrong type is named with its file and field. The payload
schema is read with the same strict, bounded parser as responses and compiled fail-closed.
A warm load takes everything compiled and derived from the contract's artefact (`artefact.py`):
the checked TOML, each compiled schema, the implied envelope schema and the digest; what a
check reads of the contract is then built from them, and nothing is checked twice.
"""

from __future__ import annotations

import os
from types import MappingProxyType

from toolguard.adapters import build_adapter, kind_of
from toolguard.contract import artefact
from toolguard.contract.audit_policy import AuditPolicy
from toolguard.contract.mcp_policy import McpPolicy
from toolguard.contract.model import Contract
from toolguard.digest import sha256
from toolguard.error_documents import ErrorDocument, Mapped
from toolguard.errors import (
    ContractError,
    MissingExtra,
    Problem,
    Rejection,
    SchemaError,
    SchemaUnreadable,
)
from toolguard.files import open_regular, path_text
from toolguard.invisible import find_invisible, invisible_at
from toolguard.limits import Limits, read_bounded
from toolguard.pointer import join
from toolguard.projection import DisplayText, Projection
from toolguard.rules import RULE_BY_KIND, ContractFile
from toolguard.run.environment import DEFAULT_NAMES, INHERIT, is_own
from toolguard.run.policy import RunPolicy
from toolguard.run.retry import RetryPolicy, budget_conflict
from toolguard.schema import Validator, compile_schema
from toolguard.standins import cache

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Hashable, Iterable, Iterator
    from pathlib import Path
    from typing import Any

    from toolguard.rules import Rule
    from toolguard.run.environment import Inherit

# Contracts are configuration, not responses: a generous budget, the same strictness.
CONTRACT_MAX_BYTES = 1 << 20
_VALIDATOR_NAME = r"^data[^ ]* "  # fastjsonschema's "data.rules[0].x " prefix
_UNDECLARED = "is not declared by the schema's properties/prefixItems/items"


def load_contract(path: str | Path, *, need_extras: bool = True, cache: bool = True) -> Contract:
    """Load, validate and compile a contract file; raise `ContractError` naming file and field.

    `need_extras=False` builds an adapter that needs an optional extra without it (lint).
    `cache=False` neither reads nor stores the contract's artefact: a contract in a temporary
    folder (`diff --against`) would leave one behind per run, under a path never seen again.
    """
    source = path_text(path)  # as `str(Path(path))`: the name every diagnostic shows
    raw = _read_toml_bytes(source)
    artefact_key = artefact.key(source, raw) if cache else None
    stored = artefact.read(artefact_key) if artefact_key is not None else None
    document = stored.document if stored else _checked(_decode_toml(raw, source), raw, source)
    schemas = _Schemas(source, stored)
    try:
        contract = _build(source, raw, document, schemas, need_extras)
    except ContractError as exc:
        if exc.source == source:  # NOTE: a schema file's own fault names that file, not a line
            from toolguard.contract.locate import position_of, toml_positions  # noqa: PLC0415

            positions = toml_positions(raw.decode("utf-8"))
            exc.place(lambda field: position_of(positions, join(field.split("."))))
        raise
    if stored is None and artefact_key is not None:
        derived = artefact.Derived(contract.envelope_schema_json, contract.digest)
        artefact.write(artefact_key, document, schemas.validators, schemas.files, derived)
    return contract


def _build(
    source: str, raw: bytes, document: dict[str, Any], schemas: _Schemas, need_extras: bool
) -> Contract:
    """The contract from its checked document; from an artefact, what it derived is reused.

    NOTE: what a cold load checks of the document past the contract schema (`_located`: each
    pointer declared, nothing given twice) and derives from it and the schema (the envelope
    schema, the digest) depends only on the TOML, the schema files and toolguard's sources,
    which the artefact's key and its file digests cover: a warm load takes it as stored.
    """
    stored = schemas.stored
    for field, named in named_paths(document):
        # NOTE: checked on every load, warm or cold: a path no file can have is a bad contract
        # now, not a ValueError from deep inside the audit trail later.
        if "\0" in named:
            raise ContractError("a path cannot hold a NUL", source=source, field=field)
    try:
        limits = Limits(**document.get("limits", {}))
    except ValueError as exc:
        raise ContractError(str(exc), source=source, field="limits") from None
    validator = schemas.file("schema", document["schema"])
    # From here on, the bundled form: every $ref a local pointer, whatever $id/$anchor it used.
    payload_schema = validator.schema
    # A warm load needs no field's location: the envelope schema is stored.
    locations = _located(document, payload_schema, source) if stored is None else {}
    rules = tuple(
        _rule(entry, index, schemas, source, need_extras=need_extras)
        for index, entry in enumerate(document.get("rules", []))
    )
    projection = _projection(document)
    run_table = document.get("run", {})
    documents = _error_documents(run_table, schemas)
    if stored is not None:
        success_validator = schemas.implied("success envelope", None)
        envelope_schema_json, digest = stored.derived.envelope_schema_json, stored.derived.digest
    else:
        from toolguard.contract.envelope_schema import (  # noqa: PLC0415 - cold loads only
            envelope_schema,
            self_check_schema,
        )

        try:
            implied = envelope_schema(
                document["tool"], document["version"], payload_schema, locations, projection
            )
            # NOTE: formats were asserted on the payload: here they are annotations, so the
            # self-check (the success branch alone, `self_check_schema`) repeats none of them.
            success_validator = schemas.implied("success envelope", self_check_schema(implied))
        except SchemaError as exc:
            raise ContractError(f"implied envelope schema: {exc}", source=source) from None
        _require_visible(implied, source)
        import json  # noqa: PLC0415 - a cold load only: a warm one takes it from the artefact

        envelope_schema_json = json.dumps(implied)
        digest = _digest(
            raw, [payload_schema, *(entry.validator.schema for entry in documents)], schemas.read
        )
    run = _run_policy(run_table, source)
    return Contract(
        source=source,
        tool=document["tool"],
        version=document["version"],
        limits=limits,
        adapter=build_adapter(document, source, need_extras=need_extras),
        adapter_kind=kind_of(document),
        validator=validator,
        rules=rules,
        projection=projection,
        success_validator=success_validator,
        envelope_schema_json=envelope_schema_json,
        digest=digest,
        error_documents=documents,
        audit=AuditPolicy.from_table(document.get("audit", {}), os.path.dirname(source)),  # noqa: PTH120
        run=run,
        retry=_retry_policy(document.get("retry", {}), run, source),
        mcp=_mcp_policy(document, source),
    )


def named_paths(document: dict[str, Any]) -> Iterator[tuple[str, str]]:
    """Every path a contract names, with its field: files it reads, and the `[audit]` paths.

    Files read: schemas and the files rule options name (a `signed` rule's key set).
    (The contract schema's `$defs/path` and `$defs/schema_file`; a test keeps them in step.)
    """
    yield "schema", document["schema"]
    for index, entry in enumerate(document.get("run", {}).get("error_documents", [])):
        yield f"run.error_documents.{index}.schema", entry["schema"]
    for index, entry in enumerate(document.get("rules", [])):
        for option in sorted(RULE_BY_KIND[entry["kind"]].files & entry.keys()):
            yield f"rules.{index}.{option}", entry[option]
    audit = document.get("audit", {})
    yield from ((f"audit.{key}", audit[key]) for key in ("log", "raw_dir") if key in audit)


def read_contract_document(path: Path | str) -> dict[str, Any]:
    """The contract's TOML, checked against the contract schema (`[lint]` included), as data.

    What `load_contract` builds from, and what `toolguard lint` reads (it lints what the
    loader would refuse, such as an undeclared projection pointer, as findings).
    """
    source = path_text(path)
    raw = _read_toml_bytes(source)
    return _checked(_decode_toml(raw, source), raw, source)


def referenced_files(document: dict[str, Any]) -> tuple[str, ...]:
    """Every file a checked contract document names, relative to its folder, each once.

    The payload schema, each error document's schema and each file a rule option names (a
    `signed` rule's key set): what the loader reads besides the TOML, and what `diff
    --against` takes from git with it. A contract's schemas reach no other file: their
    `$ref`s resolve within the document or to the shipped metaschemas.
    """
    names = [document["schema"]]
    names += [entry["schema"] for entry in document.get("run", {}).get("error_documents", [])]
    for entry in document.get("rules", []):
        files = RULE_BY_KIND[entry["kind"]].files
        names += [entry[option] for option in sorted(files & entry.keys())]
    return tuple(dict.fromkeys(names))


def _checked(document: dict[str, Any], raw: bytes, source: str) -> dict[str, Any]:
    """`document` if the contract schema accepts it, else every problem, placed and in words.

    The fail-fast validator decides; only a refused contract pays for the collecting one.
    """
    typed = _as_written(document)
    if _contract_validator().is_valid(typed):
        return document
    from toolguard.contract.problems import problems  # noqa: PLC0415 - refused contracts only

    collector = _contract_validator(collect=True)
    found = problems(collector.errors(typed), document, raw.decode("utf-8"), collector.schema)
    if not found:  # NOTE: unreachable while both variants agree; the first error still shows
        first = _contract_validator().errors(typed)
        import re  # noqa: PLC0415 - refused contracts only

        field = (first[0].instance_path or "").strip("/").replace("/", ".") if first else ""
        message = re.sub(_VALIDATOR_NAME, "", first[0].message) if first else "refused"
        raise ContractError(f"{message} (by the contract schema)", source=source, field=field)
    raise ContractError(found[0].message, source=source, problems=found)


def _as_written(value: Any) -> Any:
    """The contract's data as the contract schema must judge it: a TOML float is no integer.

    JSON Schema calls `300.0` an integer; TOML keeps `300` and `300.0` apart, and a contract
    that writes a float where a count or a number of seconds belongs is refused (with its
    line), not read as the integer it happens to equal. Each float becomes an `ExactFloat`
    that is not an integer, for the validator only: the loaded contract keeps plain floats.
    """
    if isinstance(value, dict):
        return {key: _as_written(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_as_written(item) for item in value]
    if type(value) is float:
        from decimal import Decimal  # noqa: PLC0415 - cold loads only

        from toolguard.number import ExactFloat  # noqa: PLC0415

        return ExactFloat(value, Decimal(repr(value)), integer=False)
    return value


class _Schemas:
    """Compiles a contract's schemas, or takes them from its artefact, keeping what it did."""

    def __init__(self, source: str, stored: artefact.Artefact | None) -> None:
        self.source = source  # the contract: what a schema file that cannot be read blames
        self.folder = os.path.dirname(source)  # noqa: PTH120 - no pathlib at start-up
        self.stored = stored
        self.validators: dict[str, Validator] = {}
        self.files: list[tuple[str, str]] = []
        self.read: list[ContractFile] = []  # files rule options name, in contract order

    def file(self, label: str, relative: str) -> Validator:
        """The schema file at `relative` (to the contract), compiled.

        A file that cannot be read is the contract's problem (the field naming it, as for a
        key set); one that can but is not a schema toolguard can enforce is the file's.
        """
        if self.stored is not None:
            return Validator.from_entry(self.stored.entries[label])
        from pathlib import Path  # noqa: PLC0415 - cold loads only

        from toolguard.schema.refs import read_schema  # noqa: PLC0415

        schema_file = Path(self.folder, relative)
        try:
            validator = compile_schema(read_schema(schema_file, self.files))
        except SchemaUnreadable as exc:
            field = label if label == "schema" else f"{label}.schema"
            raise exc.blamed_on(self.source, field, relative) from None
        except SchemaError as exc:
            raise SchemaError(exc.message, source=str(schema_file), field=exc.field) from None
        self.validators[label] = validator
        return validator

    def contract_file(self, relative: str, source: str, field: str) -> ContractFile:
        """A file a rule option names, read within the contract budget every load.

        Nothing is compiled from it into the artefact (the rule is rebuilt from its bytes each
        load); its digest is recorded all the same, so an edited file is a miss, never stale.
        """
        path = os.path.join(self.folder, relative)  # noqa: PTH118 - no pathlib at start-up
        try:
            with open_regular(path) as stream:
                raw = read_bounded(stream, CONTRACT_MAX_BYTES)
        except OSError as exc:
            raise ContractError(
                f"cannot read {relative}: {exc.strerror}", source=source, field=field
            ) from None
        except Rejection:
            raise ContractError(
                f"{relative} is larger than {CONTRACT_MAX_BYTES} bytes", source=source, field=field
            ) from None
        read = ContractFile(relative, raw)
        self.files.append((path_text(path), read.sha256))
        self.read.append(read)
        return read

    def implied(self, label: str, schema: Any) -> Validator:
        """A schema toolguard derived (the envelope's), with formats as annotations.

        From an artefact, `schema` is not needed (None): its compiled entry is stored.
        """
        if self.stored is not None:
            return Validator.from_entry(self.stored.entries[label])
        validator = compile_schema(schema, formats=False)
        self.validators[label] = validator
        return validator


def _digest(raw: bytes, schemas: list[Any], files: list[ContractFile]) -> str:
    """Covers what decides an answer: the TOML, each compiled schema, each file a rule read.

    Schemas count as compiled (refs included); a rule's file (a key set) as its bytes.
    """
    import json  # noqa: PLC0415 - a cold load only

    digest = sha256(raw)
    for schema in schemas:
        digest.update(b"\0" + json.dumps(schema, sort_keys=True).encode())
    for file in files:
        digest.update(b"\0" + file.raw)
    return digest.hexdigest()


def _error_documents(table: dict[str, Any], schemas: _Schemas) -> tuple[ErrorDocument, ...]:
    """`[[run.error_documents]]`, compiled (the spelling is historical: `check` uses them too)."""
    return tuple(
        ErrorDocument(
            schemas.file(f"run.error_documents.{index}", entry["schema"]),
            Mapped(entry["code"], entry.get("retryable", False)),
            entry["schema"],
        )
        for index, entry in enumerate(table.get("error_documents", []))
    )


def _run_policy(table: dict[str, Any], source: str) -> RunPolicy:
    exits = {
        entry["status"]: Mapped(entry["code"], entry.get("retryable", False))
        for entry in table.get("exit_status", [])
    }
    return RunPolicy(
        timeout_seconds=table.get("timeout_seconds"),
        env=_environment(table.get("env"), source),
        exit_statuses=MappingProxyType({**RunPolicy().exit_statuses, **exits}),
    )


def _require_visible(implied: dict[str, Any], source: str) -> None:
    """Refuse an envelope schema holding a character a person cannot see.

    The agent reads it (the MCP listing's `outputSchema`, `toolguard schema`): the projected
    fields' subschemas, descriptions, enums and patterns as the payload schema wrote them,
    often copied from the server's own. Read as display text, as the listing's other strings.
    """
    found = find_invisible(implied, display=True)
    if found is not None:
        raise ContractError(
            f"the envelope schema the agent reads holds {found}, which a person cannot see, "
            "in a projected field's subschema (a pattern can spell it as an escape: \\u200b)",
            source=source,
            field="schema",
        )


def _mcp_policy(document: dict[str, Any], source: str) -> McpPolicy:
    """`[mcp]`; a `[text]` reader needs text to read, not `structuredContent`.

    The description is what the agent reads as the tool's: a person must see all of it.
    """
    policy = McpPolicy.from_table(document.get("mcp", {}))
    if policy.description is not None:
        index = invisible_at(policy.description, display=True)
        if index is not None:
            raise ContractError(
                f"U+{ord(policy.description[index]):04X} at character {index}, which a person "
                "cannot see (the agent reads this description)",
                source=source,
                field="mcp.description",
            )
    if "mcp" in document and "text" in document and policy.payload != "text":
        raise ContractError(
            'a [text] contract reads text: set payload = "text"', source=source, field="mcp.payload"
        )
    return policy


def _environment(env: list[str] | str | None, source: str) -> tuple[str, ...] | Inherit:
    """`[run] env`: absent, the default allow-list; `"*"`, everything; else exactly the list."""
    if env is None:
        return DEFAULT_NAMES
    if env == INHERIT:
        return INHERIT
    for index, name in enumerate(env):
        if is_own(name):
            raise ContractError(
                f"{name} is toolguard's own: TOOLGUARD_* variables never reach the command",
                source=source,
                field=f"run.env.{index}",
            )
    return tuple(env)


def _retry_policy(table: dict[str, Any], run: RunPolicy, source: str) -> RetryPolicy:
    options = dict(table)
    if "retry_on" in options:
        options["retry_on"] = frozenset(options["retry_on"])
    policy = RetryPolicy(**options)
    if run.timeout_seconds is not None and policy.budget_seconds is not None:
        conflict = budget_conflict(run.timeout_seconds, policy.budget_seconds)
        if conflict is not None:
            raise ContractError(conflict, source=source, field="retry.budget_seconds")
    return policy


@cache
def _contract_validator(*, collect: bool = False) -> Validator:
    """The contract schema's validator: shipped compiled, unless the collecting variant."""
    from toolguard.schema import prebuilt_validator  # noqa: PLC0415 - cold loads only
    from toolguard.schema.refs import read_schema  # noqa: PLC0415
    from toolguard.shipped import shipped_schema  # noqa: PLC0415

    shipped = None if collect else prebuilt_validator("contract")
    if shipped is not None:
        return shipped
    return compile_schema(read_schema(shipped_schema("contract.schema.json")), collect=collect)


def _read_toml_bytes(source: str) -> bytes:
    """Read the contract within a byte budget (`/dev/zero` is not a contract)."""
    try:
        with open_regular(source) as stream:
            raw = read_bounded(stream, CONTRACT_MAX_BYTES)
    except OSError as exc:
        hint = _folder_hint(source) if os.path.isdir(source) else ""  # noqa: PTH112
        raise ContractError(f"cannot read contract: {exc.strerror}{hint}", source=source) from None
    except ValueError:  # a NUL in the path: the operating system cannot name such a file
        raise ContractError(
            "cannot read contract: a path cannot hold a NUL", source=source
        ) from None
    except Rejection:
        raise ContractError(
            f"contract is larger than {CONTRACT_MAX_BYTES} bytes", source=source
        ) from None
    return raw


def _folder_hint(folder: str) -> str:
    """What to give instead of a folder: the contract in it, when there is one to name."""
    from toolguard.contract.find import CONTRACT_FILE  # noqa: PLC0415 - an error's path only

    inside = os.path.join(folder, CONTRACT_FILE)  # noqa: PTH118
    if os.path.isfile(inside):  # noqa: PTH113
        return f": give the contract file, {inside}"
    return ": give a contract file (.toml)"


def _decode_toml(raw: bytes, source: str) -> dict[str, Any]:
    import tomllib  # noqa: PLC0415 - a warm artefact never parses TOML

    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = ""  # NOTE: any other mark (UTF-16, UTF-32) is no UTF-8: named below
    if not text or text.startswith("\ufeff"):
        from toolguard.file_encoding import encoding_problem  # noqa: PLC0415 - refusals only

        if why := encoding_problem(raw):
            raise ContractError(f"contract {why}", source=source)
    try:
        return tomllib.loads(text, parse_float=_held_float)
    except _Unheld as exc:
        written, why = exc.args
        line, column = _literal_position(text, written)
        raise ContractError(why, source=source, line=line, column=column) from None
    except tomllib.TOMLDecodeError as exc:
        if text.lstrip().startswith(("{", "[{", "true", "false")):
            raise ContractError(_json_given(text), source=source) from None
        raise ContractError(f"not valid TOML: {exc}", source=source) from None


class _Unheld(ValueError):
    """A TOML float a contract cannot hold: (the number as written, why)."""


def _held_float(text: str) -> float:
    """A TOML float, only if its double is the number written (so bounds compare as written).

    `inf` and `nan` are refused (every bound compared with NaN passes), and so is a number
    its double would misrepresent: `86400.0000000000000001` is read as `86400.0`, under a
    maximum of 86400 it was meant to pass; `1e-400` as `0.0`, which it was meant not to be.
    """
    from decimal import Decimal  # noqa: PLC0415 - cold loads only

    value = float(text)
    if value != value or value in {float("inf"), float("-inf")}:  # noqa: PLR0124 - NaN test
        raise _Unheld(text, f"{text} is not a number a contract can hold (TOML's inf and nan)")
    if Decimal(text) != Decimal(repr(value)):
        why = f"{text} is not exactly a double: it would be read as {value!r}; write that"
        raise _Unheld(text, why)
    return value


def _literal_position(text: str, literal: str) -> tuple[int | None, int | None]:
    """Where `literal` is first written as a value (not in a comment), from 1; else unknown."""
    from toolguard.contract.locate import text_lines  # noqa: PLC0415 - an error path: off the check path

    for number, line in enumerate(text_lines(text), 1):
        column = line.split("#", 1)[0].find(literal)
        if column >= 0:
            return number, column + 1
    return None, None


def _json_given(text: str) -> str:
    """What to say of JSON given as a contract: most often, the contract's own schema."""
    keywords = ('"$schema"', '"type"', '"properties"', '"$defs"', '"$id"', '"$ref"')
    if text.strip() in {"true", "false"} or any(keyword in text for keyword in keywords):
        return (
            "this looks like a JSON Schema, not a contract: pass the contract .toml that names it"
        )
    return "this is JSON, not a contract: a contract is a TOML file (see docs/contract.md)"


def named_pointers(document: dict[str, Any]) -> Iterator[tuple[tuple[str, ...], str]]:
    """(where, pointer) for every payload pointer a checked contract document names.

    `where` is the key path to it in the TOML: `("projection", NAME)`, `("rules", N,
    "pointer")`, `("rules", N, BINDS, NAME)` for the pointers a rule binds (`signed`'s
    claims), `("display_text", "pointer")`. What the loader requires the payload schema to
    declare, and what `lint` reads the schema at.
    """
    for name, pointer in document["projection"].items():
        yield ("projection", name), pointer
    for index, entry in enumerate(document.get("rules", [])):
        yield ("rules", str(index), "pointer"), entry["pointer"]
        binds = RULE_BY_KIND[entry["kind"]].binds
        if binds is not None:
            for name, pointer in entry.get(binds, {}).items():
                yield ("rules", str(index), binds, name), pointer
    if document.get("display_text"):
        yield ("display_text", "pointer"), document["display_text"]["pointer"]


def _located(document: dict[str, Any], payload_schema: Any, source: str) -> dict[str, str]:
    """Where the payload schema declares each projected field; else every problem at once.

    What only the payload schema or a second entry can show, once the contract schema has
    passed: an undeclared pointer, a rule name or exit status given twice, an allowance for a
    field not projected. Raised together, each placed on its line by `load_contract`.
    """
    from toolguard.schema.locate import declared_location  # noqa: PLC0415 - cold loads only

    pointers = {".".join(where): pointer for where, pointer in named_pointers(document)}
    declared = {field: declared_location(payload_schema, pointers[field]) for field in pointers}
    found = [
        *_repeated_rule_names(document.get("rules", [])),
        *_repeated_exit_statuses(document.get("run", {}).get("exit_status", [])),
        *_unprojected_allowances(document),
        *(
            Problem(field, f"{pointers[field]} {_UNDECLARED}")
            for field, location in declared.items()
            if location is None
        ),
    ]
    if found:
        raise ContractError(found[0].message, source=source, problems=found)
    return {name: declared[f"projection.{name}"] or "" for name in document["projection"]}


def _repeated_rule_names(entries: list[dict[str, Any]]) -> Iterator[Problem]:
    """Each rule name given again.

    Diagnostics, the audit record and a fixture's `expect.toml` (`rule = ...`) name a failed
    rule by it: two rules of one name would read as one.
    """
    for seen, index in _repeats(entry["name"] for entry in entries):
        why = f"{entries[index]['name']!r} already names rule {seen}: rule names must be unique"
        yield Problem(f"rules.{index}.name", why)


def _repeated_exit_statuses(entries: list[dict[str, Any]]) -> Iterator[Problem]:
    """Each `[[run.exit_status]]` entry for a status mapped before.

    One status mapped to two meanings is ambiguous: refused, never settled by keeping one of
    them (which `run` and `diff` would then both silently follow).
    """
    for seen, index in _repeats(entry["status"] for entry in entries):
        why = (
            f"status {entries[index]['status']} is already mapped by run.exit_status.{seen}: "
            "each exit status may be mapped once"
        )
        yield Problem(f"run.exit_status.{index}.status", why)


def _repeats(values: Iterable[Hashable]) -> Iterator[tuple[int, int]]:
    """(first index, later index) for each value given again."""
    first: dict[Hashable, int] = {}
    for index, value in enumerate(values):
        seen = first.setdefault(value, index)
        if seen != index:
            yield seen, index


def _unprojected_allowances(document: dict[str, Any]) -> Iterator[Problem]:
    """Each `[allow_hidden_characters]` name that is no `[projection]` field."""
    for name in document.get("allow_hidden_characters", {}):
        if name not in document["projection"]:
            why = "names no [projection] field (only projected fields can be let through)"
            yield Problem(f"allow_hidden_characters.{name}", why)


def _rule(
    entry: dict[str, Any],
    index: int,
    schemas: _Schemas,
    source: str,
    *,
    need_extras: bool,
) -> Rule:
    """One `[[rules]]` entry built by its kind's factory, with the files it names read."""
    kind = RULE_BY_KIND[entry["kind"]]
    options = {key: value for key, value in entry.items() if key != "kind"}
    for option in sorted(kind.files & options.keys()):
        options[option] = schemas.contract_file(options[option], source, f"rules.{index}.{option}")
    if kind.extra is not None:
        options["need_library"] = need_extras
    try:
        return kind.build(**options)
    except MissingExtra as exc:
        raise MissingExtra(exc.extra, exc.message, source=source, field=f"rules.{index}") from None
    except ValueError as exc:
        raise ContractError(str(exc), source=source, field=f"rules.{index}") from None


def _projection(document: dict[str, Any]) -> Projection:
    """The projection, its display text and the fields let hold hidden characters."""
    display = document.get("display_text")
    display_text = DisplayText(display["pointer"], display["max_length"]) if display else None
    allow_hidden = document.get("allow_hidden_characters", {})
    return Projection(
        MappingProxyType(dict(document["projection"])),
        display_text,
        MappingProxyType(dict(allow_hidden)),
    )
