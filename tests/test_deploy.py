"""The generated deploy files: valid for the real Caddy and nginx, same headers as the Python server."""

import datetime as dt
import http.server
import ipaddress
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import pytest
import sqlalchemy as sa

from agency_site.deploy import access_log, backup, caddy, nginx, release, systemd
from agency_site.deploy.release_checks import ReleaseError
from agency_site.deploy.topology import BACKEND_EXACT_PATHS, from_settings, page_paths
from agency_site.settings import get_settings, load_settings
from agency_site.web_base.security_headers import (
    HEADER_POLICY,
    asset_headers,
    document_headers,
    security_headers,
    with_page_policy,
)
from scripts import local_servers
from tests.conftest import unavailable
from tests.lead_store import add_lead_id

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def settings(monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("REFLEX_DEPLOY_URL", "https://www.agencia.example")
    monkeypatch.setenv("REFLEX_API_URL", "https://www.agencia.example")
    monkeypatch.setenv("DEPLOY_BACKENDS", "10.0.0.5:8001, 10.0.0.6:8001,10.0.0.6:8002")
    monkeypatch.setenv("DEPLOY_STATIC_ROOT", "/srv/agency_site/frontend")
    return load_settings()


def test_the_topology_comes_from_the_settings(settings) -> None:
    topology = from_settings(settings)
    assert topology.backends == ("10.0.0.5:8001", "10.0.0.6:8001", "10.0.0.6:8002")
    assert topology.host == "www.agencia.example" and topology.port == 443
    site = "https://www.agencia.example"
    assert dict(topology.asset_headers) == asset_headers(site)
    assert dict(topology.document_headers) == document_headers()
    assert "Strict-Transport-Security" in dict(topology.asset_headers)
    assert "/about" in topology.pages and "/" not in topology.pages


def test_both_servers_carry_every_security_header_of_the_python_server(settings) -> None:
    topology = from_settings(settings)
    for text in (caddy.caddyfile(topology), nginx.server_block(topology)):
        for name, value in security_headers(settings.site_url).items():
            assert f'"{value}"' in text and name in text


def test_every_backend_is_balanced_and_only_real_pages_redirect(settings) -> None:
    topology = from_settings(settings)
    caddyfile, server = caddy.caddyfile(topology), nginx.server_block(topology)
    assert "reverse_proxy 10.0.0.5:8001 10.0.0.6:8001 10.0.0.6:8002" in caddyfile
    for address in topology.backends:
        assert f"server {address} " in server
    for path in page_paths():
        assert f"redir {path}/ {path} 308" in caddyfile
        assert f"location = {path}/ {{\n        return 308 {path};" in server
    assert caddyfile.count("redir ") == server.count("return 308") == len(page_paths())


def test_a_public_site_gets_tls_and_a_local_one_plain_http(settings, monkeypatch) -> None:
    assert "https://www.agencia.example {" in caddy.caddyfile(from_settings(settings))
    assert "listen 443 ssl" in nginx.server_block(from_settings(settings))
    # A public site's access log: the site's own (rotated for 30 days by its logrotate
    # file), in the format that shortens addresses and hides booking tokens.
    assert "access_log /var/log/agency_site/access.log agency_site;" in nginx.server_block(
        from_settings(settings)
    )
    monkeypatch.setenv("REFLEX_DEPLOY_URL", "http://localhost:8080")
    local = from_settings(load_settings())
    assert "http://:8080 {" in caddy.caddyfile(local) and "auto_https off" in caddy.caddyfile(local)
    assert "listen 8080 " in nginx.server_block(local) and "ssl" not in nginx.server_block(local)


def test_nginx_queues_a_burst_of_visitors_instead_of_dropping_them(settings, monkeypatch) -> None:
    """At 40,000 readers in 20 s nginx's default accept queue (511) overflowed (158,476 SYNs
    dropped, retried seconds later) and its 4,096 connections per worker ran out ("reusing
    connections": 60,916 failed requests); docs/loadtest.md, "The knee". Every listen of the
    site's port asks for the kernel's longest queue, and the stack's workers have room."""
    monkeypatch.setenv("REFLEX_DEPLOY_URL", "http://localhost:8080")
    sites = {443: from_settings(settings), 8080: from_settings(load_settings())}
    for port, topology in sites.items():
        listens = [
            line.split()
            for line in nginx.server_block(topology).splitlines()
            if line.strip().startswith("listen") and str(port) in line
        ]
        assert listens and all(f"backlog={nginx.LISTEN_BACKLOG};" in words for words in listens), (
            listens
        )
    assert nginx.LISTEN_BACKLOG > 511  # nginx's own default on Linux
    main = nginx.standalone_config("/srv/nginx")
    assert f"worker_connections {nginx.WORKER_CONNECTIONS};" in main
    assert f"worker_rlimit_nofile {nginx.WORKER_OPEN_FILES};" in main
    # The 40,000-reader burst had 7,424 files open over two workers; a proxied request holds
    # two (the visitor's and the backend's).
    assert (
        nginx.WORKER_CONNECTIONS > 7424 and nginx.WORKER_OPEN_FILES >= 2 * nginx.WORKER_CONNECTIONS
    )


def test_the_backend_unit_serves_without_waiting_for_the_database_and_restarts(settings) -> None:
    unit = systemd.backend_unit(from_settings(settings))
    # A database outage must not keep a backend from starting: it migrates by itself.
    assert "db migrate" not in unit
    assert "ExecStart=/srv/agency_site/app/.venv/bin/reflex run --env prod --backend-only" in unit
    assert "EnvironmentFile=/srv/agency_site/app/.env" in unit
    assert "Restart=on-failure" in unit and "REFLEX_TRUSTED_PROXY_HOPS=1" in unit


def caddy_validate(caddyfile: str, folder: Path) -> subprocess.CompletedProcess:
    """``caddy validate`` of ``caddyfile`` written in ``folder`` (its home, too)."""
    path = folder / "Caddyfile"
    path.write_text(caddyfile)
    return subprocess.run(
        ["caddy", "validate", "--config", str(path), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env={"HOME": str(folder), "XDG_DATA_HOME": str(folder), "PATH": "/usr/bin:/bin"},
    )


def test_caddy_validates_the_caddyfile(settings, tmp_path) -> None:
    generated = caddy.caddyfile(from_settings(settings, static_root=str(tmp_path)))
    result = caddy_validate(generated, tmp_path)
    assert result.returncode == 0, result.stderr[-2000:]
    assert "Valid configuration" in result.stdout + result.stderr


@pytest.mark.parametrize("site_url", ["http://localhost:8080", "https://www.agencia.example"])
def test_nginx_accepts_the_configuration(site_url, monkeypatch, tmp_path) -> None:
    monkeypatch.setenv("REFLEX_DEPLOY_URL", site_url)
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
         "/CN=www.agencia.example", "-keyout", str(key), "-out", str(cert)],
        check=True,
        capture_output=True,
    )  # fmt: skip
    monkeypatch.setenv("DEPLOY_TLS_CERTIFICATE", str(cert))
    monkeypatch.setenv("DEPLOY_TLS_CERTIFICATE_KEY", str(key))
    monkeypatch.setenv("DEPLOY_ACCESS_LOG", str(tmp_path / "log" / "access.log"))
    (tmp_path / "log").mkdir()  # nginx opens its logs, in a folder it does not create.
    topology = from_settings(load_settings(), static_root=str(tmp_path))
    (tmp_path / "agency_site.conf").write_text(nginx.server_block(topology))
    (tmp_path / "nginx.conf").write_text(nginx.standalone_config(str(tmp_path)))
    result = subprocess.run(
        ["nginx", "-t", "-c", str(tmp_path / "nginx.conf"), "-p", str(tmp_path)],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stderr[-2000:]


def _leads_table(url: str, rows: int) -> None:
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("CREATE TABLE leads (id INTEGER PRIMARY KEY, email TEXT)"))
        for n in range(rows):
            connection.execute(
                sa.text("INSERT INTO leads (id, email) VALUES (:id, :email)"),
                {"id": n + 1, "email": f"v{n}@example.com"},
            )
    engine.dispose()


