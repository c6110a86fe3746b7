"""What the desk's lead screens reach beyond the database: the lead core's delivery (its
store, with the plugins that hold a booking's slot, and its EmailJS client: "No es spam"
sends a lead as the intake does), how long a spam lead is kept once shown, and the
webhook endpoints in use (to name a lead's copies by their destination, never by their
URL, which may carry a token).

``runtime.py`` builds it from the settings and the process's intake; a test builds it on
its own store and a fake EmailJS.
"""

from collections.abc import Mapping
from dataclasses import dataclass, field

from agency_site.leads.delivery import Delivery
from agency_site.leads.store import LeadStore
from agency_site.leads.webhooks.destinations import destination
from agency_site.leads.webhooks.queue import endpoint_key


@dataclass(frozen=True)
class LeadTools:
    """The lead core as the desk's screens use it."""

    delivery: Delivery
    spam_keep_days: int = 7
    webhook_urls: tuple[str, ...] = field(default=(), repr=False)

    @property
    def store(self) -> LeadStore:
        return self.delivery.store

    def endpoint_names(self) -> Mapping[str, str]:
        """Each endpoint's key (``lead_webhooks.endpoint``) and what the owner calls it:
        its destination and its place in ``LEADS_WEBHOOK_URLS`` ("HubSpot (2)")."""
        names = {}
        for number, url in enumerate(self.webhook_urls, start=1):
            try:
                label = destination(url).label
            except ValueError:
                label = "webhook"
            names[endpoint_key(url)] = f"{label} ({number})"
        return names
