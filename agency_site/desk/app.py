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
    log,
    privacy_requests,
    sign_in,
    static,
)

# Every screen's module (the navigation's order is base.html's).
SCREENS: tuple[ModuleType, ...] = (
    inbox,
    bookings_view,
    privacy_requests,
    figures_view,
    log,
    access,
)


def routes(screens: Sequence[ModuleType] = SCREENS) -> Iterable[BaseRoute]:
    """The sign-in's routes, the static files', then every screen's."""
    yield from sign_in.ROUTES
    yield from static.ROUTES
    for screen in screens:
        yield from screen.ROUTES
