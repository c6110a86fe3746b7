"""The alerts the owner gets when leads are held and when they flow again:
``content/es/owner-alerts.yaml``."""

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.locale import Localized


class OwnerAlerts(Content):
    """The owner's alert texts; ``{count}``, ``{error}``, ``{minutes}``, ``{pending}`` and
    ``{status_url}`` are filled in when one is sent."""

    held_one: str
    held_many: str
    recovered: str
    pending_one: str
    pending_many: str
    no_detail: str  # In place of ``{error}`` when EmailJS gave no text.
    # Leads kept whatever is down (issue 20): the spool, late and refused leads, backups.
    spool_waiting: str
    spool_drained: str
    queued_late: str
    queued_recovered: str
    rejected: str
    backup_failed: str
    # Spooled leads the database refused or that cannot be read, set aside on this host:
    # {count} lines set aside in all, {folder} the spool folder.
    spool_quarantined: str
    # Bookings pending for over a working day: {count}, {bookings} (date and time of each).
    booking_unanswered: str


ALERTS = Localized(lambda: load("owner-alerts.yaml", OwnerAlerts))
