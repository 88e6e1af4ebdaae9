"""The command line: the same engine headless (run, export, sessions, kinds, serve).
"""
