"""The privacy policy names, in both languages, every kind of place a lead's data may go:
EmailJS, and each destination a webhook URL can name (``leads/webhooks/destinations/``), with its
retention and the erasure following it there. A new destination fails here until the
policy names it."""

import importlib
import inspect
import pkgutil

import pytest

from agency_site.content.legal import PRIVACY
from agency_site.leads.webhooks import destinations
from tests.test_content_legal import text_of

# What the policy calls each destination (a brand, or the generic signed webhook).
NAMED_AS = {
    destinations.StandardWebhook: "webhook",
    destinations.SlackText: "Slack",
    destinations.Telegram: "Telegram",
    destinations.Odoo: "Odoo",
    destinations.HubSpot: "HubSpot",
    destinations.Pipedrive: "Pipedrive",
}
# Retention and erasure of the copies there, per language.
FOLLOWS = {
    "es": ("sus copias en nuestras herramientas de trabajo (CRM, chat)", "sus copias en esas"),
    "ca": ("les seves còpies a les nostres eines de treball (CRM, xat)", "les seves còpies en"),
}


def test_every_destination_has_a_name_in_the_policy() -> None:
    """Every class of the destinations package's modules that answers a remote id."""
    modules = [destinations] + [
        importlib.import_module(f"{destinations.__name__}.{found.name}")
        for found in pkgutil.iter_modules(destinations.__path__)
    ]
    kinds = {
        kind
        for module in modules
        for _, kind in inspect.getmembers(module, inspect.isclass)
        if kind.__module__ == module.__name__
        and hasattr(kind, "remote_id")
        and kind is not destinations.Destination  # The interface itself.
    }
    assert kinds == set(NAMED_AS)


@pytest.mark.parametrize("language", ["es", "ca"])
def test_the_policy_names_each_destination_its_retention_and_erasure(language: str) -> None:
    text = text_of(PRIVACY.of(language))
    for name in ("EmailJS", *NAMED_AS.values()):
        assert name in text, name
    for words in FOLLOWS[language]:
        assert words in text, words
