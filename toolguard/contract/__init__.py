"""Contracts: a TOML file and its schemas -> a frozen `Contract`, or a `ContractError`.

`load` reads, checks and compiles (through the cached `artefact`); `model` is the data;
`envelope_schema` derives the envelope schema a contract implies; `audit_policy` is its
`[audit]` table.
"""

from __future__ import annotations

from toolguard.contract.load import load_contract, read_contract_document, referenced_files
from toolguard.contract.model import Contract

__all__ = ["Contract", "load_contract", "read_contract_document", "referenced_files"]
