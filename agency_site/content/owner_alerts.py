"""The alerts the owner gets when leads are held and when they flow again:
``content/es/owner-alerts.yaml``. Each text's ``{names}`` are declared beside its field
(``Template``), checked when the file is read and filled by ``template.render`` when the
alert is sent."""

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.content.template import Template
from agency_site.locale import Localized


class OwnerAlerts(Content):
    """The owner's alert texts."""

    # {count} held leads, {error} EmailJS's answer, {minutes} between automatic retries,
    # {status_url} the health page.
    held_one: Template("count", "error", "minutes", "status_url")
    held_many: Template("count", "error", "minutes", "status_url")
    # {pending}: pending_one or pending_many ({count} leads queued or being sent).
    recovered: Template("pending", "status_url")
    pending_one: Template()
    pending_many: Template("count")
    no_detail: Template()  # In place of ``{error}`` when EmailJS gave no text.
    # Leads kept whatever is down (issue 20): the spool, late and refused leads, backups.
    # {folder} the spool folder, {minutes} the configured wait, {days} the backups kept.
    spool_waiting: Template("count", "minutes", "folder")
    spool_drained: Template()
    queued_late: Template("count", "minutes", "status_url")
    queued_recovered: Template("count", "minutes", "status_url")
    rejected: Template("count")
    backup_failed: Template("error", "days")
    # Spooled leads the database refused or that cannot be read, set aside on this host:
    # {count} lines set aside in all, {folder} the spool folder.
    spool_quarantined: Template("count", "folder")
    # Bookings pending for over a working day: {count}, {bookings} (date and time of each).
    booking_unanswered: Template("count", "bookings")
    # The owner's calendars (BOOKING_BUSY_ICS_URLS) not fetched for {hours} h or more:
    # {calendars} names each (its number and host, never the secret address) and why.
    busy_feed_failing: Template("calendars", "hours")
    busy_feed_recovered: Template()
    # One series of the owner's calendar blocks more consultation slots of working days
    # within four weeks than a whole week holds: {calendar} its number and host, {series}
    # the digest of its UID (never its title), {slots} how many, {date} {time} its first.
    busy_series_wide: Template("calendar", "series", "slots", "date", "time")
    # A webhook endpoint paused (LEADS_WEBHOOK_URLS, issue 32): {number} its place in the
    # list (never the URL, which may carry a token); {hours} failing, {error} its last answer.
    webhook_gone: Template("number")
    webhook_failing: Template("number", "hours", "error")
    # A lead told in a chat (a slack+https:// or telegram:// webhook, leads/webhooks/destinations/):
    # its first line, {kind} the form, {lead_id} its number; a booking's change: {event}
    # (requested, confirmed, declined, cancelled, rescheduled), {date} {time} its slot.
    chat_lead: Template("kind", "lead_id")
    chat_booking: Template("event", "lead_id", "date", "time")
    # The monthly report e-mail (agency_site/report/mail.py) still unsent hours after it was
    # due: {month} (2026-11), {status_url} the health page.
    report_unsent: Template("month", "status_url")
    # The daily spam digest (leads/monitor.py): the leads taken for spam not shown yet, no
    # name nor address (as every alert). {count} leads, {days} LEADS_SPAM_KEEP_DAYS, {until}
    # the day they are deleted unless released, {desk_url} the desk's spam page, {leads} a
    # spam_digest_line each (and spam_digest_more for the rest), one per line.
    spam_digest: Template("count", "days", "until", "desk_url", "leads")
    # {lead_id} its number, {kind} the form, {reason} a spam_reasons word, {received} when.
    spam_digest_line: Template("lead_id", "kind", "reason", "received")
    # The leads past the first lines: {count}, {reasons} ("12 campo oculto rellenado, 3 …").
    spam_digest_more: Template("count", "reasons")
    # Why a lead was taken for spam, in the owner's words: spam_reason_<a SpamReason value>.
    spam_reason_honeypot: Template()
    spam_reason_no_token: Template()
    spam_reason_too_fast: Template()
    spam_reason_token_expired: Template()
    spam_reason_bad_token: Template()
    spam_reason_disposable: Template()
    spam_reason_no_mx: Template()
    # Spam not shown to the owner {hours} h after it arrived (the digest not delivered):
    # kept until shown, {months} at most; {count} leads, {desk_url} the spam page.
    spam_unlisted: Template("count", "hours", "months", "desk_url")
    spam_unlisted_recovered: Template()
    # The retention purge deleted leads whose copies stay where the site cannot delete them
    # (a chat's messages, HubSpot): {places} each with its ids; {months} the retention.
    purge_by_hand: Template("months", "places")


ALERTS = Localized(lambda: load("owner-alerts.yaml", OwnerAlerts))
