"""Pydantic models shared by every layer: the vocabulary of the application.

Must not import anything from the rest of the package, nor Qt.
"""
