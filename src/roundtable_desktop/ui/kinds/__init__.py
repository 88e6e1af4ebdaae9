"""The window side of the session kinds: the spec (spec.py), the registry (registry.py),
the built kinds (built.py), and one package per kind with its window spec, docks and
dialogs. A kind's package never imports another kind's.
"""
