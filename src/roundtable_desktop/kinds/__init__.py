"""The session kinds: one package each. A kind never imports another kind.
"""
