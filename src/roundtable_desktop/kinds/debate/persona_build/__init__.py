"""The debate kind: persona build.
"""
