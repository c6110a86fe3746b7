"""The owner's desk: the agency's private pages under ``paths.DESK``, signed in with a passkey
(docs/desk.md; why pages the backend renders: docs/architecture.md).

- ``guard.py``: the app and its guard (host, origin, session, headers), what a screen's handler
  uses (``signed_in``, ``render``, ``record``, ``requires_fresh_passkey``), ``DeskMount``;
- ``sign_in.py``: sign-in, enrolment through an invite, confirmation, sign-out;
- ``passkeys.py`` (WebAuthn ceremonies, py_webauthn), ``people.py`` (people, invites,
  passkeys), ``sessions.py``, ``audit.py`` (the audit log), ``tokens.py``, ``models.py``;
- the screens, listed in ``app.py``: ``inbox.py``, ``log.py``, ``access.py``; their
  templates in ``templates/`` (the desk's words), ``static/desk.css`` and ``static/desk.js``;
- a lead's page (``lead_page.py``), the agency's pipeline and notes (``pipeline.py``), the
  spam review (``spam_review.py``), the inbox as CSV (``inbox_export.py``), and what they
  reach of the lead core (``lead_tools.py``: its delivery, ``Desk.lead_tools``);
- the bookings calendar (``bookings_view.py``, its routes; the week and month it draws
  ``booking_calendar.py``; the owner's answers through the signed links' booking desk
  ``booking_answers.py``: ``Desk.booking_desk``), the privacy requests (``privacy_requests.py``: ``Desk.privacy_tools``;
  their rules and deadline ``privacy_rules.py``, their table ``privacy_table.py``, a person's
  data found and erased ``privacy_findings.py``, exported ``privacy_export.py``),
  the month's figures and the leads' health (``figures_view.py``); ``static/screens.css``;
- ``runtime.py`` (mounted by ``agency_site.py``), ``purge_plugin.py`` (its daily purge, through
  ``LEADS_PLUGINS``), ``__main__.py`` (``python -m agency_site.desk invite|url``).
"""
