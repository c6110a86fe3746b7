"""URL paths of every page of the site: the one place a path is written.

This module imports nothing, so everything else (``locale`` included) can link by constant
instead of typing a path twice. The paths are the Spanish pages'; ``locale.localized_path``
gives their twin in another language (and ``locale.not_found_file`` the not-found page's).
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

# Files at the site's root: shipped in assets/ (made by scripts/make_brand_assets.py) or
# written by every build (agency_site/build_steps.py).
FAVICON_PATH = "/favicon.ico"
APPLE_TOUCH_ICON_PATH = "/apple-touch-icon.png"
ICON_192_PATH = "/icon-192.png"
ICON_512_PATH = "/icon-512.png"
MANIFEST_PATH = "/manifest.webmanifest"
SITEMAP_PATH = "/sitemap.xml"
ROBOTS_PATH = "/robots.txt"


def social_image(suffix: str = "") -> str:
    """The social card, e.g. ``/social-card.png``; a language's (``suffix`` ``-ca``),
    ``/social-card-ca.png`` (``seo/urls.social_image_path``)."""
    return f"/social-card{suffix}.png"


SOCIAL_IMAGE_PATH = social_image()  # The default language's.

# Where every build puts its content-hashed files (Vite's bundles; the site's pictures):
# every server and static host caches them for a year (server.py, deploy/).
HASHED_ASSETS = "/assets/"
PICTURES = f"{HASHED_ASSETS}img/"

NOT_FOUND = "404"
# The build's not-found page, the default language's (``locale.not_found_file``: each one's).
NOT_FOUND_FILE = "/404.html"


def service(service_id: str) -> str:
    """Path of a service page, e.g. ``/services/branding``."""
    return f"{SERVICES_PREFIX}/{service_id}"


def case_study(case_id: str) -> str:
    """Path of a case study detail page, e.g. ``/case-studies/b2b-leads``."""
    return f"{CASE_STUDIES}/{case_id}"


# Reflex's own endpoints on the backend, which the proxies forward besides the site's
# (deploy/topology.py): its websocket's events, its liveness and its health checks
# (tests/test_paths.py checks they are Reflex's ``constants.Endpoint``).
EVENT = "/_event"
PING = "/ping"
HEALTH = "/_health"

# Our own HTTP endpoints on the backend, all under one prefix the proxies forward
# (deploy/): the plain HTML forms' POST targets, the leads health check... Written here
# only (``tests/test_paths.py`` finds it anywhere else).
SITE_API_PREFIX = "/_site"
# Are leads reaching the agency's inbox? For any uptime monitor (leads/health.py).
LEADS_HEALTH = f"{SITE_API_PREFIX}/leads/health"
# Readers' JavaScript errors, into the backend's log (client_errors.py).
CLIENT_ERRORS = f"{SITE_API_PREFIX}/client-errors"


def booking_link(action: str) -> str:
    """The page a booking link opens, e.g. ``/_site/bookings/confirm``."""
    return f"{SITE_API_PREFIX}/bookings/{action}"


# The booking form asks here for a day's free slots (``?date=YYYY-MM-DD``).
FREE_SLOTS = f"{SITE_API_PREFIX}/bookings/free-slots"


# A fresh signed token for a form's time trap (leads/spam/form_token.py).
FORM_TOKEN = f"{SITE_API_PREFIX}/forms/token"
# Which form asks for a token (``?form=quote``): the owner's report counts forms started.
FORM_TOKEN_FORM = "form"


def form_post(kind: str) -> str:
    """Where a form posts without JavaScript, e.g. ``/_site/forms/booking``."""
    return f"{SITE_API_PREFIX}/forms/{kind}"


def report_page(month: str) -> str:
    """The owner's report of ``month`` behind its signed link, e.g. ``/_site/report/2026-11``
    (agency_site/report/web.py)."""
    return f"{SITE_API_PREFIX}/report/{month}"


# The owner's desk (agency_site/desk/): the agency's private pages, signed in with a passkey,
# on the backend's origin (or only on DESK_HOST when a deployer sets one).
DESK = f"{SITE_API_PREFIX}/desk"
# The desk's spam review: the daily digest of quarantined leads links here.
DESK_SPAM = f"{DESK}/spam"
# The desk's bookings: a week or a month (``?view=week|month&date=YYYY-MM-DD``) and each
# booking's answers (confirm, decline, cancel, move, attended).
DESK_BOOKINGS = f"{DESK}/bookings"
# The desk's privacy requests (the RGPD's rights): each one's findings, export and erasure.
DESK_PRIVACY = f"{DESK}/privacy"
# The desk's figures: the month's report (``?month=YYYY-MM``) and its charts as SVG files.
DESK_FIGURES = f"{DESK}/figures"


def desk_lead(lead_id: int | str) -> str:
    """A lead's own page on the desk, e.g. ``/_site/desk/leads/42``."""
    return f"{DESK}/leads/{lead_id}"
