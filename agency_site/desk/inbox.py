"""The inbox (``paths.DESK``): every lead of every form, newest first, with what the owner
looks for: its form, its status as the owner reads it (delivered, waiting, held, failed,
spam), where it came from (campaign, referring site, landing page), its language, when it
arrived. Each row opens the lead's own page (``paths.desk_lead``).

Search (``q``) across the name, e-mail, phone and message; filters by form, status,
month and the agency's pipeline stage (``pipeline.py``, a column too); all kept in the URL (a GET form), so a filtered view can be bookmarked and the back
button works. One page is ``PAGE_SIZE`` leads read through the ``(created_at, id)`` index
(``models.LEADS_BY_ARRIVAL``) from a keyset cursor (``before``/``after``): a year of leads
(30,000) costs what one page costs, never a read of every lead.

The search is one query on both databases: each searched field is taken out of the
``fields`` JSON (``Lead.fields[name].as_string()``: SQLite's ``json_extract``,
PostgreSQL's ``->>``), lower-cased and compared with ``LIKE`` to the lower-cased text (its
``%``, ``_`` and ``\\`` escaped). Lower-casing is Python's ``str.lower`` of NFC text on
SQLite (a function registered on the connection: SQLite's own ``lower`` knows ASCII only)
and ICU's on PostgreSQL (``COLLATE "und-x-icu"``, whatever the database's locale), so
``ÁNGELA`` finds ``Ángela`` on both.
"""

import asyncio
import datetime as dt
import unicodedata
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

import sqlalchemy as sa
from sqlmodel import col
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from agency_site import paths
from agency_site.desk.guard import AGENCY_ZONE, desk_of, query_string, render
from agency_site.desk.models import DeskLeadStage
from agency_site.desk.pipeline import Stage, stage_condition
from agency_site.forms.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.leads.statuses import LeadStatus

PAGE_SIZE = 50
# The fields a search looks in (those a form has: the Home form has only the e-mail).
SEARCHED = ("name", "email", "phone", "message")
QUERY_MAX = 100
MONTHS_OFFERED = 24
_ICU = "und-x-icu"
_EPOCH = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)


class Shown(StrEnum):
    """A lead's status as the owner reads it."""

    DELIVERED = "delivered"
    WAITING = "waiting"
    HELD = "held"
    FAILED = "failed"
    SPAM = "spam"


# Which stored statuses each shown one covers: every ``LeadStatus`` exactly once.
STATUSES: dict[Shown, tuple[LeadStatus, ...]] = {
    Shown.DELIVERED: (LeadStatus.SENT,),
    Shown.WAITING: (LeadStatus.QUEUED, LeadStatus.SENDING),
    Shown.HELD: (LeadStatus.HELD,),
    Shown.FAILED: (LeadStatus.REJECTED,),
    Shown.SPAM: (LeadStatus.SPAM,),
}
SHOWN_OF = {status: shown for shown, each in STATUSES.items() for status in each}


def fold(text: str) -> str:
    """Text as the search compares it: NFC, lower-cased."""
    return unicodedata.normalize("NFC", text).lower()


