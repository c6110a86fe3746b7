"""The kinds of lead the site collects: one per form (see ``declarations.py``)."""

from enum import StrEnum


class LeadKind(StrEnum):
    """Which form a lead came from."""

    HERO = "contact"  # The Home hero form (its stored value predates the name).
    BOOKING = "booking"  # The consultation booking of /schedule.
    QUOTE = "quote"  # The quote request of /contact.
