"""`toolguard init TOOL`: a small working contract to replace with the tool's own fields.

The example answers "what state is item N in, as observed when?": an identifier held to a
pattern and matched against the request, a state from a closed list, and a timestamp that
must be recent. It shows each part of a contract once, so each near miss has a layer to
catch it: the parser, the limits, the schema, a rule.
"""

from __future__ import annotations

from toolguard.scaffold.draft import DIALECT
from toolguard.scaffold.draft_contract import Draft, limits_table, top_entries
from toolguard.scaffold.near_misses import INVALID, Edit, limits_for
from toolguard.scaffold.render import Entry, Table, contract_text, json_bytes

NOW = "2026-03-14T09:30:00Z"
SAMPLE = {"id": "item-1042", "state": "ok", "observed_at": "2026-03-14T09:29:30Z"}
CONTEXT = {"id": "item-1042"}


def example(tool: str) -> Draft:
    """The example contract for `tool`, its schema, sample, context and rule near misses."""
    schema = {
        "$schema": DIALECT,
        "title": f"{tool} payload",
        "description": "toolguard init's example: replace these fields with your tool's own.",
        "type": "object",
        "required": ["id", "state", "observed_at"],
        "properties": {
            "id": {"type": "string", "pattern": "^item-[0-9]{1,10}$"},
            "state": {"enum": ["ok", "failed", "pending"]},
            "observed_at": {"type": "string", "format": "date-time", "maxLength": 35},
        },
        "additionalProperties": False,
    }
    raw = json_bytes(SAMPLE) + b"\n"
    limits = limits_for(SAMPLE, raw, schema)
    assert limits is not None  # a fixed, small example
    contract = contract_text(
        [
            f"{tool}: made by `toolguard init`, an example to replace with the tool's own fields.",
            f"From a real answer instead: toolguard init {tool} --from response.json",
            "The format: docs/contract.md in toolguard's documentation.",
        ],
        top_entries(tool),
        [
            limits_table(limits, "checked while reading and parsing, before the schema"),
            Table(
                "[[rules]]",
                [
                    Entry("name", "id_matches_request"),
                    Entry("kind", "equals_context"),
                    Entry("pointer", "/id"),
                    Entry("context", "id"),
                ],
                "the answer is about *this* request (context.json)",
            ),
            Table(
                "[[rules]]",
                [
                    Entry("name", "observation_fresh"),
                    Entry("kind", "fresh"),
                    Entry("pointer", "/observed_at"),
                    Entry("max_age_seconds", 300),
                    Entry("max_future_seconds", 30),
                ],
                "and recent: at most 5 minutes old",
            ),
            Table(
                "[projection]",
                [Entry(name, f"/{name}") for name in SAMPLE],
                "the only fields the agent receives",
            ),
        ],
    )
    edits = [
        Edit(
            "empty_identifier",
            "an empty identifier, where the pattern wants item-N",
            ("id",),
            "",
            {"code": INVALID, "layer": "schema", "keyword": "pattern"},
        ),
        Edit(
            "state_not_in_enum",
            "a state the contract does not list (the right word, the wrong case)",
            ("state",),
            "OK",
            {"code": INVALID, "layer": "schema", "keyword": "enum"},
        ),
        Edit(
            "wrong_item",
            "a result that does not match the request: another item's state",
            ("id",),
            "item-1043",
            _rule("id_matches_request", "mismatch"),
        ),
        Edit(
            "stale",
            "a stale timestamp: observed 5 minutes and 1 second before the request",
            ("observed_at",),
            "2026-03-14T09:24:59Z",
            _rule("observation_fresh", "stale"),
        ),
        Edit(
            "future",
            "a timestamp from the future: 31 seconds after the request",
            ("observed_at",),
            "2026-03-14T09:30:31Z",
            _rule("observation_fresh", "future"),
        ),
    ]
    return Draft(
        tool, "example", raw, SAMPLE, schema, limits, contract, CONTEXT, NOW, tuple(SAMPLE), edits
    )


def _rule(name: str, reason: str) -> dict[str, str]:
    return {"code": INVALID, "layer": "rule", "rule": name, "reason": reason}
