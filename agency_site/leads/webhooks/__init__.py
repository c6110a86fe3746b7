"""The leads' second channel, beside the e-mail and independent of it: each lead (and each
event a plugin adds) POSTed to the agency's endpoints (``LEADS_WEBHOOK_URLS``).

- ``queue.py``: the tables: endpoints in use, each message queued in its lead's
  transaction, claimed with a lease, finished; ``lead.erased`` for a person erased;
- ``channel.py``: the sending: claimed, signed, retried on the Standard Webhooks schedule,
  paused, the owner alerted; where the leads' copies went (``leads find``, ``erase``);
- ``payload.py``: the versioned JSON body (``docs/lead-webhook.schema.json``);
- ``destinations/``: what each URL scheme sends (a signed receiver, a chat, a CRM).
"""
