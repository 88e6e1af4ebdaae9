"""`roundtable rehearse`: every kind played to its end in the real window, with what an
audience would see wrong (command.py, player.py, layout_checks.py). Qt only.
"""
