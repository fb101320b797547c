"""Contract rules: what lint asks of a contract beyond its schemas.

The projection, rules and display text must read fields the schema declares, requires and
types as they need; the tool name, limits and version must follow the conventions. Each
check's description (`lint_rule`) opens with the rule's rationale, drawn from the article.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from toolguard.adapters import ADAPTER_BY_KIND, kind_of
from toolguard.contract import Contract
from toolguard.contract.load import named_pointers
from toolguard.contract.names import TOOL_NAME
from toolguard.limits import Limits
from toolguard.lint.findings import Finding, Hit, lint_rule
from toolguard.lint.patterns import admits_sentence
from toolguard.lint.schema_rules import bounded_string
from toolguard.lint.views import Document, Reach, View
from toolguard.lint.walk import leaf_views, resolve_field
from toolguard.pointer import is_index, join, tokens
from toolguard.rules import RULE_BY_KIND
from toolguard.schema.locate import declared_location
from toolguard.semver import parse_semver

MAX_SANE_BYTES = Limits().max_bytes  # 1 MiB: above it, an answer is a dump, not evidence
MAX_SANE_DEPTH = Limits().max_depth


@dataclass(frozen=True)
class ContractSubject:
    """A contract as lint sees it: its file, its TOML (as data) and its payload schema."""

    file: str
    document: dict[str, Any]
    schema: Document

    def readers(self) -> Iterator[tuple[str, str, str]]:
        """(where in the contract, payload pointer, who reads it) for every pointer used."""
        for where, pointer in named_pointers(self.document):
            yield join(where), pointer, self._reader(where)

    def _reader(self, where: tuple[str, ...]) -> str:
        """Who reads the pointer at `where` (a `named_pointers` key path), in words."""
        if where[0] == "projection":
            return f"projection field {where[1]!r}"
        if where[0] == "display_text":
            return "the display text"
        rule = f"rule {self.document['rules'][int(where[1])]['name']!r}"
        return rule if where[2:] == ("pointer",) else f"{rule} ({where[2]} {where[3]!r})"

    @property
    def fixed_depth(self) -> bool:
        """Whether the adapter builds documents of its own depth (a `[text]` line adapter)."""
        return ADAPTER_BY_KIND[kind_of(self.document)].fixed_depth


@lint_rule(
    "TG009",
    "undeclared-pointer",
    """Build a new object holding exactly the data the tool's contract promises.

    So every projection, rule and display-text pointer is declared by the schema through
    `properties`/`items` (toolguard refuses to load the contract otherwise).
    """,
)
def undeclared_pointer(contract: ContractSubject) -> Iterator[Hit]:
    for where, pointer, reader in contract.readers():
        if declared_location(contract.schema.schema, pointer) is None:
            yield Hit(
                contract.file,
                where,
                f"{reader} reads {pointer}, which the schema's properties/prefixItems/items "
                "do not declare",
            )


@lint_rule(
    "TG010",
    "not-required",
    """All-optional schemas force the agent to infer the state from fragments.

    So `required` covers every field the rules or the projection read, at every level (and
    `minItems` every array position they read): an answer without it must fail the schema,
    not a later layer.
    """,
)
def not_required(contract: ContractSubject) -> Iterator[Hit]:
    for where, pointer, reader in contract.readers():
        steps, field = resolve_field(contract.schema, pointer)
        for view, token in steps if field is not None else ():  # undeclared: TG009 says so
            if view.requires(token):
                continue
            lengths = [node.get("minItems", 0) for _, node in view.dicts]
            if is_index(token) and "array" in view.types and max(lengths, default=0) > int(token):
                continue
            yield Hit(
                contract.file,
                where,
                f"{reader} reads {pointer}, but {token!r} is not required at "
                f"{view.root or '(root)'}: a schema-valid answer may lack it",
            )
            break


@lint_rule(
    "TG011",
    "rule-field-type",
    """Semantic checks need fields they can check: a timestamp that really is one.

    `fresh` reads a string with `format: date-time` (RFC 3339, asserted by toolguard);
    `equals_request_id` and `matches_context_pattern` read strings; `signed` reads a bounded
    string (as TG002 bounds one); `equals_context` and `member_of_context` read scalars,
    never objects or arrays.
    """,
)
def rule_field_type(contract: ContractSubject) -> Iterator[Hit]:
    for index, rule in enumerate(contract.document.get("rules", [])):
        _, view = resolve_field(contract.schema, rule["pointer"])
        if view is None:
            continue
        types = view.value_types
        kind = rule["kind"]
        reads = RULE_BY_KIND[kind].reads
        if reads == "date-time":
            dated = any(node.get("format") == "date-time" for _, node in view.dicts)
            needs, ok = "a string with format: date-time", types <= {"string"} and dated
        elif reads == "string":
            needs, ok = "a string", types <= {"string"}
        elif reads == "bounded-string":
            needs = "a string bounded by maxLength (a token is read whole)"
            ok = types <= {"string"} and bounded_string(view)
        else:
            needs, ok = "a scalar", not types & {"object", "array"}
        if not ok:
            yield Hit(
                contract.file,
                f"/rules/{index}/pointer",
                f"rule {rule['name']!r} ({kind}) needs {needs} at {rule['pointer']}; the "
                f"schema at {view.root} allows {', '.join(sorted(types)) or 'nothing'}",
            )


@lint_rule(
    "TG012",
    "unbounded-display-text",
    """A message for a person goes in a separate, length-bounded, untrusted field.

    So the display text is a string whose schema `maxLength` is at most
    `display_text.max_length`: an over-long text fails the schema, not the projection.
    """,
)
def unbounded_display_text(contract: ContractSubject) -> Iterator[Hit]:
    display = contract.document.get("display_text")
    if not display:
        return
    _, view = resolve_field(contract.schema, display["pointer"])
    if view is None:
        return
    lengths = [
        node["maxLength"] for _, node in view.dicts if isinstance(node.get("maxLength"), int)
    ]
    bounded = view.pinned or (bool(lengths) and min(lengths) <= display["max_length"])
    if view.value_types <= {"string"} and bounded:
        return
    yield Hit(
        contract.file,
        "/display_text/pointer",
        f"the display text {display['pointer']} must be a string with maxLength at most "
        f"{display['max_length']} (display_text.max_length)",
    )


@lint_rule(
    "TG019",
    "free-text-field",
    """Free text reaches the agent as data; text for a person belongs in the display text.

    A notice, which never fails lint: a projected string, at any depth of a projected field,
    not fixed by `enum`/`const` and whose `pattern`s and `format`s let a sentence through (none
    at all, `.*`, `format: regex`...), can hold any visible text, an instruction included.
    toolguard refuses in it only what a person cannot see (hidden characters), not what it
    says. Text meant for a person goes in `[display_text]`, which reaches the agent as
    `untrusted_display_text`, a name that says what it is; waive the notice where a free
    string is the field's point (a person's name).
    """,
    severity="notice",
)
def free_text_field(contract: ContractSubject) -> Iterator[Hit]:
    schema = contract.schema
    projected = Reach.of(contract.document["projection"].values())
    document = Document(schema.schema, schema.raw, schema.file, projected)
    for view in leaf_views(document):
        if not (view.reach and view.holds("string")):
            continue
        patterns, formats = _written(view, "pattern"), _written(view, "format")
        if not admits_sentence(patterns, formats):
            continue
        held = "no pattern, enum, const or format"
        if patterns or formats:
            held = "a pattern or format that lets a sentence through"
        yield Hit(
            schema.file,
            view.root,
            f"a projected string with {held}: any visible text reaches the agent here as "
            "data; text meant for a person belongs in [display_text] (untrusted_display_text)",
        )


def _written(view: View, keyword: str) -> list[str]:
    """The string values of `keyword` (`pattern`, `format`) in the view's members."""
    return [node[keyword] for _, node in view.dicts if isinstance(node.get(keyword), str)]


