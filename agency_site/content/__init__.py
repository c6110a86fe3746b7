"""Typed content of the site, in each of its languages (pydantic models): copy, figures, prices, links."""
