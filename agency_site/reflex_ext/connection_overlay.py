"""Reflex's connection overlay, one of its app wraps (components around every page), removed."""

from typing import Any

# Reflex 0.10.1's connection pulser and 'Cannot connect to server' toasts (App.app_wraps).
_OVERLAY = (5, "Overlay")


def drop_connection_overlay(app: Any) -> None:
    """Remove Reflex's connection-error overlay from every page of ``app``."""
    if _OVERLAY not in app.app_wraps:
        msg = (
            f"Reflex has no app wrap {_OVERLAY} any more: find how it now shows connection "
            "errors and drop that instead (agency_site/reflex_ext/connection_overlay.py)."
        )
        raise RuntimeError(msg)
    del app.app_wraps[_OVERLAY]
