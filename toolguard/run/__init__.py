"""`toolguard run`'s machinery: spawn the command bounded, read its exit, retry by policy.

`spawn` runs one attempt (no shell, its own process group, output capped while reading) with
the environment `environment` allows and the program `program` finds on its PATH; `reaper`
ends, in the CLI, the descendants that left the group; `policy` says what an attempt without
a usable answer means; `retry` decides whether to try again. `pipeline.run_upstream` puts
them together.
"""
