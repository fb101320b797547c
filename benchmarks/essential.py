"""The floor for any Python tool doing toolguard's job: only the essential work, nothing else.

    python benchmarks/essential.py VALIDATOR.marshal CONTEXT.json < response.json

A JSON parse with a duplicate-member hook, a validator generated and marshal'd beforehand
(`prepare`), the request match (project and run), the envelope on stdout. No limits, formats,
freshness, diagnostics, cache checks or audit: the row of `benchmarks/run.py` that shows what
starting Python and doing only this costs.
"""

from __future__ import annotations

import json
import marshal
import sys

TYPE_CHECKING = False  # NOTE: importing `typing` would add to the floor
if TYPE_CHECKING:
    from typing import Any

FIELDS = ("project_id", "run_id", "state", "observed_at")


def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    names = [name for name, _ in pairs]
    if len(set(names)) != len(names):
        raise ValueError("duplicate member")
    return dict(pairs)


def main() -> None:
    namespace: dict[str, Any] = {}
    with open(sys.argv[1], "rb") as file:  # noqa: PTH123 - pathlib is start-up time
        exec(marshal.load(file), namespace)
    with open(sys.argv[2], "rb") as file:  # noqa: PTH123
        context = json.load(file)
    document = json.loads(sys.stdin.buffer.read(), object_pairs_hook=unique)
    namespace["validate"](document)
    if document["project_id"] != context["project_id"]:
        raise SystemExit(1)
    if document["run_id"] not in context["project_runs"]:
        raise SystemExit(1)
    data = {name: document[name] for name in FIELDS}
    sys.stdout.write(json.dumps({"outcome": "success", "data": data}) + "\n")


def prepare(schema_path: str, out_path: str) -> None:
    """Generate the validator's code once (fastjsonschema), compiled and marshal'd."""
    import fastjsonschema  # noqa: PLC0415 - only when preparing

    with open(schema_path, "rb") as file:  # noqa: PTH123
        schema = json.load(file)
    code = fastjsonschema.compile_to_code(schema)
    # NOTE: the generated code imports fastjsonschema (and decimal) for its exceptions alone;
    # the floor defines them instead, as a specialised tool would.
    code = code.replace("from decimal import Decimal\n", "Decimal = float\n").replace(
        "from fastjsonschema import JsonSchemaValueException, JsonSchemaValuesException\n",
        "class JsonSchemaValueException(ValueError):\n"
        "    def __init__(self, *args, **kwargs): super().__init__(*args)\n"
        "JsonSchemaValuesException = JsonSchemaValueException\n",
    )
    entry = code.split("\ndef ", 1)[1].split("(", 1)[0]  # the first function is the root
    code += f"\nvalidate = {entry}\n"
    with open(out_path, "wb") as file:  # noqa: PTH123
        marshal.dump(compile(code, "validator", "exec"), file)


if __name__ == "__main__":
    main()
