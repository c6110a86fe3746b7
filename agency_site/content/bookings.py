"""What the booking links' pages and the visitor's booking e-mails say:
``content/es/bookings.yaml`` (the form's own copy is in ``forms.yaml``)."""

from agency_site.content.base import Content
from agency_site.content.files import load
from agency_site.content.template import Template
from agency_site.locale import Localized


class BookingAction(Content):
    """One link's page: its title, the button that acts, and what it says once done."""

    title: str
    button: str
    done: str


class BookingLabels(Content):
    """The labels of a booking's summary: its day and time (its lead's fields are labelled
    by the booking form's words, ``forms.yaml``)."""

    date: str
    time: str
    source: str
    time_zone: str  # After the time: which clock it is.


class LinkProblems(Content):
    """Titles and texts of a link that cannot act."""

    expired: str
    tampered: str
    # Signed by the site, but for a booking that is gone (its number now another's).
    stale: str
    replayed: str
    unknown: str
    past: str
    not_yet: str  # Attendance is marked only once the meeting has started.
    marked: Template("outcome")  # Attendance already marked: one of ``attendance``.
    # The booking is already in this state: {state} is one of ``states``.
    already: Template("state")
    # A booking stored without its slot cannot be confirmed: another holds it, or the day
    # is full.
    slot_taken: str
    text: str  # Under any of them: what to do instead.


class AttendanceWords(Content):
    """Whether the visitor came, in words (``models.Attendance``)."""

    attended: str
    no_show: str


class DigestWords(Content):
    """The owner's morning digest (Spanish, the agency's e-mail: ``bookings/digest.py``)."""

    title: Template("date_es")
    today: Template("count")  # Before the day's confirmed meetings.
    none_today: str  # No meeting today, but past ones to mark.
    meeting: Template("time", "name")
    meeting_link: str  # The label of the meeting's video call.
    past: str  # Before the passed meetings and their attended / no-show links.
    past_meeting: Template("date_es", "time", "name")


class BookingStatusWords(Content):
    """A booking's state in words."""

    pending: str
    confirmed: str
    declined: str
    cancelled: str
    expired: str  # Left unanswered past BOOKING_PENDING_EXPIRY_DAYS working days.


class VisitorMailWords(Content):
    """An e-mail to the visitor: its subject and its text (``{date_es}``, ``{time}``...)."""

    subject: Template()
    message: Template("name", "date_es", "time")


class VisitorMails(Content):
    """The visitor's e-mails about their booking (the visitor template's ``subject`` and
    ``message``)."""

    confirmed: VisitorMailWords
    declined: VisitorMailWords
    cancelled: VisitorMailWords
    expired: VisitorMailWords  # The agency did not answer in time: the slot is free again.
    moved: VisitorMailWords  # The visitor moved a confirmed booking: the new calendar file.
    # The visitor moved a booking that waits for the agency's confirmation (still pending,
    # or pending again with BOOKING_RECONFIRM_MOVES).
    moved_pending: VisitorMailWords
    # The meeting is near (BOOKING_REMINDER_HOURS, BOOKING_SECOND_REMINDER_HOURS before).
    reminder: VisitorMailWords


class ManageWords(Content):
    """The visitor's manage page (their e-mail's cancel link): move the booking to another
    free slot, or cancel it."""

    title: str
    move_title: str  # Above the date and time to move to.
    # Before the controls: the next days' free slots, a line per day ({times} of {date_es}).
    next_free: str
    free_day: Template("date_es", "times")
    button: str  # Moves the booking.
    cancel_title: str  # Above the cancel button.
    # Instead of the controls, followed by the agency's phone, WhatsApp and e-mail: inside
    # BOOKING_CHANGE_NOTICE_HOURS ({hours}) of the appointment, or moved too often.
    too_late: Template("hours")
    too_many: str
    done: str  # Moved.
    sent: str  # After ``done``: the visitor was e-mailed the new time.
    confirm_later: str  # After them: pending, the agency confirms the new time.
    calendar: str  # The link to the updated calendar file.
    again: str  # The link back to this page (the same link moves or cancels again).
    # The form was sent for an earlier version of the booking (sent twice, another tab):
    # nothing changed, the page shows the booking as it is.
    stale: str
    not_open: str  # Not a working day's free slot from today to a year ahead.
    same: str  # The slot the booking already has.


class SlotMessages(Content):
    """What the booking form says when its slot cannot be had."""

    taken: Template("slots")  # {slots}: the nearest free ones, in words.
    taken_none: str  # No free slot in the next weeks.
    # The owner's calendar is busy then (BOOKING_BUSY_ICS_URLS): {slots} as for ``taken``.
    busy: Template("slots")
    busy_none: str
    day_full: str
    nearest_joiner: str  # Between two of the nearest slots ("10:00 del lunes 14", ...).
    slot_in_words: Template("time", "date_es")  # {time} del {date_es}
    # Refused: this address (or this network) already holds BOOKING_MAX_PENDING_PER_*
    # bookings waiting for an answer; what to do instead.
    too_many_email: str
    too_many_network: str


class SlotLostWords(Content):
    """Why a booking holds no slot (``bookings.models.SlotLost``), for the agency: the
    ``{why}`` of ``slot_lost``."""

    # Rows stored before reasons were kept: drained after the slot was taken or busy.
    unknown: str
    taken: str
    busy: str
    day_full: str
    email_cap: str  # Its mailbox held BOOKING_MAX_PENDING_PER_EMAIL pending bookings.
    network_cap: str  # Its network held BOOKING_MAX_PENDING_PER_NETWORK.


class BookingsCopy(Content):
    """Everything the booking links, their pages and the visitor's e-mails say."""

    confirm: BookingAction
    decline: BookingAction
    cancel: BookingAction
    attended: BookingAction  # The owner's digest link: the visitor came.
    no_show: BookingAction  # ... or did not.
    attendance: AttendanceWords
    manage: ManageWords
    labels: BookingLabels
    states: BookingStatusWords
    problems: LinkProblems
    mails: VisitorMails
    slots: SlotMessages
    notified: str  # After "done": the visitor was sent an e-mail.
    not_notified: Template("email")  # After "done": nobody told the visitor: {email}.
    event_title: str  # The calendar event's title.
    event_description: str
    # Ends the visitor's confirmation when BOOKING_MEETING_URL is set: {url}, the call's link.
    meeting: Template("url")
    book_again: str  # The link to /schedule in a decline or cancel.
    # The agency's e-mail (contact template's ``message``) when a visitor cancels.
    agency_cancelled: Template("name", "email", "date_es", "time")
    # The agency's e-mail when a visitor moves their booking; {state}: one of ``states``.
    agency_moved: Template("name", "email", "old_date_es", "old_time", "date_es", "time", "state")
    # The agency's booking e-mail (``slot_note`` and the start of ``message``) and its
    # confirm page, for a booking stored without its slot ({date_es}, {time}), and {why}:
    # one of ``slot_lost_why``.
    slot_lost: Template("date_es", "time", "why")
    slot_lost_why: SlotLostWords
    digest: DigestWords


COPY = Localized(lambda: load("bookings.yaml", BookingsCopy))
