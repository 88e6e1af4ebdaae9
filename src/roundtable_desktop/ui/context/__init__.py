"""The central context view: the payload document as sent, its tabs, the web view and the
reply pane. Qt only.
"""
