"""The negotiation kind (engine side).
"""
