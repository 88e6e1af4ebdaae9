"""The roundtable kind: sources.
"""
