"""Where a webhook message goes, by the scheme of its URL in ``LEADS_WEBHOOK_URLS``: each
destination turns the body (``webhooks/payload.py``) into its own HTTP request, behind one
interface, on the same queue, claims and retries (``webhooks/channel.py``).

- ``https://…`` (or ``http://``): a **Standard Webhooks** endpoint: the JSON body, signed
  with ``LEADS_WEBHOOK_SECRET`` (``signed``: never sent without it).
- ``slack+https://hooks.slack.com/services/…``: a **Slack-compatible** incoming webhook
  (Slack, Mattermost, Rocket.Chat, Discord's ``/slack`` URLs, Teams workflows): ``{"text": …}``,
  the lead in a few lines. The URL is its own secret.
- ``telegram://<bot token>/<chat id>``: a message from the owner's **Telegram** bot to
  their chat (Bot API ``sendMessage``; ``?api=<url>``: a self-hosted Bot API server).
  Its remote id is the message's id.
- ``odoo://<api key>@<host>/<database>``: an **Odoo** (19+) CRM lead, ``crm.lead/create``
  over the JSON-2 API; its remote id is the record's id. New leads only.
- ``hubspot://<portal id>/<form guid>``: a submission of a **HubSpot** form (Forms API v3,
  no key: the form's own endpoint), which makes or updates the contact. New leads only.
- ``pipedrive://<api token>@<company domain>``: a **Pipedrive** lead in the Leads Inbox:
  the person first (``POST /v1/persons``), then the lead linked to it (``POST /v1/leads``;
  the request that follows the first answer, ``Outgoing.follow``); its remote id is the
  lead's id. New leads only.

A CRM takes ``lead.created`` only (``request`` answers None for a booking's change: the
message is ``skipped``, not sent); a chat takes the leads and their bookings' changes.
``lead.erased`` (a person's erasure, the retention purge) carries the ids each endpoint
answered (``remote_ids``): a Standard Webhooks receiver gets it signed; Odoo deletes the
records (``crm.lead/search`` for those still there, then ``unlink``); Pipedrive deletes
each lead and, when the lead was still there, the person made with it (a lead already
gone was converted or deleted by the agency: what it became is theirs). ``erases``
says which do; the others (the chats, HubSpot: its form API has no delete) skip it, and
what they keep is listed for the agency to delete by hand (``leads erase``, the purge's
alert). A record already gone (404) counts as deleted.
A CRM's create is not idempotent: a try whose answer was lost and is retried may make a
second record there (rare; the e-mail's same risk), and Pipedrive's lead refused after its
person was made makes a second person when retried.

The chat text is the owner's, in Spanish (``content/es/owner-alerts.yaml``: ``chat_*``),
and carries the visitor's words as text, never as markup: escaped for Slack's mrkdwn
(``slack_text``: ``&``, ``<``, ``>``, so ``<!channel>`` or ``<https://…|a label>`` is
shown, not run), sent with no ``parse_mode`` to Telegram (plain text, link previews
off), as HTML for Odoo's ``description`` (``odoo_html``).

Its modules: ``outgoing.py`` (a request, the interface), ``standard.py`` (the signed
receiver), ``chats.py`` (Slack-compatible, Telegram: the chat's text, escaped), ``crms.py``
(Odoo, HubSpot, Pipedrive); ``destination`` below reads a URL.
"""

from urllib.parse import parse_qs

from agency_site.leads.webhooks.destinations.chats import (
    ChatLine,
    SlackText,
    Telegram,
    chat_text,
    no_line,
    slack_text,
)
from agency_site.leads.webhooks.destinations.crms import HubSpot, Odoo, Pipedrive, odoo_html
from agency_site.leads.webhooks.destinations.outgoing import Destination, Outgoing, UnexpectedAnswer
from agency_site.leads.webhooks.destinations.standard import StandardWebhook, sign

__all__ = [
    "Destination",
    "HubSpot",
    "Odoo",
    "Outgoing",
    "Pipedrive",
    "SlackText",
    "StandardWebhook",
    "Telegram",
    "UnexpectedAnswer",
    "chat_text",
    "destination",
    "odoo_html",
    "sign",
    "slack_text",
]


def destination(url: str, line: ChatLine = no_line) -> Destination:
    """The destination a URL of ``LEADS_WEBHOOK_URLS`` names (``ValueError`` if none);
    ``line``: the first line a chat says of a plugin's event (``Plugins.chat_line``)."""
    scheme, separator, rest = url.partition("://")
    if not separator:
        raise ValueError("a LEADS_WEBHOOK_URLS entry has no scheme (https://, slack+https://...)")
    kind, _, transport = scheme.lower().partition("+")
    if kind in ("http", "https") and not transport:
        return StandardWebhook(url)
    if kind == "slack" and transport in ("http", "https"):
        return SlackText(f"{transport}://{rest}", line=line)
    if kind == "telegram" and not transport:
        path, _, query = rest.partition("?")
        token, _, chat_id = path.rstrip("/").rpartition("/")
        if not token or not chat_id:
            raise ValueError("a telegram:// URL is telegram://<bot token>/<chat id>")
        api = parse_qs(query).get("api", ["https://api.telegram.org"])[0]
        return Telegram(token, chat_id, api, line=line)
    if kind == "odoo" and transport in ("", "http", "https"):
        key, at, place = rest.partition("@")
        host, _, database = place.partition("/")
        if not at or not key or not host:
            raise ValueError("an odoo:// URL is odoo://<api key>@<host>/<database>")
        return Odoo(key, f"{transport or 'https'}://{host}", database.strip("/"))
    if kind == "hubspot" and not transport:
        path, _, query = rest.partition("?")
        portal, _, form = path.strip("/").partition("/")
        if not portal or not form:
            raise ValueError("a hubspot:// URL is hubspot://<portal id>/<form guid>")
        api = parse_qs(query).get("api", ["https://api.hsforms.com"])[0]
        return HubSpot(portal, form, api)
    if kind == "pipedrive" and transport in ("", "http", "https"):
        token, at, host = rest.partition("@")
        host = host.strip("/")
        if not at or not token or not host:
            raise ValueError("a pipedrive:// URL is pipedrive://<api token>@<company domain>")
        if "." not in host and ":" not in host:  # Just the company: <company>.pipedrive.com
            host = f"{host}.pipedrive.com"
        return Pipedrive(token, f"{transport or 'https'}://{host}")
    raise ValueError(f"LEADS_WEBHOOK_URLS: unknown scheme {scheme}:// (see docs/leads.md)")
