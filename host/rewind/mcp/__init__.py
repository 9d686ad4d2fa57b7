"""Rewind for AI tools: a Model Context Protocol server over one profile (`rewind mcp`).

`access` (which tools may read, and what part of the history each may see), `scoped`
(the engine seen through a tool's scope), `activity` (each call in the audit log, and
what each tool read today), `clients` (the configuration to paste into each tool),
`tools` (what each tool does, without the SDK) and `server` (the SDK's stdio server,
the tools' descriptions and schemas).
Only `server` imports the `mcp` SDK: the native host and the CLI's setup read and write
access without it.
"""
