"""Session kinds: one module each, all implementing protocols/base.py's interface.

Must not import Qt; the window, the CLI and tests drive protocols the same way.
"""