def test_a_sqlite_backup_is_a_consistent_private_copy(tmp_path) -> None:
    url = f"sqlite:///{tmp_path / 'site.db'}"
    _leads_table(url, 3)
    path = backup.backup(url, tmp_path / "backups")
    assert path.stat().st_mode & 0o777 == 0o600
    with sqlite3.connect(path) as copy:
        assert copy.execute("SELECT count(*) FROM leads").fetchone() == (3,)


def test_a_postgres_backup_restores_every_lead(postgres_url: str, tmp_path) -> None:
    _leads_table(postgres_url, 4)
    path = backup.backup(postgres_url, tmp_path / "backups")
    listing = subprocess.run(["pg_restore", "--list", str(path)], capture_output=True, text=True)
    assert listing.returncode == 0 and "TABLE DATA public leads" in listing.stdout
    assert "agency-local" not in " ".join(listing.args)  # The password never on a command line.


def test_restore_is_a_deploy_command_on_the_sites_database_and_erasure_log(
    tmp_path, monkeypatch, capsys
) -> None:
    """``python -m agency_site.deploy restore FILE [--yes]`` (nothing under leads imports
    deploy, so the leads command has none): REFLEX_DB_URL and LEADS_ERASURE_LOG."""
    from agency_site.deploy import __main__ as cli
    from agency_site.leads import cli as leads_cli
    from agency_site.leads import erasures, migrations
    from agency_site.leads.runtime import database_engine

    url, log = f"sqlite:///{tmp_path / 'site.db'}", tmp_path / "erasures.log"
    monkeypatch.setenv("REFLEX_DB_URL", url)
    monkeypatch.setenv("LEADS_ERASURE_LOG", str(log))
    monkeypatch.setenv("DEPLOY_DATA_DIR", str(tmp_path))  # The plugins' link secret.
    get_settings.cache_clear()  # Read before, by the imports.
    engine = database_engine()
    migrations.upgrade(engine)
    engine.dispose()
    copy = backup.backup(url, tmp_path / "backups")
    erasures.record(log, "ana@example.com")
    assert cli.main(["restore", str(copy), "--yes"]) == 0
    assert (
        f"Restored {copy.name}; the erasure log (1 address(es), {log})" in capsys.readouterr().out
    )
    assert cli.main(["restore", str(tmp_path / "none.dump"), "--yes"]) == 2
    with pytest.raises(SystemExit):
        leads_cli._parser().parse_args(["restore", str(copy)])


def test_old_backups_are_pruned(tmp_path) -> None:
    for day in range(1, 6):
        (tmp_path / f"leads-202611{day:02d}T033000Z.dump").write_text("x")
    # Kept 2 days: on the 6th at 03:00, the backups of the 4th and 5th stay.
    now = dt.datetime(2026, 11, 6, 3, 0, tzinfo=dt.UTC)
    removed = backup.prune(tmp_path, 2, now=now)
    assert len(removed) == 3
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "leads-20261104T033000Z.dump",
        "leads-20261105T033000Z.dump",
    ]