@lint_rule(
    "TG013",
    "tool-name",
    """A fixed tool value keeps a dispatcher from taking one result for another's.

    So the tool name is snake_case words, as the envelope's `tool` const and the function
    names of agent runtimes expect: `^[a-z][a-z0-9]*(_[a-z0-9]+)*$`, no leading, trailing or
    doubled underscore.
    """,
)
def tool_name(contract: ContractSubject) -> Iterator[Hit]:
    tool = contract.document["tool"]
    if not TOOL_NAME.fullmatch(tool):
        yield Hit(contract.file, "/tool", f"tool {tool!r} is not snake_case words")


@lint_rule(
    "TG014",
    "limits-unset",
    """Set an explicit maximum size in bytes and nesting depth at the transport boundary.

    So `[limits]` sets `max_bytes` and `max_depth` (not for a `[text]` line adapter, whose
    documents are always three levels deep): the defaults were not chosen for this tool.
    """,
)
def limits_unset(contract: ContractSubject) -> Iterator[Hit]:
    limits = contract.document.get("limits", {})
    if "max_bytes" not in limits:
        yield Hit(contract.file, "/limits/max_bytes", "max_bytes is not set (default: 1 MiB)")
    if "max_depth" not in limits and not contract.fixed_depth:
        yield Hit(contract.file, "/limits/max_depth", "max_depth is not set (default: 32)")


