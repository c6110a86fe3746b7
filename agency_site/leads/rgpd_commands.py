"""The operator command's commands on personal data (``python -m agency_site.leads``, see
``cli.py``): ``export`` (the leads as CSV), ``find`` and ``erase`` for the RGPD's rights of
access and erasure (each erasure also written to the erasure log, which ``deploy restore``
re-applies after putting a backup back), ``purge`` (the retention period of the privacy
policy), and ``spool``: the leads waiting on this host's disk for the database, and the
lines the drain set aside. ``find``, ``erase`` and ``purge`` also cover this host's spool
folder, and say where else the leads went by webhook.

Files with personal data (``export``, ``find -o``) are written outside the site folder
(``LEADS_EXPORT_DIR``), never into it: ``reflex export`` packs that folder into
``backend.zip``. A cell a spreadsheet would run as a formula is written as text.
"""

import csv
import json
import os
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import TextIO

from agency_site.forms.declarations import export_fields
from agency_site.leads import erasures
from agency_site.leads import source as lead_source
from agency_site.leads.delivery import Delivery
from agency_site.leads.models import Lead, utcnow
from agency_site.leads.rgpd import retention_cutoff
from agency_site.leads.spool import QUARANTINE, SUFFIX, TORN, Spool, SpooledLead
from agency_site.leads.statuses import LeadStatus
from agency_site.leads.webhooks.channel import WebhookChannel
from agency_site.settings import ROOT

# The forms' fields (their declarations say which), each once.
EXPORT_FIELDS = export_fields()
EXPORT_COLUMNS = (
    "id",
    "created_at",
    "kind",
    "status",
    "attempts",
    "sent_at",
    "last_error",
    *EXPORT_FIELDS,
    "source",
    "language",
    "notes",  # The plugins' note of the lead (``lead_notes``: a booking's state).
)
# A cell starting with one of these is a formula to a spreadsheet (CSV injection).
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def writable(text: str) -> str:
    """``text`` as any UTF-8 output can take it: an old row may hold a lone surrogate
    (validation refuses them since), written as its escape (``\\ud800``); in JSON that
    escape reads back as the stored value."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def when(lead_time) -> str:
    """A timestamp for people: UTC, to the second."""
    return lead_time.strftime("%Y-%m-%d %H:%M:%S UTC") if lead_time else "-"


def notes_of(delivery: Delivery, leads: list[Lead]) -> dict[int, str]:
    """The plugins' note of each of ``leads`` that has one."""
    store = delivery.store
    return store.plugins.lead_notes(store.engine, [lead.id for lead in leads if lead.id])


def _cell(value: object) -> str:
    """A CSV cell that a spreadsheet shows as text, never runs as a formula."""
    text = "" if value is None else writable(str(value))
    return "'" + text if text.startswith(_FORMULA_START) else text


def _row(lead: Lead, notes: Mapping[int, str]) -> list[str]:
    return [
        _cell(value)
        for value in (
            lead.id,
            lead.created_at.isoformat() if lead.created_at else "",
            lead.kind,
            lead.status,
            lead.attempts,
            lead.sent_at.isoformat() if lead.sent_at else "",
            lead.last_error,
            *(lead.fields.get(name, "") for name in EXPORT_FIELDS),
            lead_source.describe(lead.source),
            lead.language,
            notes.get(lead.id or 0, ""),
        )
    ]


def write_csv(leads: list[Lead], file: TextIO, notes: Mapping[int, str] | None = None) -> None:
    writer = csv.writer(file)
    writer.writerow(EXPORT_COLUMNS)
    writer.writerows(_row(lead, notes or {}) for lead in leads)


def _write_json(leads: list[Lead], file: TextIO) -> None:
    """Every stored column of every lead, as JSON (the right of access)."""
    records = [
        {
            "id": lead.id,
            "kind": lead.kind,
            "created_at": lead.created_at.isoformat() if lead.created_at else None,
            "status": lead.status,
            "attempts": lead.attempts,
            "sent_at": lead.sent_at.isoformat() if lead.sent_at else None,
            "last_error": lead.last_error,
            "fields": lead.fields,
            "source": lead.source,
            "language": lead.language,
        }
        for lead in leads
    ]
    file.write(writable(json.dumps(records, ensure_ascii=False, indent=2)) + "\n")


