"""Audit trail: why the agent saw what it saw, kept for the operator after the process exits.

`record.py` builds one bounded JSON record per check; `log.py` appends it with one O_APPEND
write; `raw.py` keeps private, content-addressed copies of raw responses; `trail.py` ties them
to an outcome and fails closed; `explain.py` and `summary.py` read the log back for people.
"""
