"""The legion kind (engine side).
"""
