"""Signed evidence: a compact JWS in a response, verified offline against a pinned policy.

The `signed` rule (`rules.py`) reads a token at a pointer and hands it here. The contract pins
everything a token could otherwise choose for itself: the algorithms (`algorithms.py`), the
public keys (`keyset.py`, read and compiled with the contract), the issuer and the clock
checks (`verify.py`). The token's header and claims are read by toolguard's own strict parser
(`token.py`) before any other code sees them; only the signature arithmetic is the JOSE
library's (`jose.py`, the `signed` extra, imported only when a contract uses the rule).
"""