@lint_rule(
    "TG015",
    "limits-insane",
    """Limits protect only if tight enough to matter and loose enough for valid answers.

    So `max_bytes` is at most 1 MiB and `max_depth` at most 32 (waive with a reason for a
    tool that needs more), and `max_depth` is at least the depth of every field read.
    """,
)
def limits_insane(contract: ContractSubject) -> Iterator[Hit]:
    limits = contract.document.get("limits", {})
    if limits.get("max_bytes", 0) > MAX_SANE_BYTES:
        yield Hit(
            contract.file,
            "/limits/max_bytes",
            f"max_bytes {limits['max_bytes']} is over {MAX_SANE_BYTES}: a dump, not evidence",
        )
    depth = limits.get("max_depth", MAX_SANE_DEPTH)
    if depth > MAX_SANE_DEPTH:
        yield Hit(contract.file, "/limits/max_depth", f"max_depth {depth} is over {MAX_SANE_DEPTH}")
    if contract.document.get("text") is not None:
        return  # the adapter builds the document: its depth is not the answer's
    for _, pointer, reader in contract.readers():
        _, view = resolve_field(contract.schema, pointer)
        containers = view is not None and bool(view.value_types & {"object", "array"})
        needed = len(tokens(pointer)) + containers
        if depth < needed:
            yield Hit(
                contract.file,
                "/limits/max_depth",
                f"max_depth {depth} is below the {needed} levels {reader} ({pointer}) needs: "
                "every answer would be rejected",
            )


@lint_rule(
    "TG016",
    "version-scheme",
    """Version incompatible changes explicitly.

    So the contract version is semantic (`MAJOR.MINOR.PATCH`, SemVer 2.0.0, as `diff`
    compares it): a new required field, a narrower enum or a changed type shows as a new
    major version.
    """,
)
def version_scheme(contract: ContractSubject) -> Iterator[Hit]:
    version = contract.document["version"]
    if parse_semver(version) is None:
        yield Hit(
            contract.file,
            "/version",
            f"version {version!r} is not a semantic version (MAJOR.MINOR.PATCH, SemVer 2.0.0)",
        )


@lint_rule(
    "TG018",
    "unretryable-retry-code",
    """Retry only what may succeed next time.

    So every code in `[retry] retry_on` is one the contract can give as retryable:
    `UPSTREAM_UNAVAILABLE` (timeouts, signals, exit 255), or a code an `[[run.exit_status]]` or
    `[[run.error_documents]]` entry maps with `retryable = true`. `INVALID_RESPONSE` never is:
    a malformed answer is malformed again, so listing it can never retry anything.
    """,
)
def unretryable_retry_code(contract: ContractSubject) -> Iterator[Hit]:
    run = contract.document.get("run", {})
    retryable = {"UPSTREAM_UNAVAILABLE"}
    for entry in (*run.get("exit_status", []), *run.get("error_documents", [])):
        if entry.get("retryable", False):
            retryable.add(entry["code"])
    for index, code in enumerate(contract.document.get("retry", {}).get("retry_on", [])):
        if code not in retryable:
            yield Hit(
                contract.file,
                f"/retry/retry_on/{index}",
                f"retry_on lists {code}, which this contract never gives as retryable: "
                "it can never be retried",
            )


