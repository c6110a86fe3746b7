"""Public brochure site of the agency, built with Reflex."""
