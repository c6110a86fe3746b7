"""The advertising service page."""

from agency_site.components.service_sections import page_for

page = page_for("advertising")
