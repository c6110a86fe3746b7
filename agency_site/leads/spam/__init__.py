"""Spam with no third party: what takes a valid submission for spam, and what a suspect one
is asked to prove.

- ``gate.py``: a submission's spam gate (the intake's): its proof of work, the rate
  limit's pass of a solved one, and the verdict (the honeypot first, then ``screen.py``):
  clean, quarantined, challenged or released;
- ``screen.py``: the checks in order (``SpamScreen``: the form's token, then the address);
- ``form_token.py``: the time trap, a token signed when a visitor starts on a form;
- ``address_check.py``: a throwaway-mailbox domain, one that takes no e-mail;
- ``challenge.py``: the ALTCHA proof of work a soft-flagged or rate-limited submission
  solves to be released;
- ``widget.py``: the ALTCHA widget's pinned npm files and its attributes (the page's form
  and the backend's page without JavaScript).

A suspect lead is quarantined, never refused: stored as ``spam`` with its reason, answered
as a real submission, never sent (docs/leads.md, "Spam").
"""