def _inside_site(path: Path) -> bool:
    """Whether ``path`` lies in the site folder (which ``reflex export`` zips)."""
    return path.resolve().is_relative_to(ROOT)


def write_file(
    path: Path, leads: list[Lead], write: Callable[[list[Lead], TextIO], None], out: TextIO
) -> int:
    """Write personal data to ``path``, refusing the site folder; readable by the owner only."""
    if _inside_site(path):
        print(
            f"Refused: {path} is inside the site folder ({ROOT}), which `reflex export` packs "
            "into backend.zip. Write it elsewhere, e.g. under LEADS_EXPORT_DIR.",
            file=out,
        )
        return 2
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with open(descriptor, "w", newline="", encoding="utf-8") as file:
        write(leads, file)
    print(f"{len(leads)} lead(s) written to {path}.", file=out)
    return 0


def export(delivery: Delivery, status: str | None, output: str | None, ops: "Options") -> int:
    leads = delivery.store.all(LeadStatus(status) if status else None)
    write = partial(write_csv, notes=notes_of(delivery, leads))
    if output == "-":
        write(leads, ops.out)
        return 0
    stamp = utcnow().strftime("%Y%m%d-%H%M%S")
    path = Path(output).expanduser() if output else ops.export_dir / f"leads-{stamp}.csv"
    return write_file(path, leads, write, ops.out)


def purge(delivery: Delivery, ops: "Options") -> int:
    cutoff = retention_cutoff(ops.retention_months)
    when = cutoff.strftime("%Y-%m-%d %H:%M UTC")
    purged = delivery.store.purge(cutoff)
    lines = Spool(ops.spool_dir).purge(cutoff)
    print(
        f"{purged.deleted} lead(s) deleted: people whose last lead arrived before {when} "
        f"(retention: {ops.retention_months} months); {lines} line(s) of this host's "
        "spool folder received before then.",
        file=ops.out,
    )
    if purged.erasures:
        endpoints = len({erasure.endpoint for erasure in purged.erasures})
        print(
            f"lead.erased queued for {endpoints} webhook endpoint(s) their messages reached.",
            file=ops.out,
        )
    if ops.webhooks is not None and (places := ops.webhooks.by_hand(purged.erasures)):
        print(f"Delete by hand (they cannot be told): {'; '.join(places)}.", file=ops.out)
    return 0


def _spooled(ops: "Options", email: str) -> list[Lead]:
    """The lines of this host's spool folder about ``email``, as leads not stored (no id)."""
    host = socket.gethostname()
    found = []
    for path, raw in Spool(ops.spool_dir).of_email(email):
        where = "spooled" if path.suffix == SUFFIX else "set aside"
        try:
            lead = SpooledLead.parse(raw)
        except (ValueError, KeyError, TypeError):
            text = raw.decode("utf-8", errors="replace")
            found.append(
                Lead(kind="?", fields={"line": text}, created_at=None, status=f"{where} on {host}")
            )
            continue
        found.append(
            Lead(
                kind=lead.kind,
                fields=lead.fields,
                created_at=lead.created_at,
                status=f"{where} on {host}",
                source=lead.source,
                language=lead.language,
            )
        )
    return found


def _elsewhere(leads: Sequence[Lead], ops: "Options", erasing: bool | None = None) -> str | None:
    """Where else these leads' data went by webhook (a receiver, a chat, a CRM), with the
    ids it answered, for the operator to erase there too: ``find`` says every place,
    ``erase`` those the ``lead.erased`` message cannot clear (``erasing`` False)."""
    ids = [lead.id for lead in leads if lead.id is not None]
    places = ops.webhooks.elsewhere(ids, erasing) if ops.webhooks is not None and ids else []
    return f"Also erase in: {'; '.join(places)}." if places else None


def _erased_there(leads: Sequence[Lead], ops: "Options") -> str | None:
    """Where the ``lead.erased`` message clears these leads' copies (``erase``)."""
    ids = [lead.id for lead in leads if lead.id is not None]
    places = ops.webhooks.elsewhere(ids, True) if ops.webhooks is not None and ids else []
    return f"Erased there by a lead.erased message: {'; '.join(places)}." if places else None


