"""The site's configuration: the environment, then ``.env``, then these defaults.

One module reads every setting (pydantic-settings); the documented list with
examples is ``.env.example``. The real environment always wins over ``.env``.

Reflex reads its own ``REFLEX_*`` variables (database, Redis, API URL, proxy
hops, token expiry...) straight from ``os.environ``, so importing this module also
merges ``.env`` into the process environment without overriding what is already
set (python-dotenv): the site, the backend, the operator command and
``reflex export`` then all see the same values.

Secrets are ``SecretStr``: they print as ``**********`` in logs and reprs.
"""

import datetime as dt
import ipaddress
import os
import re
import string
from functools import lru_cache
from pathlib import Path
from typing import Annotated, Any, ClassVar
from urllib.parse import urlsplit

from dotenv import load_dotenv
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    NonNegativeFloat,
    NonNegativeInt,
    PositiveFloat,
    PositiveInt,
    PrivateAttr,
    SecretStr,
    field_validator,
    model_validator,
)
from pydantic_settings import (
    BaseSettings,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

ROOT = Path(__file__).resolve().parents[1]
# The deployment's own values; never committed (see .env.example).
ENV_FILE = ROOT / ".env"

# Reflex's default ports; with REFLEX_DEPLOY_URL / REFLEX_API_URL unset, the URLs are
# localhost on the ports Reflex runs on (``reflex run --frontend-port/--backend-port`` and
# ``--single-port`` put them in REFLEX_FRONTEND_PORT / REFLEX_BACKEND_PORT, then reload rxconfig).
DEFAULT_FRONTEND_PORT = 3000
DEFAULT_BACKEND_PORT = 8000
# In the git-ignored data folder, never packed into backend.zip (site_export.py).
DEFAULT_DB_URL = "sqlite:///data/reflex.db"


def load_env_file(path: Path = ENV_FILE) -> None:
    """Merge ``path`` into ``os.environ``; variables already set keep their value."""
    load_dotenv(path, override=False)


load_env_file()


def _section(prefix: str) -> SettingsConfigDict:
    """Settings of one group of variables sharing ``prefix``."""
    return SettingsConfigDict(
        env_prefix=prefix,
        env_file=ENV_FILE,
        env_ignore_empty=True,
        extra="ignore",
        frozen=True,
    )


def _strip_slash(value: str) -> str:
    return value.strip().rstrip("/")


class AgencySettings(BaseSettings):
    """The agency's identity and contact details (``AGENCY_*``), shown on every page."""

    model_config = _section("AGENCY_")

    name: str = "Impulso Digital"
    title: str = "Impulso Digital · Agencia de Marketing Digital y Desarrollo Web"
    # The same title on the Catalan pages (/ca/...).
    title_ca: str = "Impulso Digital · Agència de Màrqueting Digital i Desenvolupament Web"
    email: str = "hola@impulsodigital.es"
    phone: str = "+34 973 39 00 00"
    whatsapp: str = ""  # Defaults to the phone.
    street: str = "Plaça del Mercadal, 1"
    postal_code: str = "25310"
    # LSSI-CE art. 10 identification; empty until the owner fills them in, and the legal
    # pages then show the marked placeholders of content/es/site.yaml.
    legal_name: str = ""
    nif: str = ""
    registry: str = ""

    @model_validator(mode="after")
    def _whatsapp_defaults_to_phone(self) -> "AgencySettings":
        if not self.whatsapp:
            object.__setattr__(self, "whatsapp", self.phone)
        return self


# Each form's own EmailJS template id: EMAILJS_<KIND>_TEMPLATE_ID, the form's declared kind
# in capitals (agency_site/forms/template_ids.py); as the environment and .env spell them.
_FORM_TEMPLATE = re.compile(r"emailjs_([a-z][a-z0-9_]*)_template_id", re.IGNORECASE)


class _FormTemplateIds(PydanticBaseSettingsSource):
    """Every ``EMAILJS_<KIND>_TEMPLATE_ID`` of the environment, as ``<kind>_template_id``
    (``.env``'s reach the settings as its other variables do, prefix removed)."""

    def __init__(self, settings_cls: type[BaseSettings], env: EnvSettingsSource) -> None:
        super().__init__(settings_cls)
        self.env = env

    def get_field_value(self, field: object, field_name: str) -> tuple[None, str, bool]:
        return None, field_name, False  # Every value comes from ``__call__``.

    def __call__(self) -> dict[str, str]:
        found = (_FORM_TEMPLATE.fullmatch(name) for name in self.env.env_vars)
        return {
            f"{match[1].lower()}_template_id": value
            for match in found
            if match and (value := self.env.env_vars[match[0]])
        }


class EmailJSSettings(BaseSettings):
    """Credentials and templates of the EmailJS account the forms deliver through.

    One template may serve several kinds of e-mail (EmailJS's free plan allows few
    templates, docs/leads.md): a form's template id left unset is the agency template's,
    ``EMAILJS_CONTACT_TEMPLATE_ID`` (its sections on ``is_booking``, ``is_quote``... show
    each kind's fields). Each form's own is ``EMAILJS_<KIND>_TEMPLATE_ID``, read for any
    kind (``form_template_ids``): a new form needs no line here. The visitor's e-mails have
    a template of their own or none.
    """

    model_config = _section("EMAILJS_")
    # The template every form's unset template id falls back to, and the one that never does.
    AGENCY_TEMPLATE: ClassVar[str] = "contact_template_id"
    VISITOR_TEMPLATE: ClassVar[str] = "visitor_template_id"

    api_base: Annotated[str, Field(min_length=1)] = "https://api.emailjs.com"
    service_id: str = ""
    public_key: str = ""
    private_key: SecretStr = SecretStr("")
    # The agency template; also the Home form's own (its kind is ``contact``).
    contact_template_id: str = ""
    # The visitor's e-mails about their booking (confirmed, declined, cancelled): optional;
    # without it the agency answers visitors by hand.
    visitor_template_id: str = ""
    timeout_seconds: PositiveFloat = 10.0
    # Every other EMAILJS_<KIND>_TEMPLATE_ID set, by its ``<kind>_template_id``.
    _form_template_ids: dict[str, str] = PrivateAttr(default_factory=dict)

    _slash = field_validator("api_base")(_strip_slash)

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """The usual sources, the environment's form template ids after its fields."""
        assert isinstance(env_settings, EnvSettingsSource)
        form_ids = _FormTemplateIds(settings_cls, env_settings)
        return init_settings, env_settings, form_ids, dotenv_settings, file_secret_settings

    @model_validator(mode="wrap")
    @classmethod
    def _keep_form_template_ids(cls, data: Any, handler: Any) -> "EmailJSSettings":
        """Keep every ``<kind>_template_id`` given that is no field (from the environment,
        ``.env`` or the caller) as a form's template id."""
        given = data if isinstance(data, dict) else {}
        form_ids = {
            name.lower(): str(value)
            for name, value in given.items()
            if name.lower().endswith("_template_id")
            and name.lower() not in cls.model_fields
            and value
        }
        settings = handler(data)
        settings._form_template_ids.update(form_ids)
        return settings

    @staticmethod
    def variable(name: str) -> str:
        """The environment variable of one of these settings: ``EMAILJS_QUOTE_TEMPLATE_ID``."""
        return f"EMAILJS_{name.upper()}"

    @property
    def form_template_ids(self) -> dict[str, str]:
        """Every form template id set besides the agency's, by its ``<kind>_template_id``
        (whether a declared form uses it: ``forms/template_ids.py``)."""
        return dict(self._form_template_ids)

    @property
    def missing(self) -> tuple[str, ...]:
        """The variables delivery needs and lacks (the private key is optional; every form's
        template but the agency's falls back to it): leads wait until they are set."""
        needed = ("service_id", "public_key", self.AGENCY_TEMPLATE)
        return tuple(self.variable(name) for name in needed if not getattr(self, name))

    @property
    def configured(self) -> bool:
        """Whether delivery can be attempted."""
        return not self.missing

    def own_template_id(self, setting: str) -> str:
        """The id set for ``setting`` (``contact_template_id``, ``visitor_template_id`` or a
        form's ``<kind>_template_id``), "" when unset."""
        if setting in type(self).model_fields:
            return getattr(self, setting)
        return self._form_template_ids.get(setting, "")

    def template_id(self, setting: str) -> str:
        """The template id the e-mails of ``setting`` go through: its own; for a form's
        left unset, the agency template's."""
        own = self.own_template_id(setting)
        if own or setting == self.VISITOR_TEMPLATE:
            return own
        return getattr(self, self.AGENCY_TEMPLATE)


class LeadsSettings(BaseSettings):
    """Retry schedule and abuse limits of the lead forms (``LEADS_*``)."""

    model_config = _section("LEADS_")

    retry_base_seconds: PositiveFloat = 60.0  # First retry of a failed e-mail after this long...
    retry_max_seconds: PositiveFloat = 3600.0  # ...doubling each time up to this cap.
    retry_poll_seconds: PositiveFloat = 15.0  # How often each backend worker looks for due leads.
    # Least wait after a send EmailJS never answered (it may have sent it): the retry is
    # marked as a possible duplicate, and quick retries would only add duplicates.
    retry_unconfirmed_seconds: PositiveFloat = 600.0
    rate_limit_per_ip: PositiveInt = (
        20  # Submissions (valid or not) per IP address and window (offices share IPs).
    )
    rate_limit_window_seconds: PositiveInt = 600
    # Longest a submission may take (rate limit, store, first e-mail) before the visitor is
    # told the honest outcome and the form is free again.
    submit_deadline_seconds: PositiveFloat = 30.0
    # Origins besides REFLEX_DEPLOY_URL's (and REFLEX_API_URL's) allowed to open the
    # websocket and post the forms, comma-separated (e.g. https://example.es).
    extra_origins: str = ""
    # The features plugged into the lead core, as dotted module paths (comma-separated),
    # each imported at start-up for its ``plugin(settings)`` (``agency_site/leads/plugins.py``):
    # the bookings, the owner's monthly report e-mail (``agency_site/report/mail_plugin.py``)
    # and the desk's daily purge of its audit log and ended sign-ins (``agency_site/desk/purge_plugin.py``).
    plugins: str = (
        "agency_site.bookings.plugin,agency_site.report.mail_plugin,agency_site.desk.purge_plugin"
    )

    @property
    def extra_origin_list(self) -> tuple[str, ...]:
        """``extra_origins`` as origins (``scheme://host[:port]``), in order."""
        return tuple(origin(part.strip()) for part in self.extra_origins.split(",") if part.strip())

    # The owner's side (issue 14): alerts, held leads coming back, retention, exports.
    # GET /_site/leads/health answers 503 when a queued lead has waited longer than this.
    health_max_queued_age_seconds: PositiveFloat = 3600.0
    # The token that shows the health page's details (Authorization: Bearer <token>);
    # unset: the page shows its status only (the owner's desk shows the details).
    health_token: SecretStr = SecretStr("")
    # JSON POST {"text": ...} (Slack, Teams, ntfy...) when leads become held and again
    # when they recover; a secret, since such URLs carry their own token.
    alert_webhook_url: SecretStr = SecretStr("")
    # While leads are held, one backend worker retries ONE of them this often.
    canary_interval_seconds: PositiveFloat = 900.0
    # Months a person's leads are kept after their last one (privacy policy, `leads purge`).
    retention_months: PositiveInt = 12
    # Days a lead taken for spam (its honeypot filled...) is kept for `leads not-spam`.
    spam_keep_days: PositiveInt = 7
    # The forms' time trap (docs/leads.md "Spam"): a token signed when a visitor starts
    # on a form; a submission without one, sooner than this after it, or a day after is
    # kept as spam. 0: a missing, forged or expired token only.
    spam_min_seconds: NonNegativeFloat = 3.0
    # Off: no token is asked for (a load test or a script that posts the forms itself).
    spam_time_trap: bool = True
    # A submission sent too fast or with no valid token (kept as spam), or refused by the
    # rate limit, is asked to solve a proof of work (ALTCHA) in the browser, which releases
    # it (docs/leads.md "Spam"). Off: such leads stay in quarantine silently.
    spam_challenge: bool = True
    # The challenge's cost: the browser derives half this many PBKDF2 keys (1,000
    # iterations each) on average, about a second in a phone's browser; and its life.
    spam_challenge_max_number: PositiveInt = 5_000
    spam_challenge_expiry_seconds: PositiveInt = 600
    # Also keep as spam an address whose domain receives no e-mail (a DNS lookup of 2 s at
    # most per domain, cached; DNS down or slow is never suspect).
    check_mx: bool = False
    # Where `leads export` and `leads find -o` write by default: outside the site folder.
    export_dir: str = "~/agency_site-exports"

    @property
    def export_path(self) -> Path:
        """``export_dir`` with ``~`` expanded, absolute."""
        return Path(self.export_dir).expanduser().resolve()

    # Durable intake and RGPD (issue 20): a lead is kept whatever the database does.
    # Each try to reach the database gives up after these (PostgreSQL and SQLite).
    db_connect_timeout_seconds: PositiveFloat = 3.0
    db_statement_timeout_seconds: PositiveFloat = 5.0
    # Where a lead waits when the database does not answer (this host's disk, 0700).
    spool_dir: str = "data/spool"
    # The owner is alerted when a lead has waited in the spool longer than this.
    spool_alert_seconds: PositiveFloat = 300.0
    # ...and when a queued lead has waited for its e-mail longer than this.
    alert_queued_age_seconds: PositiveFloat = 3600.0
    # The hashes of erased addresses, re-applied after a restore (`deploy restore`).
    erasure_log: str = "data/erasures.log"

    # Signed webhooks (issue 32, docs/leads.md "Webhooks"): each lead POSTed to these URLs
    # (comma-separated; secrets, since such URLs carry their own token), signed with each
    # whsec_ secret of LEADS_WEBHOOK_SECRET (comma-separated during a rotation). Unset: no
    # webhook. URLs without a secret: queued, never sent unsigned.
    webhook_urls: SecretStr = SecretStr("")
    webhook_secret: SecretStr = SecretStr("")
    webhook_timeout_seconds: PositiveFloat = 5.0  # A receiver answers at once, works later.

    @property
    def webhook_url_list(self) -> tuple[str, ...]:
        """``webhook_urls``, in order, blanks dropped."""
        return _secret_list(self.webhook_urls)

    @property
    def webhook_secrets(self) -> tuple[str, ...]:
        """``webhook_secret``'s secrets, in order (each signs every message)."""
        return _secret_list(self.webhook_secret)

    @property
    def spool_path(self) -> Path:
        """``spool_dir``, absolute (relative to the site folder)."""
        return (ROOT / Path(self.spool_dir).expanduser()).resolve()

    @property
    def erasure_log_path(self) -> Path:
        """``erasure_log``, absolute (relative to the site folder)."""
        return (ROOT / Path(self.erasure_log).expanduser()).resolve()


def _iso_days(value: str) -> str:
    """A comma-separated list of ISO dates (YYYY-MM-DD), checked and normalised."""
    days = [part.strip() for part in value.split(",") if part.strip()]
    for day in days:
        dt.date.fromisoformat(day)  # ValueError: pydantic reports the setting.
    return ",".join(days)


def _secret_list(value: SecretStr) -> tuple[str, ...]:
    """A comma-separated list of secrets, in order, blanks dropped."""
    return tuple(part.strip() for part in value.get_secret_value().split(",") if part.strip())


# What BOOKING_MEETING_URL may leave for each booking to fill in (bookings/meeting.py).
MEETING_ROOM = "room"


def _odd_placeholders(value: str) -> list[str]:
    """What in ``value`` is a brace but not exactly ``{room}``."""
    try:
        parsed = list(string.Formatter().parse(value))
    except ValueError:  # A lone { or }.
        return ["a lone brace"]
    odd = []
    for literal, name, spec, conversion in parsed:
        if "{" in literal or "}" in literal:  # {{ or }}
            odd.append("a lone brace")
        elif name is not None and (name, spec, conversion) != (MEETING_ROOM, "", None):
            odd.append(name)
    return sorted(odd)


def _meeting_template(value: str) -> str:
    """An https URL whose only placeholder, if any, is ``{room}`` (outside the host)."""
    value = value.strip()
    if not value:
        return value
    if odd := _odd_placeholders(value):
        msg = f"BOOKING_MEETING_URL knows one placeholder, {{{MEETING_ROOM}}} as such; not {odd}."
        raise ValueError(msg)
    parts = urlsplit(value)
    if parts.scheme != "https" or not parts.hostname or "{" in parts.netloc:
        msg = (
            "BOOKING_MEETING_URL must be an https URL with a fixed host (a personal room such as "
            "https://meet.google.com/abc-defg-hij, or https://meet.jit.si/agency-{room})."
        )
        raise ValueError(msg)
    return value


class BookingSettings(BaseSettings):
    """When consultations can be booked (``BOOKING_*``): besides weekends and public holidays."""

    # Without the input in its errors: a too short BOOKING_LINK_SECRET is not printed.
    model_config = _section("BOOKING_") | SettingsConfigDict(hide_input_in_errors=True)

    # The agency's own closures and Agramunt's local holidays, e.g. 2026-05-11,2026-08-16.
    closed_days: str = ""
    # Today's slots are offered only if they start at least this many hours from now.
    min_notice_hours: NonNegativeFloat = 2.0
    # At most this many active (pending or confirmed) bookings a day; 0: no limit.
    daily_limit: NonNegativeInt = 0
    # Signs the agency's confirm/decline links and the visitor's cancel and calendar links
    # (at least 32 characters; `python -c "import secrets; print(secrets.token_urlsafe(32))"`).
    # Several, comma-separated, newest first, rotate it: the first signs, every one opens.
    # Unset: one generated once and kept in the data folder (bookings/link_secret.py).
    link_secret: SecretStr = SecretStr("")
    # The agency's confirm/decline links work this many days.
    link_days: PositiveInt = 14
    # Pending (unanswered) bookings one e-mail address, and one network (an IPv4 /24, an
    # IPv6 /64), may hold at once; more are refused, asking to write or call. 0: no cap.
    max_pending_per_email: NonNegativeInt = 2
    max_pending_per_network: NonNegativeInt = 6
    # A booking still pending this many working days after it was requested expires: its
    # slot is free again and the visitor is told by e-mail. 0: never.
    pending_expiry_days: NonNegativeInt = 3
    # The visitor's video call: a personal Meet/Zoom room, or a template whose {room} each
    # booking fills in with its own unguessable name (https://meet.jit.si/impulso-{room}).
    # Unset: no link (by phone or video call, as agreed).
    meeting_url: str = ""
    # The owner's calendars (issue 31): private iCal addresses, comma-separated (secrets:
    # Google's "secret address in iCal format", an Outlook published calendar...). Their
    # busy times are neither offered nor accepted (agency_site/bookings/busy_feed.py).
    busy_ics_urls: SecretStr = SecretStr("")
    # A CalDAV calendar as one more (agency_site/bookings/busy_caldav.py): the calendar's
    # address (Nextcloud, Radicale, Fastmail, iCloud...) and its login; unset: none.
    busy_caldav_url: SecretStr = SecretStr("")
    busy_caldav_username: str = ""
    busy_caldav_password: SecretStr = SecretStr("")
    # The owner's own addresses in those calendars, comma-separated (unset: AGENCY_EMAIL).
    # An event with attendees blocks only when one of them organised or accepted it.
    owner_emails: str = ""
    # Whether an invitation the owner answered "maybe" (tentative) blocks too.
    busy_tentative: bool = False
    # Whether an all-day event (not marked free) blocks its whole day.
    busy_all_day_blocks: bool = False
    # Minutes kept free before and after each busy event.
    buffer_minutes: NonNegativeInt = 0
    # How often each backend worker fetches the calendars (a conditional GET).
    busy_refresh_minutes: PositiveFloat = 10.0
    # The owner is alerted once a calendar has failed to be fetched this long.
    busy_alert_minutes: PositiveFloat = 120.0
    # A calendar not fetched this long still blocks with its last copy, shown as
    # calendar_stale on the health page.
    busy_stale_hours: PositiveFloat = 24.0
    # The form is told the owner's busy slots of the next this many days only; further
    # ahead a booking for one is refused with the nearest free ones. 0: never told.
    busy_shown_days: NonNegativeInt = 60
    # The visitor's manage link moves the booking to another free slot until this many
    # hours before it; inside them the page offers the phone and WhatsApp instead.
    change_notice_hours: NonNegativeFloat = 24.0
    # How many times a visitor may move one booking (0: never; cancelling stays possible).
    max_reschedules: NonNegativeInt = 3
    # A confirmed booking moved to a free slot stays confirmed (false); true: it is pending
    # again until the agency confirms the new time. A pending booking stays pending.
    reconfirm_moves: bool = False
    # The visitor is e-mailed a reminder this many hours (real elapsed hours) before a
    # confirmed meeting (0: none), and a second one this many hours before (0: none).
    reminder_hours: NonNegativeFloat = 24.0
    second_reminder_hours: NonNegativeFloat = 0.0
    # The owner's morning digest (the day's confirmed meetings, and the "asistió" / "no
    # asistió" links of the passed ones) to the agency inbox, from this hour (agency time)
    # on working days; BOOKING_DIGEST=false: none.
    digest: bool = True
    digest_hour: Annotated[int, Field(ge=0, le=23)] = 8

    @field_validator("link_secret")
    @classmethod
    def _long_enough(cls, value: SecretStr) -> SecretStr:
        if any(len(secret) < 32 for secret in _secret_list(value)):
            raise ValueError("BOOKING_LINK_SECRET needs at least 32 characters (each secret)")
        return value

    _meeting = field_validator("meeting_url")(_meeting_template)

    @property
    def link_secrets(self) -> tuple[str, ...]:
        """``link_secret``'s secrets, newest first (none when it is unset)."""
        return _secret_list(self.link_secret)

    _days = field_validator("closed_days")(_iso_days)

    @property
    def closed_dates(self) -> frozenset[dt.date]:
        """``closed_days`` as dates."""
        return frozenset(dt.date.fromisoformat(day) for day in self.closed_days.split(",") if day)


class DeploySettings(BaseSettings):
    """How the production topology is laid out (``DEPLOY_*``), for ``deploy/`` and ``make stack``."""

    model_config = _section("DEPLOY_")

    # Where the web server finds the exported static site (frontend.zip unpacked).
    static_root: str = "/srv/agency_site/frontend"
    # The backend processes the web server balances over: host:port, comma-separated.
    backends: str = "127.0.0.1:8001,127.0.0.1:8002"
    # The address the backend processes listen on (systemd units): 127.0.0.1 when the web
    # server runs on the same host; the backend host's private address (e.g. 10.0.0.5) when
    # it runs on another, with a firewall letting only the web server reach the ports.
    backend_host: str = "127.0.0.1"
    # Where the site's code and .env live on the backend hosts, and who runs it (systemd).
    app_dir: str = "/srv/agency_site/app"
    user: str = "agency"
    # The only folders the hardened units may write: the backend host's data (a SQLite
    # leads database: REFLEX_DB_URL=sqlite:////var/lib/agency_site/reflex.db) and the backups.
    data_dir: str = "/var/lib/agency_site"
    backup_dir: str = "/var/backups/agency_site"
    # Days a nightly backup of the leads is kept (the privacy policy states this many days):
    # older ones are deleted every night, whether or not that night's backup worked.
    backup_keep: PositiveInt = 14
    # The web server's access log (JSON, addresses shortened) that `python -m
    # agency_site.report ingest` reads into daily counts; rotated daily, kept 30 days.
    access_log: str = "/var/log/agency_site/access.log"
    # nginx only (Caddy gets its certificate by itself): default Let's Encrypt paths.
    tls_certificate: str = ""
    tls_certificate_key: str = ""

    @field_validator("backend_host")
    @classmethod
    def _an_ip_address(cls, value: str) -> str:
        value = value.strip()
        try:
            ipaddress.ip_address(value)
        except ValueError:
            msg = f"DEPLOY_BACKEND_HOST must be an IP address (127.0.0.1, 10.0.0.5...), not {value!r}."
            raise ValueError(msg) from None
        return value

    @field_validator("app_dir", "data_dir", "backup_dir", "access_log")
    @classmethod
    def _an_absolute_folder(cls, value: str) -> str:
        value = value.strip().rstrip("/")
        if not value.startswith("/"):
            msg = f"DEPLOY_APP_DIR, DEPLOY_DATA_DIR, DEPLOY_BACKUP_DIR and DEPLOY_ACCESS_LOG are absolute paths, not {value!r}."
            raise ValueError(msg)
        return value

    @property
    def backend_addresses(self) -> tuple[str, ...]:
        """Every backend address, in order."""
        return tuple(part.strip() for part in self.backends.split(",") if part.strip())


class ReportSettings(BaseSettings):
    """The owner's monthly report e-mail (``REPORT_*``, ``agency_site/report/mail.py``)."""

    model_config = _section("REPORT_")

    # The previous month's report e-mailed to the agency inbox (agency template) on the 1st
    # of each month from this hour (agency time); REPORT_MAIL=false: none.
    mail: bool = True
    mail_hour: Annotated[int, Field(ge=0, le=23)] = 8
    # Days the e-mail's signed link to the report's page works (a new one: `python -m
    # agency_site.report link --month 2026-11`).
    link_days: PositiveInt = 60


class DeskSettings(BaseSettings):
    """The owner's desk (``DESK_*``, ``agency_site/desk/``, docs/desk.md): where it answers,
    how long a sign-in lasts, how long its audit log is kept."""

    model_config = _section("DESK_")

    # The host name (and port, if not the scheme's) the desk answers on, e.g.
    # desk.example.es; any other host gets the not-found page. Unset: the backend's own
    # origin (REFLEX_API_URL's). A passkey needs a domain name, never an IP address.
    host: str = ""
    # A session ends after this many minutes without a request, and this many hours after
    # its sign-in whatever happens (a new sign-in with the passkey then).
    idle_minutes: PositiveInt = 30
    max_hours: PositiveInt = 12
    # Sign-in and enrolment requests per visitor address in any window of this many seconds.
    sign_in_attempts: PositiveInt = 20
    sign_in_window_seconds: PositiveInt = 600
    # Months a line of the desk's audit log is kept (both privacy policies print it).
    audit_months: PositiveInt = 24

    @field_validator("host")
    @classmethod
    def _a_host(cls, value: str) -> str:
        value = value.strip().lower().rstrip("/")
        if not value:
            return value
        name = urlsplit(f"//{value}").hostname
        if name is None or "/" in value or "@" in value or _is_ip_address(name):
            msg = (
                "DESK_HOST is a domain name with an optional port (desk.example.es), not "
                f"{value!r}: a passkey is bound to a domain name, never to an IP address."
            )
            raise ValueError(msg)
        return value


def _is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def local_url(port_variable: str, default_port: int) -> str:
    """Reflex's own URL when none is configured: localhost on the port it runs on."""
    port = os.environ.get(port_variable, "").strip() or default_port
    return f"http://localhost:{port}"


# The URL settings Reflex derives from its ports when they are not configured.
URL_SETTINGS = ("api_url", "deploy_url")


class ReflexSettings(BaseSettings):
    """Reflex's own variables that the site also needs (``REFLEX_*``)."""

    model_config = _section("REFLEX_")

    # Public URL: canonical, Open Graph, sitemap. Unset: the frontend's port on localhost.
    deploy_url: str = Field(
        default_factory=lambda: local_url("REFLEX_FRONTEND_PORT", DEFAULT_FRONTEND_PORT)
    )
    # Where browsers reach the backend; baked in at export. Unset: the backend's port.
    api_url: str = Field(
        default_factory=lambda: local_url("REFLEX_BACKEND_PORT", DEFAULT_BACKEND_PORT)
    )
    db_url: SecretStr = SecretStr(DEFAULT_DB_URL)  # May carry a password.
    redis_url: SecretStr | None = None  # May carry a password.
    trusted_proxy_hops: NonNegativeInt = 0
    # Largest websocket message the backend reads (Reflex's own variable; socket.io's default
    # is 1 MB). A form submission is a few KB; a bigger message closes the socket unread.
    socket_max_http_buffer_size: PositiveInt = 32 * 1024

    _slash = field_validator("deploy_url", "api_url")(_strip_slash)

    @property
    def configured_urls(self) -> dict[str, str]:
        """``api_url``/``deploy_url`` as set in the environment or ``.env``, only those.

        rxconfig.py passes just these to Reflex, which derives the others from the ports
        it runs on (``reflex run --single-port``, ``--frontend-port``, ``--backend-port``).
        """
        return {name: getattr(self, name) for name in URL_SETTINGS if name in self.model_fields_set}


class GranianSettings(BaseSettings):
    """The backend server's own variables (``GRANIAN_*``) that the site checks."""

    model_config = _section("GRANIAN_")

    # Worker processes per backend. Unset: 1 without Redis, 2 with it (Reflex would
    # otherwise start up to 8 as soon as REFLEX_REDIS_URL is set).
    workers: PositiveInt | None = None


# Workers per backend process when they share Redis and nothing else is said.
DEFAULT_WORKERS_WITH_REDIS = 2


class Settings(BaseModel):
    """Everything the site is configured with."""

    model_config = ConfigDict(frozen=True)

    reflex: ReflexSettings
    agency: AgencySettings
    emailjs: EmailJSSettings
    leads: LeadsSettings
    booking: BookingSettings
    deploy: DeploySettings
    granian: GranianSettings = Field(default_factory=GranianSettings)
    report: ReportSettings = Field(default_factory=ReportSettings)
    desk: DeskSettings = Field(default_factory=DeskSettings)

    @model_validator(mode="after")
    def _workers_need_redis(self) -> "Settings":
        if (self.granian.workers or 1) > 1 and self.reflex.redis_url is None:
            msg = (
                f"GRANIAN_WORKERS={self.granian.workers} needs REFLEX_REDIS_URL: without Redis "
                "each worker would keep its own visitors' state and its own rate-limit counts."
            )
            raise ValueError(msg)
        return self

    @property
    def backend_workers(self) -> int:
        """Worker processes per backend process."""
        if self.granian.workers:
            return self.granian.workers
        return DEFAULT_WORKERS_WITH_REDIS if self.reflex.redis_url else 1

    @property
    def state_manager_mode(self) -> str:
        """Where Reflex keeps visitors' state: Redis when shared, else this worker's memory.

        Not Reflex's default "disk" (a pickle per tab in ``.states/``): its write loop
        lists and stats every file on each pass, ~40% of a connect's CPU under load,
        for little gain: a restarted backend loses only form flags, visitors rehydrate.
        """
        return "redis" if self.reflex.redis_url else "memory"

    @property
    def site_url(self) -> str:
        """Public URL without trailing slash; every absolute URL of the site starts with it."""
        return self.reflex.deploy_url

    @property
    def site_origin(self) -> str:
        """``scheme://host[:port]`` of the public URL."""
        return origin(self.site_url)

    @property
    def allowed_origins(self) -> tuple[str, ...]:
        """The origins the site's pages are served from: the only ones that may submit forms."""
        found = (self.site_origin, origin(self.reflex.api_url), *self.leads.extra_origin_list)
        return tuple(dict.fromkeys(found))


def origin(url: str) -> str:
    """``scheme://host[:port]`` of a URL."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def load_settings() -> Settings:
    """Read the settings now (environment first, then ``.env``, then defaults)."""
    return Settings(
        reflex=ReflexSettings(),
        agency=AgencySettings(),
        emailjs=EmailJSSettings(),
        leads=LeadsSettings(),
        booking=BookingSettings(),
        deploy=DeploySettings(),
        granian=GranianSettings(),
        report=ReportSettings(),
        desk=DeskSettings(),
    )


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The settings read once per process."""
    return load_settings()
