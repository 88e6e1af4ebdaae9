"""SQLite session store, recorder, export and replay. Must not import Qt."""
