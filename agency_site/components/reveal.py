"""Scroll-triggered fade-in of page sections, run in the browser with no server traffic.

Sections carry ``data-reveal``; the observer marks each one ``data-revealed`` as it
scrolls into view. Only while the observer runs does ``<html>`` get the class that
hides unrevealed sections (``assets/site.css``), so the prerendered text stays visible
without JavaScript, and nothing is hidden under ``prefers-reduced-motion``.
"""

import reflex as rx

from agency_site.reflex_ext.js import load_js

# Spread into a component's props to make it fade in when scrolled into view.
REVEAL = {"data_reveal": "true"}
JS_CLASS = "reveal-js"

_HOOK = load_js("reveal_on_scroll.js", JS_CLASS=JS_CLASS)


class RevealObserver(rx.Fragment):
    """Renders nothing; fades in the page's ``[data-reveal]`` elements as they appear."""

    def add_imports(self) -> dict[str, str]:
        """React's ``useEffect`` for the hook."""
        return {"react": "useEffect"}

    def add_hooks(self) -> list[str]:
        """The IntersectionObserver hook."""
        return [_HOOK]


reveal_observer = RevealObserver.create
