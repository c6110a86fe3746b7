"""The seam where features plug into the lead core: named hooks, each a no-op by default.

The core (store, intake, spool, delivery, webhooks, monitor, cli) tells how a lead is accepted, stored,
delivered, retried, erased and purged, and names no feature. A feature (the consultation
bookings, ``agency_site.bookings.plugin``) plugs in through a ``LeadPlugin``:

- ``hold``: in the transaction that stores a lead or releases it from quarantine, after
  the lead's row is written (a booking's slot, with every rule a slot has: free, not
  busy, the day not full, the visitor within the pending caps, counted there, under
  locks); raises ``Refused`` when the lead cannot be stored for a business reason
  (nothing is written), unless ``Hold.strict`` is False (a lead drained from the spool, or
  released by the owner: the visitor was told "received", or the owner decided, so it is
  stored anyway, holding what it can, and ``hold`` answers what it could not hold and
  why). One decision, on every path that writes a lead: there is no check beforehand
  that a later path could skip.
- ``forget``: in the transaction that erased or purged leads (their bookings go too).
- ``email_params``: what a lead's e-mail to the agency adds (a booking's links and note).
- ``watchers``: the monitor's extra rounds (unanswered bookings, their expiry).
- ``lead_notes``: a short note per lead for ``list`` and ``export`` (a booking's state).
- ``webhook_data``: what a lead's webhook body adds to its ``data`` (``{"booking": ...}``,
  ``webhooks/payload.py``); a plugin queues its own events with ``webhooks.queue.queue_event``
  and declares them (``webhook_events``: the core's are ``lead.created`` and
  ``lead.erased``), each with the first line a chat shows of it (``chat_line``: the chat
  destinations, ``webhooks/destinations/chats.py``, ask the plugin whose event it is).
- ``health``: what ``/_site/leads/health`` adds under ``notes`` (the owner's calendars
  that fail); no personal data, no secrets; ``health_problem``: the one word the page's
  status takes when the owner must act (a calendar not fetched for a day).
- ``commands``: the operator command's extra subcommands (``confirm``, ``decline``...).

``Refused.errors`` are the form's field errors, in the visitor's language: the intake
answers them as an invalid submission.

Which plugins run is a setting, as Django's ``INSTALLED_APPS``: ``LEADS_PLUGINS`` lists
dotted module paths (comma-separated, default ``agency_site.bookings.plugin``), each
imported here with importlib and asked for its plugin (``plugin(settings)``). No
module of the core imports a feature; the features import the core.
"""

import argparse
import datetime as dt
import importlib
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TextIO

import sqlalchemy as sa
from sqlmodel import Session

from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.settings import Settings

if TYPE_CHECKING:
    from agency_site.leads.monitor import Monitor
    from agency_site.leads.store import LeadStore

# A watcher of the monitor: one round of it.
Watcher = Callable[[], Awaitable[Any]]
# A plugin's operator subcommand: (its parsed arguments, the store, the output) -> exit code.
Command = Callable[[argparse.Namespace, "LeadStore", TextIO], int]


