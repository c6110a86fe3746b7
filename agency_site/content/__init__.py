"""Typed Spanish content of the site (pydantic models): copy, figures, prices, links."""
