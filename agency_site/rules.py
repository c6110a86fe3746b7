"""The rules the lead forms follow (SPEC §9), read by the content, the forms and the leads.

Numbers and lists the copy quotes ({forms.name_max}) and the server enforces: kept here,
not in ``content/``, so ``leads/`` never imports the content to know them.
"""

# SPEC §9: how long a success message stays on screen.
SUCCESS_MESSAGE_MS = 5000

# SPEC §9: the consultation slots offered, in the order shown.
TIME_SLOTS: tuple[str, ...] = (
    "09:00",
    "10:00",
    "11:00",
    "12:00",
    "15:00",
    "16:00",
    "17:00",
    "18:00",
)

# Dates are "today" in the agency's time zone, in the browser and on the server.
AGENCY_TIME_ZONE = "Europe/Madrid"

NAME_MIN, NAME_MAX = 2, 100
PHONE_MIN, PHONE_MAX = 6, 20
EMAIL_MAX = 254
MESSAGE_MAX = 2000