class Refused(Exception):
    """The lead cannot be stored for a business reason: the form's field errors (field ->
    message, in the visitor's language)."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__(", ".join(errors))
        self.errors = errors


@dataclass(frozen=True)
class Hold:
    """How the plugins hold what comes with a lead, in the transaction that stores it or
    releases it from quarantine.

    - the intake's insert, and the visitor's release of their lead by a solved challenge:
      ``Hold(network=...)`` (strict: a refusal is the form's field errors);
    - the spool's drain: ``Hold(strict=False, network=...)`` (the line's network);
    - the owner's release (``leads not-spam``, the desk): ``OWNER_RELEASE``.
    """

    # False: what cannot be held is not an error (a drained lead, the owner's release).
    strict: bool = True
    # The network of the request that claims, as a keyed digest (``ratelimit.network_digest``
    # of its /24 or IPv6 /48, never the address; the solving request's for a release); None
    # when not known.
    network: str | None = None
    # False: the owner decided, the visitors' caps (pending bookings per mailbox and per
    # network) do not apply; every other rule does.
    caps: bool = True


# The owner released a lead from quarantine: delivered as if it had just arrived, holding
# what is still free (a booking's slot, if not taken or busy), whatever the visitors' caps.
OWNER_RELEASE = Hold(strict=False, caps=False)


class LeadPlugin:
    """A feature plugged into the lead core; override the hooks it needs."""

    def hold(self, session: Session, lead: Lead, hold: Hold) -> str | None:
        """In the transaction storing or releasing ``lead`` (flushed: it has its id);
        raises ``Refused`` (``hold.strict``), else answers why what comes with it could not
        be held (a booking's slot: ``"taken"``, ``"busy"``...), or None."""
        return None

    def forget(self, connection: sa.Connection) -> None:
        """In the transaction that just deleted leads: delete what belonged to them."""

    def email_params(self, engine: sa.Engine, kind: LeadKind, lead_id: int) -> dict[str, str]:
        """What the agency's e-mail of lead ``lead_id`` adds to its parameters."""
        return {}

    def watchers(self, monitor: "Monitor") -> list[Watcher]:
        """The rounds the monitor runs after its own, in order, every tick."""
        return []

    def lead_notes(self, engine: sa.Engine, lead_ids: list[int]) -> dict[int, str]:
        """A short note for some of the leads ``lead_ids`` (the listing and the export)."""
        return {}

    def webhook_data(self, engine: sa.Engine, lead_id: int) -> dict[str, Any]:
        """What the webhook body of lead ``lead_id`` adds to its ``data``."""
        return {}

    def webhook_events(self) -> tuple[str, ...]:
        """The webhook events this plugin queues (``queue_event``): their bodies' ``type``,
        which ``docs/lead-webhook.schema.json`` lists beside the core's."""
        return ()

    def chat_line(self, payload: dict[str, Any]) -> str:
        """What a chat message (Slack-compatible, Telegram) of one of this plugin's
        ``webhook_events`` says first, in the owner's words (``content/*/owner-alerts.yaml``);
        the lead's fields follow. "": the core's line of a new lead."""
        return ""

    def health(self, now: dt.datetime) -> dict[str, Any]:
        """What the health page adds under ``notes`` at ``now`` (JSON values; nothing when
        all is well)."""
        return {}

    def health_problem(self, now: dt.datetime) -> str | None:
        """A problem of this feature the health page's status names at ``now`` (one word,
        e.g. the bookings' ``calendar_stale``: 503, an uptime monitor tells the owner), or
        None when it has none. Only what the owner must act on: the forms work meanwhile."""
        return None

    def commands(self, subparsers: "argparse._SubParsersAction[Any]") -> None:
        """Add subcommands to ``python -m agency_site.leads``; each sets its ``Command`` as
        the ``plugin_command`` default (``parser.set_defaults(plugin_command=...)``)."""


@dataclass(frozen=True)
class Plugins:
    """The plugins in use, each hook called on every one of them in order."""

    each: tuple[LeadPlugin, ...] = ()

    def __iter__(self) -> Iterator[LeadPlugin]:
        return iter(self.each)

    def hold(self, session: Session, lead: Lead, hold: Hold) -> str | None:
        """Every plugin's hold; what could not be held, joined with ", " (None: all held)."""
        lost = [why for plugin in self.each if (why := plugin.hold(session, lead, hold))]
        return ", ".join(lost) or None

    def forget(self, connection: sa.Connection) -> None:
        for plugin in self.each:
            plugin.forget(connection)

    def email_params(self, engine: sa.Engine, kind: LeadKind, lead_id: int) -> dict[str, str]:
        params: dict[str, str] = {}
        for plugin in self.each:
            params |= plugin.email_params(engine, kind, lead_id)
        return params

    def watchers(self, monitor: "Monitor") -> list[Watcher]:
        return [watcher for plugin in self.each for watcher in plugin.watchers(monitor)]

    def lead_notes(self, engine: sa.Engine, lead_ids: list[int]) -> dict[int, str]:
        """Every plugin's notes, joined per lead with "; "."""
        notes: dict[int, list[str]] = {}
        for plugin in self.each:
            for lead_id, note in plugin.lead_notes(engine, lead_ids).items():
                notes.setdefault(lead_id, []).append(note)
        return {lead_id: "; ".join(each) for lead_id, each in notes.items()}

    def webhook_data(self, engine: sa.Engine, lead_id: int) -> dict[str, Any]:
        data: dict[str, Any] = {}
        for plugin in self.each:
            data |= plugin.webhook_data(engine, lead_id)
        return data

    def webhook_events(self) -> tuple[str, ...]:
        """Every plugin's webhook events, in the plugins' order."""
        return tuple(event for plugin in self.each for event in plugin.webhook_events())

    def chat_line(self, payload: dict[str, Any]) -> str | None:
        """The first line of a chat message of ``payload``: the one the plugin whose
        ``webhook_events`` has its type says; None for the core's events (and when that
        plugin says none)."""
        for plugin in self.each:
            if payload["type"] in plugin.webhook_events():
                return plugin.chat_line(payload) or None
        return None

    def health(self, now: dt.datetime) -> dict[str, Any]:
        notes: dict[str, Any] = {}
        for plugin in self.each:
            notes |= plugin.health(now)
        return notes

    def health_problem(self, now: dt.datetime) -> str | None:
        """The first plugin's problem, in the plugins' order."""
        return next((p for plugin in self.each if (p := plugin.health_problem(now))), None)

    def commands(self, subparsers: "argparse._SubParsersAction[Any]") -> None:
        for plugin in self.each:
            plugin.commands(subparsers)


def load(settings: Settings) -> Plugins:
    """The plugins ``LEADS_PLUGINS`` names: each module's ``plugin(settings)``."""
    paths = [path.strip() for path in settings.leads.plugins.split(",") if path.strip()]
    return Plugins(tuple(importlib.import_module(path).plugin(settings) for path in paths))
