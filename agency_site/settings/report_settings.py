"""The owner's monthly report e-mail (``REPORT_*``)."""

from typing import Annotated

from pydantic import Field, PositiveInt
from pydantic_settings import BaseSettings

from agency_site.settings.env_file import section


class ReportSettings(BaseSettings):
    """The owner's monthly report e-mail (``REPORT_*``, ``agency_site/report/mail.py``)."""

    model_config = section("REPORT_")

    # The previous month's report e-mailed to the agency inbox (agency template) on the 1st
    # of each month from this hour (agency time); REPORT_MAIL=false: none.
    mail: bool = True
    mail_hour: Annotated[int, Field(ge=0, le=23)] = 8
    # Days the e-mail's signed link to the report's page works (a new one: `python -m
    # agency_site.report link --month 2026-11`).
    link_days: PositiveInt = 60
