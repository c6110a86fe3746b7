"""``python -m agency_site.desk invite ADDRESS | url``: the operator's side of the desk.

- ``invite ADDRESS [--name NAME]``: prints a link, valid 24 hours and once, that enrolls a
  passkey for that person of the agency (created if new). The person's earlier invites not
  used yet end. With every passkey lost, a new invite lets them in again.
- ``url``: prints the desk's address.

The address is the desk's origin (``DESK_HOST``, else ``REFLEX_API_URL``, else
``http://localhost:8000``, the backend of ``make run``). Under ``make prod`` (one port,
3000) say so: ``REFLEX_API_URL=http://localhost:3000 python -m agency_site.desk invite …``.
"""

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from typing import TextIO

from email_validator import EmailNotValidError, validate_email

from agency_site.desk import audit, people
from agency_site.desk.audit import AuditAction
from agency_site.desk.config import INVITE_VALID, desk_config
from agency_site.desk.sign_in import ENROLL
from agency_site.settings import get_settings

# Said wherever the desk's address is printed: WebAuthn binds a passkey to a domain name.
LOCALHOST_NOTE = (
    "Open it at this exact address: a passkey is bound to a domain name, so on this machine "
    "use localhost, never 127.0.0.1 or 0.0.0.0."
)


def _address(text: str) -> str:
    try:
        return validate_email(text, check_deliverability=False).normalized
    except EmailNotValidError as error:
        raise argparse.ArgumentTypeError(f"not an e-mail address: {error}") from None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agency_site.desk",
        description="The owner's desk: invite a person of the agency, print the desk's address.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    invite = commands.add_parser(
        "invite", help="print a one-time link (24 h) that enrolls a person's passkey"
    )
    invite.add_argument("email", type=_address, help="the person's e-mail address")
    invite.add_argument("--name", default=None, help="their name, as the desk shows it")
    commands.add_parser("url", help="print the desk's address")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO = sys.stdout) -> int:
    """Run the command; its exit code."""
    args = _parser().parse_args(argv)
    settings = get_settings()
    config = desk_config(settings, settings.reflex.api_url)
    if args.command == "url":
        print(config.url(), file=out)
        if config.rp_id == "localhost":
            print(LOCALHOST_NOTE, file=out)
        return 0
    from agency_site.leads import migrations
    from agency_site.leads.runtime import database_engine

    engine = database_engine()
    migrations.upgrade(engine)
    now = dt.datetime.now(dt.UTC)
    name = " ".join(args.name.split())[:120] if args.name else None
    person, created = people.ensure_person(engine, args.email, name, now)
    token, _ = people.issue_invite(engine, person.id, now)
    audit.record(engine, None, AuditAction.INVITED, subject_id=person.id, at=now)
    hours = int(INVITE_VALID.total_seconds() // 3600)
    state = "new person" if created else "existing person"
    print(f"Invite for {person.email} ({state}), valid {hours} h, once:", file=out)
    print(config.url(f"{ENROLL}#{token}"), file=out)
    if config.rp_id == "localhost":
        print(LOCALHOST_NOTE, file=out)
    engine.dispose()
    return 0


if __name__ == "__main__":
    sys.exit(main())
