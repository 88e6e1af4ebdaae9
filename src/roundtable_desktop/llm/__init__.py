"""Chat model clients: the interface, the OpenAI-compatible client, the offline client.

Must not import Qt, protocols or the store.
"""
