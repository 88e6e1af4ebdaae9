"""Context assembly: the context-window document, payload serialization, prompt layers,
token budget. Must not import Qt or call models."""
