"""`toolguard mcp`: every `tools/call` result of an MCP server held to a contract, fail closed.

The MCP client starts toolguard where it would start the server; toolguard starts the server
and relays newline-delimited JSON-RPC both ways (`relay`), every line read by the strict
parser (`jsonrpc`, with `members` for byte spans). The tool listing and the server's own
description are rewritten (`listing`); a guarded call's answer becomes an envelope (`calls`);
the rest of MCP passes unless the operator shuts a channel of it (`channels`);
the server is started, stopped and its status read by `lifecycle`; diagnostics go to stderr
without ever blocking (`operator`). `session` builds a session from contracts and flags.
"""
