"""Application state: client-side UI toggles (ui.py) and the backend form states."""
