"""The ALTCHA widget as a form draws it when a suspect submission must prove it is no robot
(``leads/spam/challenge.py``): its tag, its attributes in the language in use, where its
files and its starter are served. The page's form (``components/form_layouts.py``) and the
backend's page without JavaScript (``site_api.py``) both draw it from here; the build writes
its files (``leads/spam/widget.py``)."""

import json

from agency_site import locale
from agency_site.content.form_words import COPY
from agency_site.forms.declarations import CHALLENGE_FIELD

# The widget's default algorithm (what the server's challenges use), its worker
# ``dist/workers/pbkdf2.js``.
ALGORITHM = "PBKDF2/SHA-256"
# Where the build serves the widget's files and the site's starter.
URL_DIR = "/altcha"
# The worker that solves the challenges' algorithm (registered by the starter).
WORKER = "pbkdf2.js"
# The site's starter, which loads the widget's files (the only one a page names).
STARTER = "altcha-start.js"
STARTER_URL = f"{URL_DIR}/{STARTER}"
WIDGET_TAG = "altcha-widget"
# The widget's own copy of the payload: a name the server ignores (it reads CHALLENGE_FIELD,
# which the starter fills in).
WIDGET_NAME = f"{CHALLENGE_FIELD}_widget"


def widget_strings() -> dict[str, str]:
    """The widget's own labels in the language in use (its ``i18n`` keys)."""
    words = COPY.challenge
    return {
        "label": words.label,
        "verifying": words.verifying,
        "verified": words.verified,
        "error": words.error,
        "expired": words.expired,
        "verificationRequired": words.verification_required,
        "waitAlert": words.wait_alert,
        "footer": "",
    }


def widget_attributes() -> dict[str, str]:
    """The ``<altcha-widget>``'s attributes but its ``challenge`` (the JSON text of
    ``Submission.challenge``), in the language in use: started by the site's starter
    (``auto`` off), which puts the payload into the form's ``CHALLENGE_FIELD`` and sends
    the form again (``data-submit``)."""
    return {
        "auto": "off",
        "name": WIDGET_NAME,
        "language": locale.current(),
        "configuration": json.dumps({"hideFooter": True, "hideLogo": True}),
        "data-strings": json.dumps(widget_strings(), ensure_ascii=False),
        "data-field": CHALLENGE_FIELD,
        "data-algorithm": ALGORITHM,
        "data-worker": WORKER,
        "data-submit": "true",
    }
