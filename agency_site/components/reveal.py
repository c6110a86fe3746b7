"""Scroll-triggered fade-in of page sections, run in the browser with no server traffic.

Sections carry ``data-reveal``; the observer marks each one ``data-revealed`` as it
scrolls into view. Only while the observer runs does ``<html>`` get the class that
hides unrevealed sections (``assets/site.css``), so the prerendered text stays visible
without JavaScript, and nothing is hidden under ``prefers-reduced-motion``.
"""

import reflex as rx

# Spread into a component's props to make it fade in when scrolled into view.
REVEAL = {"data_reveal": "true"}
JS_CLASS = "reveal-js"

_HOOK = f"""
useEffect(() => {{
  if (!("IntersectionObserver" in window)) return;
  if (window.matchMedia("(prefers-reduced-motion: reduce)").matches) return;
  const root = document.documentElement;
  const observer = new IntersectionObserver((entries) => {{
    for (const entry of entries) {{
      if (!entry.isIntersecting) continue;
      entry.target.dataset.revealed = "true";
      observer.unobserve(entry.target);
    }}
  }}, {{ rootMargin: "0px 0px -10% 0px" }});
  document.querySelectorAll("[data-reveal]").forEach((el) => observer.observe(el));
  root.classList.add("{JS_CLASS}");
  return () => {{
    observer.disconnect();
    root.classList.remove("{JS_CLASS}");
  }};
}}, []);
"""


class RevealObserver(rx.Fragment):
    """Renders nothing; fades in the page's ``[data-reveal]`` elements as they appear."""

    def add_imports(self) -> dict[str, str]:
        """React's ``useEffect`` for the hook."""
        return {"react": "useEffect"}

    def add_hooks(self) -> list[str]:
        """The IntersectionObserver hook."""
        return [_HOOK]


reveal_observer = RevealObserver.create
