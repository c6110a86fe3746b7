"""The desk's screens, in one list: each is a module with its ``ROUTES`` (and its template);
its entry in the navigation is one line of ``templates/base.html``'s ``NAV``."""

from collections.abc import Iterable, Sequence
from types import ModuleType

from starlette.routing import BaseRoute

from agency_site.desk import (
    access,
    inbox,
    inbox_export,
    lead_page,
    log,
    pipeline,
    sign_in,
    spam_review,
    static,
)

# Every screen's module (the navigation's order is base.html's).
SCREENS: tuple[ModuleType, ...] = (inbox, log, access)
# A lead's page, its pipeline stage and notes, the spam review, the inbox as CSV.
SCREENS += (lead_page, pipeline, spam_review, inbox_export)


def routes(screens: Sequence[ModuleType] = SCREENS) -> Iterable[BaseRoute]:
    """The sign-in's routes, the static files', then every screen's."""
    yield from sign_in.ROUTES
    yield from static.ROUTES
    for screen in screens:
        yield from screen.ROUTES
