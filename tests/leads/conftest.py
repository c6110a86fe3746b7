"""Fixtures of the leads tests: a migrated SQLite file or PostgreSQL database, EmailJS faked over HTTP.

PostgreSQL is real: a throwaway cluster (initdb + pg_ctl from Debian's ``postgresql``
package) started once per session on a free loopback port, one fresh database per test.
"""

import datetime as dt
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
import sqlalchemy as sa
from pytest_httpserver import HTTPServer

from agency_site.emailjs import SEND_PATH, EmailJSClient
from agency_site.leads import migrations
from agency_site.leads.delivery import Delivery, RetryPolicy
from agency_site.leads.kinds import LeadKind
from agency_site.leads.models import Lead
from agency_site.leads.store import LeadStore

AGENCY_INBOX = "hola@agencia.test"
TEMPLATES = {LeadKind.CONTACT: "template_contact", LeadKind.BOOKING: "template_booking"}
# Failed leads are due again at once, so a test can retry without waiting.
IMMEDIATE = RetryPolicy(base=dt.timedelta(0), pause_s=0)
LEASE = dt.timedelta(minutes=2)
BOOKING_FIELDS = {
    "name": "Ana García",
    "email": "ana@example.com",
    "phone": "+34 600 12 34 56",
    "date": "2026-03-10",
    "time": "10:00",
    "message": "",
}


def expected_payload(template_id: str, params: dict[str, str]) -> dict:
    """The exact JSON EmailJS must receive from ``make_client``'s account."""
    return {
        "lib_version": "4.4.1",
        "user_id": "public_test",
        "service_id": "service_test",
        "template_id": template_id,
        "template_params": params,
        "accessToken": "private_test",
    }


def new_engine(url: str) -> sa.Engine:
    """An engine like one backend worker's (several may share the file)."""
    return sa.create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})


def aged(store: LeadStore, lead_id: int, days: float) -> None:
    """Make a lead look ``days`` old (received that long ago)."""
    moment = dt.datetime.now(dt.UTC) - dt.timedelta(days=days)
    with store.engine.begin() as connection:
        connection.execute(sa.update(Lead).where(Lead.id == lead_id).values(created_at=moment))


@pytest.fixture
def db_url(tmp_path) -> str:
    """A fresh, migrated SQLite file."""
    url = f"sqlite:///{tmp_path / 'leads.db'}"
    engine = new_engine(url)
    migrations.upgrade(engine)
    engine.dispose()
    return url


@pytest.fixture
def store(db_url: str):
    engine = new_engine(db_url)
    yield LeadStore(engine)
    engine.dispose()


def _postgres_bin() -> Path | None:
    """The folder of initdb and pg_ctl (Debian's layout first, then PATH)."""
    for folder in sorted(glob.glob("/usr/lib/postgresql/*/bin"), reverse=True):
        if Path(folder, "initdb").exists() and Path(folder, "pg_ctl").exists():
            return Path(folder)
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb and shutil.which("pg_ctl") else None


def _loopback_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """A throwaway PostgreSQL cluster on 127.0.0.1; its base URL (database appended by tests)."""
    bin_dir = _postgres_bin()
    if bin_dir is None:
        pytest.skip(
            "PostgreSQL server binaries (initdb, pg_ctl) not found: install Debian's "
            "`postgresql` package (apt-get install postgresql) to run the Postgres tests"
        )
    base = Path(tempfile.mkdtemp(prefix="agency-leads-pg-"))
    as_user: list[str] = []
    if os.geteuid() == 0:  # initdb refuses to run as root: run the cluster as postgres.
        try:
            shutil.chown(base, "postgres")
        except LookupError:
            pytest.skip("running as root without a `postgres` user to run PostgreSQL as")
        as_user = ["runuser", "-u", "postgres", "--"]
    data, port = base / "data", _loopback_port()
    initdb = [bin_dir / "initdb", "-D", data, "-U", "postgres", "--auth=trust", "--no-sync"]
    subprocess.run(
        [*as_user, *initdb, "-E", "UTF8"],
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c fsync=off"
    pg_ctl = [bin_dir / "pg_ctl", "-D", data, "-w"]
    subprocess.run(
        [*as_user, *pg_ctl, "-l", base / "server.log", "-o", options, "start"],
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(
            [*as_user, *pg_ctl, "-m", "immediate", "stop"],
            capture_output=True,
        )
        shutil.rmtree(base, ignore_errors=True)


def postgres_database(server_url: str) -> str:
    """A new, empty database on the throwaway cluster; its URL."""
    name = f"leads_{uuid.uuid4().hex[:12]}"
    admin = sa.create_engine(f"{server_url}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.exec_driver_sql(f"CREATE DATABASE {name}")
    admin.dispose()
    return f"{server_url}/{name}"


@pytest.fixture(params=["sqlite", "postgres"])
def any_store(request: pytest.FixtureRequest, tmp_path) -> Iterator[LeadStore]:
    """A migrated store on SQLite, then on a real PostgreSQL."""
    if request.param == "sqlite":
        engine = new_engine(f"sqlite:///{tmp_path / 'leads.db'}")
    else:
        engine = sa.create_engine(postgres_database(request.getfixturevalue("postgres_server")))
    migrations.upgrade(engine)
    yield LeadStore(engine)
    engine.dispose()


def make_client(server: HTTPServer, private_key: str = "private_test") -> EmailJSClient:
    """A client of the fake EmailJS."""
    return EmailJSClient(
        api_base=server.url_for("").rstrip("/"),
        service_id="service_test",
        public_key="public_test",
        private_key=private_key,
        timeout_s=2,
    )


def make_delivery(
    store: LeadStore,
    client: EmailJSClient | None,
    policy: RetryPolicy = IMMEDIATE,
    config: str = "config-a",
) -> Delivery:
    return Delivery(store, client, TEMPLATES, AGENCY_INBOX, config, policy)


@pytest.fixture
def emailjs(httpserver: HTTPServer) -> HTTPServer:
    """The fake EmailJS (a real local HTTP server), cleared after each test."""
    return httpserver


def accept_all(server: HTTPServer) -> None:
    """Make the fake accept every send from now on."""
    server.clear_all_handlers()
    server.expect_request(SEND_PATH, method="POST").respond_with_data("OK")


def refuse_all(server: HTTPServer, status: int, text: str = "Error") -> None:
    """Make the fake refuse every send from now on."""
    server.clear_all_handlers()
    server.expect_request(SEND_PATH, method="POST").respond_with_data(text, status=status)


def sent_payloads(server: HTTPServer) -> list[dict]:
    """JSON bodies of every send the fake received."""
    return [request.get_json() for request, _ in server.log if request.path == SEND_PATH]
