"""Engram inside other agent tools: `engram.integrations.mcp` (an MCP server, extra
`engram[mcp]`) and `engram.integrations.langgraph` (a LangGraph store, extra
`engram[langgraph]`). Each imports its framework only when it is itself imported."""