def month_bounds(month: str) -> tuple[dt.datetime, dt.datetime]:
    """The first instant of ``month`` (``2026-11``, the agency's time) and of the next."""
    year, number = (int(part) for part in month.split("-"))
    start = dt.datetime(year, number, 1, tzinfo=AGENCY_ZONE)
    following = dt.datetime(year + number // 12, number % 12 + 1, 1, tzinfo=AGENCY_ZONE)
    return start.astimezone(dt.UTC), following.astimezone(dt.UTC)


def _month(value: str | None) -> str | None:
    if not value or len(value) != 7 or value[4] != "-":
        return None
    try:
        year, number = int(value[:4]), int(value[5:])
    except ValueError:
        return None
    return value if 2000 <= year <= 2999 and 1 <= number <= 12 else None


@dataclass(frozen=True)
class InboxCursor:
    """Where a page starts: a lead's arrival and id (``<microseconds>_<id>`` in the URL)."""

    created_at: dt.datetime
    lead_id: int

    def __str__(self) -> str:
        micros = (self.created_at - _EPOCH) // dt.timedelta(microseconds=1)
        return f"{micros}_{self.lead_id}"

    @classmethod
    def parse(cls, value: str | None) -> "InboxCursor | None":
        micros, _, lead_id = (value or "").partition("_")
        if not (micros.isdigit() and lead_id.isdigit()) or len(value or "") > 40:
            return None
        moment = _EPOCH + dt.timedelta(microseconds=int(micros))
        return cls(moment, int(lead_id))


@dataclass(frozen=True)
class Filters:
    """What the owner asked for: the search text, a form, a status, a month, a stage."""

    q: str = ""
    form: LeadKind | None = None
    status: Shown | None = None
    month: str | None = None
    stage: Stage | None = None

    @classmethod
    def from_query(cls, params: Mapping[str, str]) -> "Filters":
        """The filters of a URL's query; a value that is none of the choices is dropped."""
        q = " ".join(params.get("q", "").split())[:QUERY_MAX]
        form = params.get("form", "")
        status = params.get("status", "")
        stage = params.get("stage", "")
        return cls(
            q=q,
            form=LeadKind(form) if form in set(LeadKind) else None,
            status=Shown(status) if status in set(Shown) else None,
            month=_month(params.get("month")),
            stage=Stage(stage) if stage in set(Stage) else None,
        )

    def params(self) -> dict[str, str]:
        """The URL's query of these filters (without a page's cursor)."""
        return {
            "q": self.q,
            "form": self.form or "",
            "status": self.status or "",
            "month": self.month or "",
            "stage": self.stage or "",
        }

    @property
    def any(self) -> bool:
        return any(self.params().values())


def _escaped(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _lower(engine: sa.Engine, connection: sa.Connection, value: sa.ColumnElement[str]):
    """``value`` folded as ``fold`` does, in this database."""
    if engine.dialect.name == "sqlite":
        return sa.func.desk_fold(value)
    icu, utf8 = _postgres_features(connection)
    if utf8:  # normalize() needs a UTF-8 database (PostgreSQL 13+).
        value = sa.func.normalize(value, sa.literal_column("NFC"))
    if icu:
        return sa.func.lower(sa.collate(value, _ICU))
    return sa.func.lower(value)  # Without ICU: the database's own locale.


_FEATURES: dict[str, tuple[bool, bool]] = {}


def _postgres_features(connection: sa.Connection) -> tuple[bool, bool]:
    """Whether this PostgreSQL has ICU's root collation (Debian's does) and is UTF-8."""
    key = connection.engine.url.render_as_string()
    if key not in _FEATURES:
        icu = connection.execute(
            sa.text("SELECT count(*) FROM pg_collation WHERE collname = 'und-x-icu'")
        ).scalar()
        encoding = connection.execute(sa.text("SHOW server_encoding")).scalar()
        _FEATURES[key] = (bool(icu), str(encoding).upper() in ("UTF8", "UTF-8"))
    return _FEATURES[key]


def _prepared(connection: sa.Connection) -> None:
    """SQLite: the ``desk_fold`` function on this connection."""
    if connection.engine.dialect.name == "sqlite":
        raw = connection.connection.driver_connection
        raw.create_function(
            "desk_fold", 1, lambda text: fold(text) if text else "", deterministic=True
        )


def conditions(engine: sa.Engine, connection: sa.Connection, filters: Filters) -> list[Any]:
    """The WHERE conditions of ``filters``."""
    where: list[Any] = []
    if filters.form:
        where.append(Lead.kind == str(filters.form))
    if filters.status:
        where.append(col(Lead.status).in_([str(s) for s in STATUSES[filters.status]]))
    if filters.month:
        start, end = month_bounds(filters.month)
        where += [col(Lead.created_at) >= start, col(Lead.created_at) < end]
    if filters.stage:
        where.append(stage_condition(filters.stage))
    if filters.q:
        pattern = f"%{_escaped(fold(filters.q))}%"
        where.append(
            sa.or_(
                *(
                    _lower(
                        engine,
                        connection,
                        sa.func.coalesce(Lead.fields[name].as_string(), ""),
                    ).like(pattern, escape="\\")
                    for name in SEARCHED
                )
            )
        )
    return where


@dataclass(frozen=True)
class Row:
    """A lead as the inbox lists it."""

    id: int
    kind: str
    status: Shown
    spam_reason: str | None
    name: str
    email: str
    phone: str
    source: dict[str, str]
    language: str
    created_at: dt.datetime
    stage: Stage = Stage.NEW
    fields: Mapping[str, Any] | None = None  # Every field (the CSV export's columns).

    @property
    def cursor(self) -> InboxCursor:
        return InboxCursor(self.created_at, self.id)


def _text(fields: Mapping[str, Any], name: str) -> str:
    value = fields.get(name)
    return value if isinstance(value, str) else ""


def _row(lead: Any) -> Row:
    fields = lead.fields if isinstance(lead.fields, Mapping) else {}
    created = lead.created_at
    created = created if created.tzinfo else created.replace(tzinfo=dt.UTC)
    return Row(
        id=lead.id,
        kind=lead.kind,
        status=SHOWN_OF.get(lead.status, Shown.WAITING),
        spam_reason=lead.spam_reason,
        name=_text(fields, "name"),
        email=_text(fields, "email"),
        phone=_text(fields, "phone"),
        source=dict(lead.source) if isinstance(lead.source, Mapping) else {},
        language=lead.language,
        created_at=created,
        stage=Stage(lead.stage) if lead.stage in set(Stage) else Stage.NEW,
        fields=fields,
    )


@dataclass(frozen=True)
class InboxPage:
    """One page of the inbox, and the cursors of the pages beside it (None: none)."""

    rows: list[Row]
    older: InboxCursor | None
    newer: InboxCursor | None


_COLUMNS = (
    Lead.id,
    Lead.kind,
    Lead.status,
    Lead.spam_reason,
    Lead.fields,
    Lead.source,
    Lead.language,
    Lead.created_at,
    DeskLeadStage.stage,
)


def search(
    engine: sa.Engine,
    filters: Filters,
    *,
    before: InboxCursor | None = None,
    after: InboxCursor | None = None,
    size: int = PAGE_SIZE,
) -> InboxPage:
    """The page of leads matching ``filters``: the newest, or those older than ``before``,
    or newer than ``after``; newest first."""
    key = sa.tuple_(col(Lead.created_at), col(Lead.id))

    def at(cursor: InboxCursor) -> Any:
        moment = sa.literal(cursor.created_at, Lead.__table__.c.created_at.type)
        return sa.tuple_(moment, sa.literal(cursor.lead_id))

    with engine.connect() as connection:
        _prepared(connection)
        query = (
            sa.select(*_COLUMNS)
            .select_from(Lead)
            .outerjoin(DeskLeadStage, col(DeskLeadStage.lead_id) == Lead.id)
            .where(*conditions(engine, connection, filters))
        )
        if after is not None:
            query = query.where(key > at(after))
            query = query.order_by(col(Lead.created_at).asc(), col(Lead.id).asc())
        else:
            if before is not None:
                query = query.where(key < at(before))
            query = query.order_by(col(Lead.created_at).desc(), col(Lead.id).desc())
        rows = [_row(lead) for lead in connection.execute(query.limit(size + 1))]
    more = len(rows) > size
    rows = rows[:size]
    if after is not None:
        rows.reverse()
        newer = rows[0].cursor if more and rows else None
        return InboxPage(rows, older=rows[-1].cursor if rows else None, newer=newer)
    older = rows[-1].cursor if more and rows else None
    newer = rows[0].cursor if before is not None and rows else None
    return InboxPage(rows, older=older, newer=newer)


def recent_months(today: dt.date, count: int = MONTHS_OFFERED) -> list[str]:
    """The months the month filter offers: this one and the ``count - 1`` before it."""
    index = today.year * 12 + today.month - 1
    return [f"{(index - n) // 12:04d}-{(index - n) % 12 + 1:02d}" for n in range(count)]


async def inbox_page(request: Request) -> Response:
    desk = desk_of(request)
    filters = Filters.from_query(request.query_params)
    before = InboxCursor.parse(request.query_params.get("before"))
    after = InboxCursor.parse(request.query_params.get("after"))
    page = await asyncio.to_thread(
        search, desk.engine(), filters, before=before, after=None if before else after
    )
    base = filters.params()
    today = desk.clock().astimezone(AGENCY_ZONE).date()
    return render(
        request,
        "inbox.html",
        current="inbox",
        filters=filters,
        page=page,
        kinds=list(LeadKind),
        statuses=list(Shown),
        stages=list(Stage),
        export_query=query_string(filters.params()),
        months=recent_months(today),
        older_url=page.older and paths.DESK + query_string(base | {"before": str(page.older)}),
        newer_url=page.newer and paths.DESK + query_string(base | {"after": str(page.newer)}),
    )


ROUTES = [Route(paths.DESK, inbox_page, methods=["GET"], name="inbox")]
