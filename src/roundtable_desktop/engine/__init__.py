"""The shared lifecycle every kind runs on: the protocol base, the bus, model calls,
structured calls, payloads, the headless driver, launch, replay state, export of a session
and the kind registry. Must not import Qt or name a kind.
"""
