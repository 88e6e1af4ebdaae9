"""The roundtable kind's window spec, docks and dialogs. Qt only.
"""
