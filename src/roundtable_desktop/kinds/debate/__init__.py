"""The debate kind (engine side).
"""
