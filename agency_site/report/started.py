"""The funnel's first step: a form started, counted when the site issues a form token
(``GET /_site/forms/token``, at the first focus in a form). A daily count per form, no
identifier; counting never delays nor fails the token's answer."""

import datetime as dt
import logging

import sqlalchemy as sa

from agency_site.forms.kinds import LeadKind
from agency_site.report import tables
from agency_site.report.log_lines import ZONE

logger = logging.getLogger(__name__)


def form_of(value: str | None) -> str:
    """The form a token request names (``?form=quote``), "" when none or unknown."""
    try:
        return str(LeadKind(value)) if value else ""
    except ValueError:
        return ""


def count_started(engine: sa.Engine, form: str, now: dt.datetime | None = None) -> None:
    """Add one to today's count of ``form`` started; a database error is logged, not raised."""
    day = (now or dt.datetime.now(dt.UTC)).astimezone(ZONE).date()
    try:
        with engine.begin() as connection:
            tables.increment(connection, tables.forms_started, {"day": day, "form": form})
    except sa.exc.SQLAlchemyError as error:
        logger.warning("Form-start count not recorded: %s", type(error).__name__)
