"""The debate kind: persona build sources.
"""