@lint_rule(
    "TG021",
    "unbound-field",
    """A signature binds only the claims it carries: an unbound field can change beside it.

    So, in a contract with a rule that vouches for fields (`signed`, through
    `[rules.claims]`), each projected field, and the display text (the agent receives it
    too, labelled untrusted), is bound by one of its claims (at its pointer or above it), or
    is the token itself; a notice names each one a genuine token does not cover.
    """,
    severity="notice",
)
def unbound_field(contract: ContractSubject) -> Iterator[Hit]:
    bound: list[str] = []
    vouching: list[str] = []
    for rule in contract.document.get("rules", []):
        binds = RULE_BY_KIND[rule["kind"]].binds
        if binds is None:
            continue
        vouching.append(repr(rule["name"]))
        bound += [rule["pointer"], *rule.get(binds, {}).values()]
    if not vouching:
        return
    for location, pointer, what in contract.readers():
        if location.startswith("/rules/"):
            continue  # what the agent receives: the projection and the display text
        if not any(pointer == b or pointer.startswith(f"{b}/") for b in bound):
            yield Hit(
                contract.file,
                location,
                f"{what} ({pointer}) is bound by no claim of {', '.join(vouching)}: it can "
                "change beside a genuine token",
            )


@dataclass(frozen=True)
class BuiltSubject:
    """A contract as the loader built it (rules included), for what only building tells."""

    file: str
    contract: Contract


@lint_rule(
    "TG020",
    "ignored-key",
    """Keys a contract cannot use are set aside, not silently trusted or silently refused.

    So lint names each key of a `signed` rule's key set that no listed algorithm can use, or
    whose `use`/`key_ops` is not signature verification: a published set works as it is,
    and a reviewer sees which of its keys count.
    """,
    severity="notice",
)
def ignored_key(subject: BuiltSubject) -> Iterator[Hit]:
    for index, rule in enumerate(subject.contract.rules):
        by_option: dict[str, list[str]] = {}
        for option, why in RULE_BY_KIND[rule.kind].ignored(rule):
            by_option.setdefault(option, []).append(why)
        for option, whys in by_option.items():  # one finding per place: all of them in it
            where = f"/rules/{index}/{option}"
            yield Hit(subject.file, where, f"rule {rule.name!r}: {'; '.join(whys)}")


@dataclass(frozen=True)
class WaiverSubject:
    """A contract's waivers and the findings they were matched against."""

    file: str
    waivers: tuple[dict[str, str], ...]
    findings: tuple[Finding, ...]


@lint_rule(
    "TG017",
    "unmatched-waiver",
    """A waiver that matches nothing hides nothing today, and the wrong finding tomorrow.

    So every `[[lint.waive]]` entry matches a finding of its rule at its pointer.
    """,
    severity="warning",
)
def unmatched_waiver(subject: WaiverSubject) -> Iterator[Hit]:
    for index, waiver in enumerate(subject.waivers):
        rule, pointer = waiver["rule"], waiver["pointer"]
        if not any(f.rule == rule and f.pointer == pointer for f in subject.findings):
            yield Hit(
                subject.file,
                f"/lint/waive/{index}",
                f"the waiver of {rule} at {pointer or '(root)'} matches no finding",
            )


CONTRACT_RULES = (
    undeclared_pointer,
    not_required,
    rule_field_type,
    unbounded_display_text,
    tool_name,
    limits_unset,
    limits_insane,
    version_scheme,
    unretryable_retry_code,
    free_text_field,
    unbound_field,
)
BUILT_RULES = (ignored_key,)
UNMATCHED_WAIVER = unmatched_waiver
