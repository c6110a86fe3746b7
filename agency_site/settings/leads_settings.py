"""The lead forms and the lead core (``LEADS_*``): retries, abuse limits, the owner's
alerts, retention, the spool, spam, the webhooks, the plugins."""

from pathlib import Path

from pydantic import NonNegativeFloat, PositiveFloat, PositiveInt, SecretStr
from pydantic_settings import BaseSettings

from agency_site.settings.env_file import ROOT, section
from agency_site.settings.text_values import origin, secret_list


class LeadsSettings(BaseSettings):
    """Retry schedule and abuse limits of the lead forms (``LEADS_*``)."""

    model_config = section("LEADS_")

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
        return secret_list(self.webhook_urls)

    @property
    def webhook_secrets(self) -> tuple[str, ...]:
        """``webhook_secret``'s secrets, in order (each signs every message)."""
        return secret_list(self.webhook_secret)

    @property
    def spool_path(self) -> Path:
        """``spool_dir``, absolute (relative to the site folder)."""
        return (ROOT / Path(self.spool_dir).expanduser()).resolve()

    @property
    def erasure_log_path(self) -> Path:
        """``erasure_log``, absolute (relative to the site folder)."""
        return (ROOT / Path(self.erasure_log).expanduser()).resolve()
