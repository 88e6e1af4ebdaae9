"""Tool registry, call parser and executor. Must not import Qt or call models."""