def test_render_refuses_an_export_whose_pages_carry_no_policy_and_sends_the_short_header(
    settings, tmp_path
) -> None:
    from agency_site.deploy.__main__ import render

    with pytest.raises(SystemExit, match=r"no pages in .*export the site first"):
        render(tmp_path / "out", str(tmp_path), None, None)
    (tmp_path / "about.html").write_text("<html><head></head><script>boot()</script></html>")
    with pytest.raises(SystemExit, match=r"1 page.* carry no Content-Security-Policy"):
        render(tmp_path / "out", str(tmp_path), None, None)
    page = with_page_policy((tmp_path / "about.html").read_text(), "https://x", "https://x")
    (tmp_path / "about.html").write_text(page)
    render(tmp_path / "out", str(tmp_path), None, None)
    for name in ("Caddyfile", "nginx-agency_site.conf"):
        text = (tmp_path / "out" / name).read_text()
        assert HEADER_POLICY in text and "sha256-" not in text, name


def _page(file: Path, title: str) -> None:
    """A page as the build writes it: with its own CSP in a <meta>."""
    html = f"<!doctype html><html><head><title>{title}</title></head></html>"
    file.write_text(with_page_policy(html, "http://localhost", "http://localhost"))


def _static_site(folder) -> None:
    """A tiny export: two pages, the not-found page, a bundle and the other static files."""
    folder.chmod(0o755)  # nginx's workers (nobody) read it.
    _page(folder / "index.html", "Inicio")
    _page(folder / "about.html", "Nosotros")
    _page(folder / "404.html", "No encontrada")
    (folder / "assets").mkdir(mode=0o755)
    (folder / "assets" / "entry-Ab12.js").write_text("console.log(1)")
    (folder / "assets" / "font-Ab12.woff2").write_bytes(b"wOF2")
    (folder / "robots.txt").write_text("User-agent: *")
    (folder / "sitemap.xml").write_text("<urlset/>")
    (folder / "manifest.webmanifest").write_text("{}")
    (folder / "favicon.ico").write_bytes(b"\0")
    (folder / "ca").mkdir(mode=0o755)
    _page(folder / "ca.html", "Inici")
    _page(folder / "ca" / "404.html", "No trobada")


DOCUMENTS = {"/": 200, "/about": 200, "/no-existe": 404, "/ca": 200, "/ca/no-existeix": 404}
ASSETS = (
    "/assets/entry-Ab12.js",
    "/assets/font-Ab12.woff2",
    "/robots.txt",
    "/sitemap.xml",
    "/manifest.webmanifest",
    "/favicon.ico",
)


def assert_header_sets(
    url: str, documents: dict, assets: dict, pages: dict[str, int], files: tuple[str, ...]
) -> None:
    """``pages`` carry both header sets; ``files`` (status 200) the asset set only."""
    for path, status in pages.items():
        response = httpx.get(url + path)
        assert response.status_code == status, path
        for name, value in (assets | documents).items():
            assert response.headers.get(name) == value, (path, name)
    for path in files:
        response = httpx.get(url + path)
        assert response.status_code == 200, path
        assert response.headers.get("content-type"), path
        for name, value in assets.items():
            assert response.headers.get(name) == value, (path, name)
        for name in documents:
            assert name not in response.headers, (path, name)


