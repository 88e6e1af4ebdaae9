"""Dialogs: settings, the call inspector, the session list for replay."""
