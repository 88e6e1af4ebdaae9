"""The roundtable kind (engine side).
"""
