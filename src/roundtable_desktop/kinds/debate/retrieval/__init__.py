"""The debate kind: retrieval.
"""