def find(delivery: Delivery, email: str, form: str, output: str | None, ops: "Options") -> int:
    """The person's data on standard output (or in ``output``); where else it went on
    standard error, so that the JSON or CSV stays whole when redirected."""
    leads = delivery.store.of_email(email) + _spooled(ops, email)
    write = _write_json if form == "json" else write_csv
    code = 0
    if output:
        code = write_file(Path(output).expanduser(), leads, write, ops.out)
    else:
        write(leads, ops.out)
    if code == 0 and (places := _elsewhere(leads, ops)):
        print(places, file=ops.err or sys.stderr)
    return code


def erase(delivery: Delivery, email: str, yes: bool, ops: "Options") -> int:
    leads = delivery.store.of_email(email)
    spool = Spool(ops.spool_dir)
    spooled = spool.of_email(email)
    if not leads and not spooled:
        print(f"No lead stored for {email}.", file=ops.out)
        return 0
    ids = ", ".join(str(lead.id) for lead in leads)
    print(f"{len(leads)} lead(s) of {email}: {ids or '-'}.", file=ops.out)
    if spooled:
        print(f"{len(spooled)} line(s) in this host's spool folder.", file=ops.out)
    for places in (_elsewhere(leads, ops, erasing=False), _erased_there(leads, ops)):
        if places:
            print(places, file=ops.out)
    if not yes and not _confirm("Delete them for good?", ops):
        print("Nothing deleted.", file=ops.out)
        return 1
    # Logged first: if the delete fails, a later restore still honours the request, and
    # the drain drops any lead of this address it has not stored yet.
    erasures.record(ops.erasure_log, email)
    # The spool before the table: a drain storing this person's lead right now holds
    # its file's lock, so the lead is in the table before the table's delete.
    lines = spool.erase(email)
    deleted = delivery.store.erase_email(email)
    print(
        f"{deleted} lead(s) deleted, and {lines} line(s) of this host's spool folder. "
        "Delete also the e-mails they produced in the agency's inbox and any CSV exported "
        "earlier; run this on every host that has a spool folder.",
        file=ops.out,
    )
    return 0


def _confirm(question: str, ops: "Options") -> bool:
    print(f"{question} Type 'yes' to confirm: ", end="", file=ops.out)
    ops.out.flush()
    return ops.ask().strip().lower() in ("yes", "y", "si", "sí", "s")


def show_spool(ops: "Options") -> int:
    spool = Spool(ops.spool_dir)
    leads = list(spool.leads())
    if not leads:
        print(f"The spool is empty ({ops.spool_dir}).", file=ops.out)
    else:
        print(f"{len(leads)} lead(s) wait for the database in {ops.spool_dir}:", file=ops.out)
        for lead in leads:
            contact = lead.fields.get("email", "")
            print(writable(f"  {when(lead.created_at):23}  {lead.kind:8} {contact}"), file=ops.out)
    aside = list(spool.lines(spool.aside()))
    if aside:
        print(
            f"{len(aside)} line(s) set aside: the database refused them or they cannot be "
            f"read (spool-*{QUARANTINE}, spool-*{TORN}). Answer these people directly, then "
            "delete the lines (or, once the cause is fixed, append them to a "
            f"spool-*{SUFFIX} file to be drained again):",
            file=ops.out,
        )
        for path, raw in aside:
            try:
                lead = SpooledLead.parse(raw)
            except (ValueError, KeyError, TypeError):
                text = raw.decode("utf-8", errors="replace")[:120]
                print(f"  {path.name}: unreadable: {text}", file=ops.out)
                continue
            contact = lead.fields.get("email", "")
            print(
                writable(f"  {path.name}: {when(lead.created_at):23}  {lead.kind:8} {contact}"),
                file=ops.out,
            )
    return 0


@dataclass(frozen=True)
class Options:
    """What the RGPD commands need besides the store: settings, output and the operator."""

    out: TextIO
    retention_months: int
    export_dir: Path
    ask: Callable[[], str]
    erasure_log: Path = Path("data/erasures.log")
    spool_dir: Path = Path("data/spool")
    webhooks: WebhookChannel | None = None  # Where the leads went besides the e-mail.
    err: TextIO | None = None  # Notes beside data on ``out`` (``find``); None: stderr.
