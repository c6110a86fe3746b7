"""A privacy request's rules: the rights a person exercises (RGPD articles 15 to 21), how a
request is closed, and its one-month deadline, amber a week before it and red once passed."""

import calendar as month_calendar
import datetime as dt
from enum import StrEnum

# The deadline turns amber this long before it.
NEAR = dt.timedelta(days=7)


class PrivacyRight(StrEnum):
    """The right a person exercises (RGPD articles 15 to 21)."""

    ACCESS = "access"
    RECTIFICATION = "rectification"
    ERASURE = "erasure"
    RESTRICTION = "restriction"
    OBJECTION = "objection"
    PORTABILITY = "portability"


class PrivacyOutcome(StrEnum):
    """How a request was closed."""

    ANSWERED = "answered"  # The right was attended: the data sent, erased, corrected...
    NO_DATA = "no_data"  # The site held nothing of the address: the person was told so.
    REFUSED = "refused"  # Refused (identity not proved; unfounded or excessive: art. 12.5).


class Urgency(StrEnum):
    """How near a request's deadline is."""

    OK = "ok"
    NEAR = "near"  # Within ``NEAR`` of it.
    OVER = "over"  # Past it.


def deadline(received: dt.date) -> dt.date:
    """The last day to answer a request received on ``received``: one month later.

    The RGPD gives "one month of receipt of the request" (art. 12.3). A period of months
    runs from date to date: it ends on the day of the next month with the same number as
    the day of receipt, or, when that month has no such day, on its last day (Regulation
    (EEC, Euratom) No 1182/71, art. 3.2.c, which the EDPB's guidelines 01/2022 on the
    right of access apply to it; in Spain the same rule, Código Civil art. 5.1: "se
    computarán de fecha a fecha. Cuando en el mes del vencimiento no hubiera día
    equivalente al inicial del cómputo, se entenderá que el plazo expira el último del
    mes"). Received 15 March: 15 April; 31 January: 28 (or 29) February. The desk shows
    this day, not the next working day that art. 3.4 of 1182/71 would allow when it falls
    on a holiday: the owner answers in time either way.
    """
    year, month = received.year + received.month // 12, received.month % 12 + 1
    return dt.date(year, month, min(received.day, month_calendar.monthrange(year, month)[1]))


def urgency(due: dt.date, today: dt.date) -> Urgency:
    """Whether ``due`` is past (red), within ``NEAR`` (amber) or further (as usual)."""
    if today > due:
        return Urgency.OVER
    return Urgency.NEAR if due - today <= NEAR else Urgency.OK
