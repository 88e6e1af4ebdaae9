"""The main window and what frames it: menus, toolbar, status bar, dock set, replay bar,
end panel. Qt only.
"""
