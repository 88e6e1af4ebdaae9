"""The debate kind: classical.
"""