@pytest.fixture
def served_root():
    """A static root other users can read (nginx's workers run as nobody)."""
    folder = Path(tempfile.mkdtemp(prefix="agency-deploy-test-"))
    _static_site(folder)
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def _run_caddy(topology, folder: Path) -> subprocess.Popen:
    (folder / "Caddyfile").write_text(caddy.caddyfile(topology))
    return subprocess.Popen(
        ["caddy", "run", "--config", str(folder / "Caddyfile"), "--adapter", "caddyfile"],
        env={"HOME": str(folder), "XDG_DATA_HOME": str(folder), "PATH": "/usr/bin:/bin"},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _run_nginx(topology, folder: Path) -> subprocess.Popen:
    prefix = folder / "nginx"
    prefix.mkdir()
    (prefix / "agency_site.conf").write_text(nginx.server_block(topology))
    (prefix / "nginx.conf").write_text(nginx.standalone_config(str(prefix)))
    return subprocess.Popen(
        ["nginx", "-c", str(prefix / "nginx.conf"), "-p", str(prefix), "-g", "daemon off;"],
        start_new_session=True,
    )


@pytest.mark.parametrize("run_server", [_run_caddy, _run_nginx], ids=["caddy", "nginx"])
def test_the_proxy_sends_document_headers_on_documents_only(
    run_server, served_root, monkeypatch
) -> None:
    port = local_servers.free_port()
    monkeypatch.setenv("REFLEX_DEPLOY_URL", f"http://localhost:{port}")
    monkeypatch.setenv("DEPLOY_BACKENDS", f"127.0.0.1:{local_servers.free_port()}")
    monkeypatch.setenv("DEPLOY_ACCESS_LOG", str(served_root / "caddy" / "access.log"))
    topology = from_settings(load_settings(), static_root=str(served_root))
    process = run_server(topology, served_root)
    try:
        local_servers.wait_for_port(port)
        url = f"http://127.0.0.1:{port}"
        documents, assets = dict(topology.document_headers), dict(topology.asset_headers)
        assert_header_sets(url, documents, assets, DOCUMENTS, ASSETS)
        # Each language's not-found page for its unknown paths.
        assert "No trobada" in httpx.get(url + "/ca/no-existeix").text
        assert "No encontrada" in httpx.get(url + "/no-existe").text
        assert "immutable" in httpx.get(url + ASSETS[0]).headers["cache-control"]
        manifest = httpx.get(url + "/manifest.webmanifest").headers["content-type"]
        assert manifest.startswith("application/manifest+json")
    finally:
        local_servers.stop_pid(process.pid)


@pytest.fixture(autouse=True)
def _fresh_settings():
    """Each test's environment, not a cached earlier one (``get_settings`` is cached)."""
    get_settings.cache_clear()
    yield
    get_settings.cache_clear()


class _Recorder:
    """A release target on a temporary folder: real rendering and `caddy validate`, fake rest."""

    def __init__(self, folder: Path, monkeypatch, server: str = "caddy") -> None:
        monkeypatch.setenv("REFLEX_DEPLOY_URL", "http://localhost:8080")
        get_settings.cache_clear()
        self.calls: list[str] = []
        self.broken = False
        self.target = release.Target(
            static_root=folder / "www",
            conf_dir=folder / "conf",
            server=server,
            public_url="http://localhost:8080",
            reload=lambda: self.calls.append("reload"),
            migrate=lambda: self.calls.append("migrate"),
            backends=(),
            restart_backend=lambda address: self.calls.append(address),
            export=self.export,
            keep=3,
            smoke=self.smoke,
        )
        self.exports = 0

    def export(self, folder: Path) -> None:
        folder.mkdir()
        _static_site(folder)
        self.exports += 1
        (folder / "assets" / f"entry-{self.exports}.js").write_text("js")

    def smoke(self, folder: Path) -> None:
        self.calls.append(f"smoke {folder.name}")
        if self.broken:
            raise ReleaseError("page / did not hydrate")


def test_a_release_switches_atomically_keeps_bundles_and_rolls_back(tmp_path, monkeypatch):
    recorder = _Recorder(tmp_path, monkeypatch)
    target = recorder.target
    first = release.release(target)
    assert target.static_root.resolve() == first
    assert f"root * {first}" in (target.conf_dir / "Caddyfile").read_text()
    assert recorder.calls == ["reload", "migrate", f"smoke {first.name}"]
    second = release.release(target)
    assert release.current(target) == second
    # A tab opened on the first release still loads its bundle.
    assert (second / "assets" / "entry-1.js").is_file()
    # Bundles are carried once: a third release holds the second's, not the first's.
    third = release.release(target)
    assert (third / "assets" / "entry-2.js").is_file()
    assert not (third / "assets" / "entry-1.js").exists()
    release.rollback(target)

    recorder.broken = True
    with pytest.raises(ReleaseError, match=f"Switched back to release {second.name}"):
        release.release(target)
    assert release.current(target) == second
    assert release.releases(target) == [first, second, third]  # The broken one is gone.
    assert f"root * {second}" in (target.conf_dir / "Caddyfile").read_text()

    recorder.broken = False
    assert release.rollback(target) == first
    assert release.current(target) == first
    assert f"root * {first}" in (target.conf_dir / "Caddyfile").read_text()
    with pytest.raises(ReleaseError, match="no release before"):
        release.rollback(target)


@pytest.mark.parametrize(
    ("server", "module", "function"),
    [("caddy", caddy, "caddyfile"), ("nginx", nginx, "server_block")],
)
def test_an_invalid_configuration_switches_nothing(
    server, module, function, tmp_path, monkeypatch
) -> None:
    tmp_path.chmod(0o755)  # nginx -t reads the release as nobody.
    recorder = _Recorder(tmp_path, monkeypatch, server)
    first = release.release(recorder.target)
    monkeypatch.setattr(module, function, lambda topology: "not a configuration {")
    with pytest.raises(ReleaseError, match=f"{server} (validate|-t) failed"):
        release.release(recorder.target)
    assert release.current(recorder.target) == first
    assert release.releases(recorder.target) == [first]


def test_old_releases_are_pruned_but_never_the_live_one(tmp_path, monkeypatch) -> None:
    recorder = _Recorder(tmp_path, monkeypatch)
    made = [release.release(recorder.target) for _ in range(5)]
    assert release.releases(recorder.target) == made[-3:]


def test_an_answer_never_takes_a_backend_out_and_clients_are_bounded(settings) -> None:
    """Only connect errors and timeouts count against a backend; per-address limits (nginx),
    header and body timeouts (both)."""
    topology = from_settings(settings)
    server, caddyfile = nginx.server_block(topology), caddy.caddyfile(topology)
    assert "http_503" not in server and "http_502" not in server
    # /_event, the exact paths, /_site/, the token and health GETs and the booking links'.
    assert server.count("proxy_next_upstream error timeout;") == 1 + len(BACKEND_EXACT_PATHS) + 4
    # The token and health GETs have their own tighter zone (Caddy's build has none).
    for path in nginx.PUBLIC_GETS:
        block = server.split(f"location = {path} {{")[1].split("}")[0]
        assert "limit_req zone=agency_site_get burst=10 nodelay;" in block, path
    assert "zone=agency_site_get:10m rate=60r/m;" in server
    assert (
        "limit_conn_zone $binary_remote_addr" in server and "limit_conn agency_site_conn" in server
    )
    assert "limit_req zone=agency_site_req" in server
    assert "client_body_timeout 10s;" in server and "client_header_timeout 10s;" in server
    assert "\tunhealthy_status" not in caddyfile
    # Nor a slow answer: no active check, whose one slow /ping takes a backend out (Caddy 2.6).
    assert "health_uri" not in caddyfile and "health_timeout" not in caddyfile
    assert "read_body 10s" in caddyfile and "read_header 10s" in caddyfile


def test_the_production_release_runs_systemd_and_bakes_the_public_url(settings, monkeypatch):
    from agency_site.deploy import __main__ as cli

    commands: list[tuple[list[str], dict]] = []
    monkeypatch.setattr(release, "run", lambda command, what, **kw: commands.append((command, kw)))
    monkeypatch.setattr(release, "copy_export", lambda app_dir, folder: None)
    args = cli._parser().parse_args(["release", "--server", "nginx"])
    target = cli.production_target(args)
    assert target.static_root == Path("/srv/agency_site/frontend") and target.server == "nginx"
    target.reload()
    for address in target.backends:
        target.restart_backend(address)
    target.export(Path("/nonexistent"))
    assert [command for command, _ in commands[:4]] == [
        ["systemctl", "reload", "nginx"],
        ["systemctl", "restart", "agency-backend@8001"],
        ["systemctl", "restart", "agency-backend@8001"],
        ["systemctl", "restart", "agency-backend@8002"],
    ]
    export, options = commands[4]
    assert export[-3:] == ["export", "--frontend-only", "--no-zip"]
    assert options["env"]["REFLEX_DEPLOY_URL"] == "https://www.agencia.example"
    assert options["env"]["REFLEX_API_URL"] == "https://www.agencia.example"


def test_a_release_uses_the_hosts_web_server_nginx_by_default(tmp_path) -> None:
    """Without --server, the release validates and reloads the server prepare_host.py
    recorded for the host (a Caddy host keeps Caddy), else nginx; --server overrides."""
    from agency_site.deploy import __main__ as cli

    def server(*extra: str) -> str:
        args = cli._parser().parse_args(["release", "--conf-dir", str(tmp_path), *extra])
        return cli.web_server(args)

    assert server() == release.DEFAULT_SERVER == "nginx"
    (tmp_path / release.SERVER_FILE).write_text("caddy\n")
    assert server() == "caddy" and server("--server", "nginx") == "nginx"
    (tmp_path / release.SERVER_FILE).write_text("none\n")  # A backend-only host's.
    assert server() == "nginx"


class _Backend(http.server.BaseHTTPRequestHandler):
    """A backend answering every request with a page, and the weaker Referrer-Policy."""

    def do_GET(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Referrer-Policy", "strict-origin-when-cross-origin")
        self.end_headers()
        self.wfile.write(b"<!doctype html><title>Cita</title>")

    def log_message(self, *args) -> None:  # Quiet.
        pass


# What a visitor's request may carry that the access log must never keep: addresses in
# headers (a CDN's or a proxy's), other headers, identifiers in the query (ad click ids,
# a mailer's subscriber id, the socket's token) and in the Referer.
REVEALING_HEADERS = {
    "CF-Connecting-IP": "203.0.113.77",
    "True-Client-IP": "198.51.100.23",
    "X-Forwarded-For": "192.0.2.99, 203.0.113.78",
    "X-Real-IP": "198.51.100.24",
    "Forwarded": "for=198.51.100.25",
    "Accept-Language": "es-ES,ca;q=0.9",
    "X-Tracking-Id": "visitor-HEADER-77",
    "Cookie": "session=COOKIE-VALUE-1",
}
IDENTIFIERS = {
    "gclid": "GCLID-AAA111",
    "fbclid": "FBCLID-BBB222",
    "mc_eid": "MCEID-CCC333",
    "_hsenc": "HSENC-DDD444",
    "token": "SOCKET-TOKEN-EEE555",
    "t": "SECRET-booking-token-123",
}
CAMPAIGN = "utm_source=news&utm_medium=email&utm_campaign=otono"


def visit_revealing_everything(url: str, own_url: str) -> dict[str, str]:
    """The requests of a visitor who carries every identifier the log must drop; what each
    request's logged URI must be."""
    query = "&".join(f"{key}={value}" for key, value in IDENTIFIERS.items())
    agent = "Mozilla/5.0 (iPhone) Test"
    external = f"https://x.example/inbox/MSG-PATH-ID-9?{query}"
    headers = {**REVEALING_HEADERS, "User-Agent": agent, "Referer": external}
    expected = {}
    with httpx.Client(base_url=url, headers=headers) as client:
        answer = client.get(f"/about?{query}&{CAMPAIGN}&fbclid=again&utm_term=seo")
        assert answer.status_code == 200
        expected["/about"] = f"/about?{CAMPAIGN}&utm_term=seo"
        # A booking link (its own page's URL as the Referer) and the report link.
        own = {"Referer": f"{own_url}/_site/bookings/decline?{query}"}
        for path in ("/_site/bookings/cancel", "/_site/report/2026-11"):
            client.get(f"{path}?{query}", headers=own)
            expected[path] = path
        # The socket's polling transport, its token in the query.
        client.get(f"/_event/?EIO=4&transport=polling&{query}")
        expected["/_event/"] = "/_event/"
    return expected


def assert_log_keeps_only_the_policy(
    logs: str, expected_uris: dict[str, str], recent: str | None = None
) -> list[dict]:
    """Nothing of ``REVEALING_HEADERS`` and ``IDENTIFIERS`` anywhere in ``logs``: no full
    address, header (name or value) or identifier, only the kept fields; the lines of
    ``recent`` (the visit's, by default all) carry ``expected_uris``; those lines."""
    lowered = logs.lower()
    assert '"remote_port"' not in logs
    for name, value in REVEALING_HEADERS.items():
        assert f'"{name.lower()}"' not in lowered, name  # As a logged header's key.
        for part in value.replace(",", " ").replace("=", " ").replace(";", " ").split():
            if len(part) > 3:
                assert part.lower() not in lowered, (name, part)
    for key, value in IDENTIFIERS.items():
        assert value.lower() not in lowered, key
    assert "msg-path-id" not in lowered and "inbox" not in lowered  # The Referer's path.
    lines = [json.loads(line) for line in logs.splitlines()]
    visit = [json.loads(line) for line in (logs if recent is None else recent).splitlines()]
    by_path = {line["request"]["uri"].split("?")[0]: line for line in visit}
    for path, uri in expected_uris.items():
        assert by_path[path]["request"]["uri"] == uri, path
    for line in lines:
        # The visitor's full address nowhere (a local site's own Referer may name its host);
        # every line's address shortened (a stack's other tests visit from other loopback
        # addresses, 127.0.10.x and ::1, at the same time).
        written = json.dumps({**line, access_log.FIELD: ""})
        assert "127.0.0.1" not in written, written
        assert "headers" not in line["request"] and "resp_headers" not in line
        for field in ("remote_ip", "client_ip"):  # client_ip: Caddy >= 2.7.
            if field in line["request"]:
                assert shortened(line["request"][field]), (field, line["request"][field])
    for line in visit:
        assert line["request"]["remote_ip"] == "127.0.0.0"
        assert line["request"].get("client_ip", "127.0.0.0") == "127.0.0.0"
    return visit


def shortened(address: str) -> bool:
    """Whether ``address`` keeps only the log's first bits (IPv4 /24, IPv6 /48)."""
    parsed = ipaddress.ip_address(address)
    kept = access_log.IPV4_BITS if parsed.version == 4 else access_log.IPV6_BITS
    return int(parsed) & ((1 << (parsed.max_prefixlen - kept)) - 1) == 0


@pytest.mark.parametrize("run_server", [_run_caddy, _run_nginx], ids=["caddy", "nginx"])
def test_the_access_log_keeps_only_what_the_policy_says(
    run_server, served_root, monkeypatch
) -> None:
    """Every address masked, of the headers only the Referer (its origin, or its path on
    the site) and the User-Agent, of the URI its path and utm_* keys; the owner's report
    reads the result. And a booking link's URL is never sent as a Referer."""
    from agency_site.report.log_lines import parse

    port, backend_port = local_servers.free_port(), local_servers.free_port()
    monkeypatch.setenv("REFLEX_DEPLOY_URL", f"http://localhost:{port}")
    monkeypatch.setenv("DEPLOY_BACKENDS", f"127.0.0.1:{backend_port}")
    monkeypatch.setenv("DEPLOY_ACCESS_LOG", str(served_root / "caddy" / "access.log"))
    topology = from_settings(load_settings(), static_root=str(served_root))
    backend = http.server.ThreadingHTTPServer(("127.0.0.1", backend_port), _Backend)
    threading.Thread(target=backend.serve_forever, daemon=True).start()
    process = run_server(topology, served_root)
    try:
        local_servers.wait_for_port(port)
        url = f"http://127.0.0.1:{port}"
        for path in ("/_site/bookings/cancel", "/_site/bookings/calendar"):
            answer = httpx.get(f"{url}{path}?t=x")
            assert answer.headers.get_list("referrer-policy") == ["no-referrer"]
        other = httpx.get(url + "/_site/forms/contact")  # Other pages keep the site's policy.
        assert other.headers.get_list("referrer-policy") == ["strict-origin-when-cross-origin"]
        expected = visit_revealing_everything(url, f"http://localhost:{port}")
    finally:
        local_servers.stop_pid(process.pid)
        backend.shutdown()
    logs = "".join(path.read_text() for path in served_root.rglob("access.log"))
    lines = assert_log_keeps_only_the_policy(logs, expected)
    hits = {hit.path: hit for hit in map(parse, map(json.dumps, lines)) if hit}
    about = hits["/about"]
    assert about.referrer == "https://x.example"
    assert about.user_agent == "Mozilla/5.0 (iPhone) Test"
    assert about.query == f"{CAMPAIGN}&utm_term=seo" and about.status == 200
    # A page of the site as the Referer: its path, without its query.
    assert hits["/_site/bookings/cancel"].referrer == (
        f"http://localhost:{port}/_site/bookings/decline"
    )


@pytest.mark.parametrize("run_server", [_run_caddy, _run_nginx], ids=["caddy", "nginx"])
def test_a_bundle_is_served_by_its_name_and_only_a_missing_one_is_logged(
    run_server, served_root, monkeypatch
) -> None:
    """The hashed bundles take their own short way (docs/loadtest.md, "Where Caddy's time
    goes"): no page lookup (``/assets/x`` is never ``x.html``) and no access log line for
    a bundle served (a page view's files are no visit), but a missing one is logged as any
    404. Pages keep their lines and a page's trailing slash still redirects."""
    port = local_servers.free_port()
    monkeypatch.setenv("REFLEX_DEPLOY_URL", f"http://localhost:{port}")
    monkeypatch.setenv("DEPLOY_BACKENDS", f"127.0.0.1:{local_servers.free_port()}")
    monkeypatch.setenv("DEPLOY_ACCESS_LOG", str(served_root / "caddy" / "access.log"))
    (served_root / "assets" / "stray.html").write_text("<!doctype html><title>x</title>")
    (served_root / "about").mkdir(mode=0o755)  # A page's folder, as the export has them.
    _page(served_root / "about" / "index.html", "Nosotros")
    topology = from_settings(load_settings(), static_root=str(served_root))
    process = run_server(topology, served_root)
    try:
        local_servers.wait_for_port(port)
        with httpx.Client(base_url=f"http://127.0.0.1:{port}") as client:
            assert client.get(ASSETS[0]).status_code == 200
            assert client.get("/assets/stray").status_code == 404
            assert client.get("/assets/missing-Zz99.js").status_code == 404
            for slash, page in (("/about/", "/about"), ("/ca/", "/ca")):
                answer = client.get(slash)
                assert (answer.status_code, answer.headers["location"]) == (308, page)
            assert client.get("/about").status_code == 200
    finally:
        local_servers.stop_pid(process.pid)
    logs = "".join(path.read_text() for path in served_root.rglob("access.log"))
    logged = [json.loads(line)["request"]["uri"] for line in logs.splitlines()]
    assert ASSETS[0] not in logged
    for uri in ("/assets/stray", "/assets/missing-Zz99.js", "/about/", "/about"):
        assert uri in logged, (uri, logged)


def self_signed(folder: Path, host: str) -> tuple[Path, Path]:
    """A certificate for ``host`` and its key, made here (Let's Encrypt is not reachable)."""
    cert, key = folder / "fullchain.pem", folder / "privkey.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "2", "-subj", f"/CN={host}", "-addext", f"subjectAltName=DNS:{host}",
         "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True,
    )  # fmt: skip
    return cert, key


@pytest.fixture
def https_site(served_root, monkeypatch):
    """nginx serving ``served_root`` as https://www.agencia.example from the rendered files,
    with a self-signed certificate at the path certbot would write, on free ports."""
    host = "www.agencia.example"
    live = served_root / "letsencrypt" / "live" / host
    live.mkdir(parents=True)
    cert, key = self_signed(live, host)
    webroot = served_root / "acme"
    (webroot / nginx.ACME_CHALLENGE.strip("/")).mkdir(parents=True)
    for folder in (webroot, *webroot.rglob("*")):
        folder.chmod(0o755)  # nginx's workers (nobody) read the challenges.
    monkeypatch.setenv("REFLEX_DEPLOY_URL", f"https://{host}")
    monkeypatch.setenv("DEPLOY_BACKENDS", f"127.0.0.1:{local_servers.free_port()}")
    monkeypatch.setenv("DEPLOY_ACCESS_LOG", str(served_root / "log" / "access.log"))
    (served_root / "log").mkdir()
    monkeypatch.setenv("DEPLOY_TLS_CERTIFICATE", str(cert))
    monkeypatch.setenv("DEPLOY_TLS_CERTIFICATE_KEY", str(key))
    https_port, http_port = local_servers.free_port(), local_servers.free_port()
    topology = from_settings(
        load_settings(), static_root=str(served_root), listen_port=https_port,
        http_port=http_port, acme_webroot=str(webroot),
    )  # fmt: skip
    prefix = served_root / "nginx"
    prefix.mkdir()
    (prefix / "agency_site.conf").write_text(nginx.server_block(topology))
    (prefix / "nginx.conf").write_text(nginx.standalone_config(str(prefix)))
    checked = subprocess.run(
        ["nginx", "-t", "-c", str(prefix / "nginx.conf"), "-p", str(prefix)],
        capture_output=True, text=True,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stderr
    process = subprocess.Popen(
        ["nginx", "-c", str(prefix / "nginx.conf"), "-p", str(prefix), "-g", "daemon off;"],
        start_new_session=True,
    )
    try:
        local_servers.wait_for_port(https_port)
        local_servers.wait_for_port(http_port)
        yield topology, webroot
    finally:
        local_servers.stop_pid(process.pid)


@pytest.mark.filterwarnings("ignore:ssl.TLSVersion.TLSv1_1 is deprecated:DeprecationWarning")
def test_nginx_serves_an_https_site_with_a_certbot_certificate(https_site, served_root) -> None:
    """The rendered https site: TLS 1.2+ with the certificate at certbot's path, HSTS and
    the document headers on its pages; on the plain port the ACME challenges are served
    (never redirected) and everything else is sent to https; both ports log privately."""
    import ssl

    topology, webroot = https_site
    host, base = topology.host, f"https://127.0.0.1:{topology.port}"
    with httpx.Client(base_url=base, verify=False, headers={"Host": host}) as client:
        page = client.get("/about?gclid=SECRET-CLICK")
        assert page.status_code == 200 and "Nosotros" in page.text
        for name, value in topology.asset_headers + topology.document_headers:
            assert page.headers.get(name) == value, name
        assert page.headers["strict-transport-security"] == "max-age=31536000; includeSubDomains"
        assert page.http_version in ("HTTP/1.1", "HTTP/2")
    # An old protocol is refused; TLS 1.2 is accepted.
    for version, accepted in ((ssl.TLSVersion.TLSv1_1, False), (ssl.TLSVersion.TLSv1_2, True)):
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname, context.verify_mode = False, ssl.CERT_NONE
        context.minimum_version = context.maximum_version = version
        context.set_ciphers("ALL:@SECLEVEL=0")
        try:
            with (
                socket.create_connection(("127.0.0.1", topology.port), 5) as raw,
                context.wrap_socket(raw, server_hostname=host) as tls,
            ):
                assert accepted, tls.version()
        except ssl.SSLError:
            assert not accepted, version
    token = "tok-3Fz_9"
    (webroot / nginx.ACME_CHALLENGE.strip("/") / token).write_text("tok-3Fz_9.key-auth")
    with httpx.Client(base_url=f"http://127.0.0.1:{topology.http_port}") as plain:
        challenge = plain.get(f"{nginx.ACME_CHALLENGE}{token}", headers={"Host": host})
        assert (challenge.status_code, challenge.text) == (200, "tok-3Fz_9.key-auth")
        moved = plain.get("/about?utm_source=x&t=SECRET-TOKEN", headers={"Host": host})
        assert moved.status_code == 301
        assert moved.headers["location"] == (
            f"https://{host}:{topology.port}/about?utm_source=x&t=SECRET-TOKEN"
        )
    log = (served_root / "log" / "access.log").read_text()
    assert "SECRET" not in log and "127.0.0.1" not in log
    uris = [json.loads(line)["request"]["uri"] for line in log.splitlines()]
    assert "/about" in uris and "/about?utm_source=x" in uris


def test_certbots_nginx_plugin_renews_through_the_rendered_site(
    https_site, served_root, tmp_path
) -> None:
    """What Debian's certbot.timer runs (``certbot renew``, the nginx plugin that issued the
    certificate): the plugin reads the rendered configuration, answers Let's Encrypt's
    challenge on the site's plain port through the running nginx, then puts the files back
    as they were. Offline: the challenge is fetched here instead of by Let's Encrypt."""
    if not shutil.which("certbot"):
        unavailable("certbot is not installed (apt-get install python3-certbot-nginx)")
    topology, _ = https_site
    prefix = served_root / "nginx"
    rendered = {path: path.read_text() for path in prefix.glob("*.conf")}
    rehearsal = subprocess.Popen(
        ["/usr/bin/python3", str(ROOT / "tests" / "certbot_nginx_rehearsal.py"),
         str(prefix / "nginx.conf"), topology.host, str(topology.http_port),
         str(topology.port), str(tmp_path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        started = rehearsal.stdout.readline().split()
        assert len(started) == 2, rehearsal.communicate(timeout=30)[1][-3000:]
        path, validation = started
        answer = httpx.get(
            f"http://127.0.0.1:{topology.http_port}{path}", headers={"Host": topology.host}
        )
        assert (answer.status_code, answer.text) == (200, validation)
        rehearsal.stdin.write("\n")
        rehearsal.stdin.flush()
        assert rehearsal.stdout.readline().strip() == "clean"
    finally:
        rehearsal.kill()
        errors = rehearsal.communicate()[1]
    assert rehearsal.returncode in (0, -9), errors
    assert {path: path.read_text() for path in prefix.glob("*.conf")} == rendered
    time.sleep(1)  # The plugin's reload.
    page = httpx.get(f"https://127.0.0.1:{topology.port}/about", verify=False)
    assert page.status_code == 200


@pytest.mark.parametrize("kind", ["sqlite", "postgresql"])
def test_a_restore_never_hands_out_an_id_issued_before_it(kind, request, tmp_path) -> None:
    """Leads made after the backup are lost by the restore, but not their ids: the links
    mailed for them name those ids."""
    from agency_site.forms.kinds import LeadKind
    from agency_site.leads import migrations
    from agency_site.leads.store import LeadStore

    if kind == "sqlite":
        url = f"sqlite:///{tmp_path / 'site.db'}"
    else:
        url = request.getfixturevalue("postgres_url")
    engine = sa.create_engine(url)
    migrations.upgrade(engine)
    store = LeadStore(engine)

    def add(n: int) -> int:
        fields = {"email": f"v{n}@example.com"}
        return add_lead_id(store, LeadKind.HERO, fields, claim_token=None, lease=dt.timedelta(1))

    add(1)
    path = backup.backup(url, tmp_path / "backups")
    issued = [add(2), add(3)]  # After the backup: lost by the restore.
    store.erase_email("v3@example.com")
    engine.dispose()
    backup.restore(url, path)
    assert [lead.fields["email"] for lead in store.all()] == ["v1@example.com"]
    assert add(4) > max(issued)
    engine.dispose()


def test_the_access_log_is_rotated_daily_and_deleted_after_30_days(settings) -> None:
    topology = from_settings(settings)
    rotation = access_log.logrotate(topology).splitlines()
    assert f"{topology.access_log} {{" in rotation
    for line in ("daily", "rotate 30", "maxage 30", "delaycompress", "copytruncate"):
        assert f"    {line}" in rotation
    assert "roll_keep_for 720h" in caddy.caddyfile(topology)  # Caddy's own roll, by size.


def test_two_releases_never_run_at_once(tmp_path, monkeypatch) -> None:
    """A release (or rollback) beside another one is refused before it does anything."""
    recorder = _Recorder(tmp_path, monkeypatch)
    first = release.release(recorder.target)
    with release.one_at_a_time(recorder.target):  # Another release, running.
        for step in (release.release, release.rollback):
            with pytest.raises(ReleaseError, match="Another release or rollback"):
                step(recorder.target)
    assert release.releases(recorder.target) == [first] and recorder.exports == 1
    assert release.current(recorder.target) == first
    second = release.release(recorder.target)  # Once it has ended: released as always.
    assert release.current(recorder.target) == second


def test_the_release_migrates_under_the_backends_migration_lock(tmp_path) -> None:
    """The release's migration is the backends' locked upgrade: beside a migration that
    holds the lock (a backend starting), it waits for it instead of running alongside."""
    from agency_site.deploy.__main__ import migrate_command
    from agency_site.leads import migrations

    url = f"sqlite:///{tmp_path / 'site.db'}"
    engine = sa.create_engine(url)
    env = {**os.environ, "REFLEX_DB_URL": url, "LEADS_SPOOL_DIR": str(tmp_path / "spool")}
    command = migrate_command(sys.executable)
    assert command[1:] == ["-m", "agency_site.deploy", "migrate"]
    with migrations._exclusive(engine):
        running = subprocess.Popen(command, env=env, cwd=ROOT)
        time.sleep(3)
        assert running.poll() is None  # Waits for the lock.
    assert running.wait(timeout=120) == 0
    with engine.connect() as connection:
        assert "leads" in sa.inspect(connection).get_table_names()
    engine.dispose()
