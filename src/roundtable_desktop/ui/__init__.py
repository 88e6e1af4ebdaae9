"""The Qt window. The only package (with app.py) allowed to import Qt."""

from roundtable_desktop.ui.qt_workarounds import make_singletons_immortal

# Before any widget is made: see qt_workarounds.py (PySide6 6.12 reference defect).
make_singletons_immortal()
