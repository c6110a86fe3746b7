"""URL paths of every page of the site: the one place a path is written.

This module imports nothing of ours, so content, components and pages can all
link by constant instead of typing a path twice.
"""

HOME = "/"
ABOUT = "/about"
CASE_STUDIES = "/case-studies"
CAREERS = "/careers"
PRIVACY_POLICY = "/privacy-policy"
TERMS_OF_SERVICE = "/terms-of-service"
COOKIES_POLICY = "/cookies-policy"
INFLUENCER_PROGRAM = "/influencer-program"
CONTACT = "/contact"
SCHEDULE = "/schedule"
SERVICES_PREFIX = "/services"

# Linked from the spec's pages but not declared: they land on the not-found page.
PORTFOLIO = "/portfolio"
BLOG = "/blog"

NOT_FOUND = "404"


def service(service_id: str) -> str:
    """Path of a service page, e.g. ``/services/branding``."""
    return f"{SERVICES_PREFIX}/{service_id}"


def case_study(case_id: str) -> str:
    """Path of a case study detail page, e.g. ``/case-studies/b2b-leads``."""
    return f"{CASE_STUDIES}/{case_id}"
