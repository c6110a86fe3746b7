"""Shared components: the layout (navbar, footer) and the sections pages are built from."""
