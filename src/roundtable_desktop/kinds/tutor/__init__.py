"""The tutor kind (engine side).
"""
