"""The desk's screens, in one list: each is a module with its ``ROUTES`` (and its template);
its entry in the navigation is one line of ``templates/base.html``'s ``NAV``."""

from collections.abc import Iterable, Sequence
from types import ModuleType

from starlette.routing import BaseRoute

from agency_site.desk import (
    access,
    bookings_view,
    figures_view,
    inbox,
    inbox_export,
    lead_page,
    log,
    pipeline,
    privacy_requests,
    sign_in,
    spam_review,
    static,
)

# Every screen's module (the navigation's order is base.html's).
SCREENS: tuple[ModuleType, ...] = (inbox, log, access)
# A lead's page, its pipeline stage and notes, the spam review, the inbox as CSV.
SCREENS += (lead_page, pipeline, spam_review, inbox_export)
# The bookings calendar, the privacy requests, the month's figures.
SCREENS += (bookings_view, privacy_requests, figures_view)


def routes(screens: Sequence[ModuleType] = SCREENS) -> Iterable[BaseRoute]:
    """The sign-in's routes, the static files', then every screen's."""
    yield from sign_in.ROUTES
    yield from static.ROUTES
    for screen in screens:
        yield from screen.ROUTES
