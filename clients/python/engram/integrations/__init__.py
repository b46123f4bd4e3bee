"""Engram inside other agent tools: `engram.integrations.mcp` (an MCP server, extra
`engram-grpc[mcp]`) and `engram.integrations.langgraph` (a LangGraph store, extra
`engram-grpc[langgraph]`). Each imports its framework only when it is itself imported."""
