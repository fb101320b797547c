"""Reading the audit trail back: `toolguard explain` and `toolguard audit summary`.

`find` locates one request's records (and re-checks its raw bytes with today's contract);
`summary` counts a log's records; `render` shows either to people or programs. Everything
read here is re-validated: a log is a file anyone with write access could have edited.
"""
