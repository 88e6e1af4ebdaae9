"""Candidate sources: the mock catalog now; YouTube and MCP later. Must not import Qt."""
