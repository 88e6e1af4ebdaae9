"""The Qt window. The only package (with app.py) allowed to import Qt."""
