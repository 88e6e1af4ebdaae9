"""Dock widgets of the main window; each takes the EngineBridge it shows."""
