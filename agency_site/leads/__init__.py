"""Leads: what visitors submit through the forms, stored first, then delivered by e-mail."""
