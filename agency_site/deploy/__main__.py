"""``python -m agency_site.deploy render|release|migrate|backup|restore``: deploy files,
releases, the leads database's migration (under the backends' lock), backups and putting
one back."""

import argparse
import os
import pwd
import shlex
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

from agency_site.deploy import backup as backups
from agency_site.deploy import nginx
from agency_site.deploy import release as releases
from agency_site.deploy import static_host as static_host_files
from agency_site.deploy.release import DEFAULT_SERVER, SERVER_FILE, SERVERS
from agency_site.deploy.release_checks import ReleaseError
from agency_site.settings import ROOT, get_settings

if TYPE_CHECKING:
    from agency_site.leads.store import LeadStore


def _render_command(commands: argparse._SubParsersAction) -> None:
    render = commands.add_parser("render", help="write Caddyfile, nginx site and systemd units")
    render.add_argument("--out", required=True, type=Path, help="folder to write them into")
    render.add_argument("--static-root", help="the exported site (default: DEPLOY_STATIC_ROOT)")
    render.add_argument("--listen-port", type=int, help="port to listen on (default: the URL's)")
    render.add_argument(
        "--nginx-prefix",
        type=Path,
        help="also write a standalone nginx.conf running in this folder",
    )


def _release_command(commands: argparse._SubParsersAction) -> None:
    release = commands.add_parser(
        "release",
        help="export, render, validate, switch, reload, migrate, restart, check (docs/deploy.md)",
    )
    release.add_argument("--rollback", action="store_true", help="return to the previous release")
    release.add_argument(
        "--server",
        choices=SERVERS,
        help=f"default: the one scripts/prepare_host.py set up ({SERVER_FILE} in --conf-dir), "
        f"else {DEFAULT_SERVER}",
    )
    release.add_argument(
        "--conf-dir",
        type=Path,
        default=Path("/etc/agency_site"),
        help="where the rendered files go; the web server includes its file from there",
    )
    release.add_argument(
        "--reload-command", help="default: systemctl reload caddy (or nginx)", default=None
    )
    release.add_argument(
        "--restart-command",
        default="systemctl restart agency-backend@{port}",
        help="restarts one backend; {host} and {port} are replaced (DEPLOY_BACKENDS)",
    )
    release.add_argument(
        "--units-dir", type=Path, help="also install the systemd units there (daemon-reload)"
    )
    release.add_argument("--keep", type=int, default=5, help="releases kept (default 5)")
    release.add_argument(
        "--browser",
        choices=("auto", "yes", "no"),
        default="auto",
        help="check hydration in Chromium (auto: when Playwright and Chromium are installed)",
    )
    release.add_argument("--public-url", help="checked through the web server (default: the site)")


def _database_commands(commands: argparse._SubParsersAction) -> None:
    """``backup``, ``restore`` and ``migrate``: the leads database."""
    backup = commands.add_parser("backup", help="copy the leads database (REFLEX_DB_URL)")
    backup.add_argument("--out", required=True, type=Path, help="folder of the backups")
    backup.add_argument(
        "--keep",
        type=int,
        default=get_settings().deploy.backup_keep,
        help="days a backup is kept; older ones are deleted even when this backup fails "
        "(default: DEPLOY_BACKUP_KEEP)",
    )
    restore = commands.add_parser(
        "restore",
        help="put a backup back (backends stopped), then re-apply the erasure log",
    )
    restore.add_argument("backup", type=Path, help="a leads-*.sqlite3 or leads-*.dump file")
    restore.add_argument("--yes", action="store_true", help="do not ask for confirmation")
    commands.add_parser(
        "migrate",
        help="migrate the leads database (REFLEX_DB_URL) under the backends' migration lock",
    )


def _static_host_command(commands: argparse._SubParsersAction) -> None:
    host = commands.add_parser(
        "static-host",
        help="make an unpacked frontend.zip ready for a static host (docs/deploy.md)",
    )
    host.add_argument("host", choices=("cloudflare", "netlify"))
    host.add_argument("folder", type=Path, help="the unpacked frontend.zip")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agency_site.deploy",
        description="Write the web server and systemd files from the site's settings; back up and "
        "restore leads.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for add in (_render_command, _release_command, _database_commands, _static_host_command):
        add(commands)
    return parser


def static_host(host: str, folder: Path) -> int:
    """Check an export for a static host; Netlify's ``_redirects`` gets each language's
    not-found page (Cloudflare Pages finds the nearest ``404.html`` itself)."""
    redirects = folder / static_host_files.REDIRECTS_FILE
    if not (folder / static_host_files.HEADERS_FILE).is_file() or not redirects.is_file():
        print(f"{folder} is not an export of this site: no _headers or _redirects", file=sys.stderr)
        return 2
    if problem := releases.export_problem(folder):
        print(problem, file=sys.stderr)
        return 2
    pages = static_host_files.build_pages(folder)
    if host == "netlify":
        redirects.write_text(static_host_files.netlify_redirects(pages))
    print(f"{folder}: {len(pages)} pages ready for {host} (_headers, _redirects)")
    return 0


def render(
    out: Path, static_root: str | None, listen_port: int | None, prefix: Path | None
) -> None:
    """Write every generated file into ``out``."""
    root = Path(static_root or get_settings().deploy.static_root)
    target = releases.Target(
        static_root=root,
        conf_dir=out,
        server="caddy",
        public_url=get_settings().site_url,
        reload=lambda: None,
        migrate=lambda: None,
        backends=(),
        restart_backend=lambda _: None,
        export=lambda _: None,
        listen_port=listen_port,
    )
    try:
        files = releases.rendered_files(target, root)
    except ReleaseError as error:
        raise SystemExit(
            f"{error}: export the site first and point --static-root (or "
            "DEPLOY_STATIC_ROOT) at the unpacked frontend.zip. Each page carries its own "
            "Content-Security-Policy; the web server sends only the short header."
        ) from None
    out.mkdir(parents=True, exist_ok=True)
    if prefix is not None:
        prefix = prefix.resolve()
        prefix.mkdir(parents=True, exist_ok=True)
        (prefix / "agency_site.conf").write_text(files["nginx-agency_site.conf"])
        files["nginx.conf"] = nginx.standalone_config(str(prefix))
    for name, text in files.items():
        (out / name).write_text(text)
        print(out / name)


def _as_site_user(command: list[str]) -> list[str]:
    """As root, run ``command`` as DEPLOY_USER (the files it writes stay the backends')."""
    user = get_settings().deploy.user
    if os.geteuid() != 0:
        return command
    try:
        pwd.getpwnam(user)
    except KeyError:
        return command
    return ["runuser", "-u", user, "--", *command]


def web_server(args: argparse.Namespace) -> str:
    """``--server``, else the one scripts/prepare_host.py recorded in the conf folder (a host
    prepared for Caddy keeps Caddy), else ``DEFAULT_SERVER``."""
    if args.server:
        return args.server
    recorded = args.conf_dir / SERVER_FILE
    name = recorded.read_text(encoding="utf-8").strip() if recorded.is_file() else ""
    return name if name in SERVERS else DEFAULT_SERVER


def production_target(args: argparse.Namespace) -> releases.Target:
    """The release steps of a server set up as docs/deploy.md says (systemd, nginx or Caddy)."""
    settings = get_settings()
    args.server = web_server(args)
    app_dir = Path(settings.deploy.app_dir if Path(settings.deploy.app_dir).is_dir() else ROOT)
    reload_command = args.reload_command or f"systemctl reload {args.server}"
    python = sys.executable

    def restart(address: str) -> None:
        host, _, port = address.rpartition(":")
        command = args.restart_command.format(host=host, port=port)
        releases.run(shlex.split(command), f"restarting backend {address}")

    def export(folder: Path) -> None:
        # The public URL baked in: the settings' own (from .env), whatever the shell has.
        env = {
            **os.environ,
            "REFLEX_DEPLOY_URL": settings.site_url,
            "REFLEX_API_URL": settings.reflex.api_url,
        }
        command = _as_site_user([python, "-m", "reflex", "export", "--frontend-only", "--no-zip"])
        releases.run(command, "reflex export", cwd=app_dir, env=env)
        releases.copy_export(app_dir, folder)

    return releases.Target(
        static_root=Path(settings.deploy.static_root),
        conf_dir=args.conf_dir,
        server=args.server,
        public_url=args.public_url or settings.site_url,
        reload=lambda: releases.run(shlex.split(reload_command), "reloading the web server"),
        # The backends' own migration, under the lock every migrating process takes (a
        # PostgreSQL advisory lock, a file lock beside a SQLite database): never two at once.
        migrate=lambda: releases.run(
            _as_site_user(migrate_command(python)), "migration", cwd=app_dir
        ),
        backends=settings.deploy.backend_addresses,
        restart_backend=restart,
        export=export,
        keep=args.keep,
        browser=args.browser,
        units_dir=args.units_dir,
    )


def migrate_command(python: str) -> list[str]:
    """The release's migration: this module's ``migrate``, the backends' locked upgrade."""
    return [python, "-m", "agency_site.deploy", "migrate"]


def run_release(target: releases.Target, rollback: bool) -> int:
    """Release (or roll back); a failure is one clear message and exit status 1."""
    try:
        (releases.rollback if rollback else releases.release)(target)
    except ReleaseError as error:
        print(f"Release failed: {error}", file=sys.stderr)
        return 1
    return 0


def _confirm(question: str, out: TextIO, ask: Callable[[], str]) -> bool:
    print(f"{question} Type 'yes' to confirm: ", end="", file=out)
    out.flush()
    return ask().strip().lower() in ("yes", "y", "si", "sí", "s")


def restore_leads(
    store: "LeadStore",
    backup: Path,
    yes: bool,
    erasure_log: Path,
    out: TextIO,
    ask: Callable[[], str] | None = None,
) -> int:
    """Put ``backup`` back into the store's database, migrate it, then re-apply the erasure
    log (``leads erase``): a person erased after the backup was taken stays erased, and
    what they sent after their erasure stays too."""
    from agency_site.leads import erasures, migrations

    if not backup.is_file():
        print(f"No backup file {backup}.", file=out)
        return 2
    url = store.engine.url.render_as_string(hide_password=False)
    if not yes and not _confirm(
        f"Replace every lead in the database with {backup.name}? Stop the backends first.",
        out,
        ask or sys.stdin.readline,
    ):
        print("Nothing restored.", file=out)
        return 1
    store.engine.dispose()
    backups.restore(url, backup)
    migrations.upgrade(store.engine)
    logged = erasures.erased_at(erasure_log)
    deleted = store.erase_digests(logged)
    print(
        f"Restored {backup.name}; the erasure log ({len(logged)} address(es), "
        f"{erasure_log}) deleted {deleted} lead(s) again.",
        file=out,
    )
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "render":
        render(args.out, args.static_root, args.listen_port, args.nginx_prefix)
        return 0
    if args.command == "release":
        return run_release(production_target(args), args.rollback)
    if args.command == "static-host":
        return static_host(args.host, args.folder)
    settings = get_settings()
    if args.command == "migrate":
        from agency_site.leads import migrations
        from agency_site.leads.runtime import database_engine

        migrations.upgrade(database_engine())
        return 0
    if args.command == "restore":
        from agency_site.leads import plugins
        from agency_site.leads.runtime import database_engine
        from agency_site.leads.store import LeadStore

        # With the plugins: what belonged to an erased lead goes with it (a booking).
        store = LeadStore(database_engine(), plugins.load(settings))
        return restore_leads(
            store, args.backup, args.yes, settings.leads.erasure_log_path, sys.stdout
        )
    result = backups.nightly(
        settings.reflex.db_url.get_secret_value(),
        args.out,
        args.keep,
        webhook_url=settings.leads.alert_webhook_url.get_secret_value(),
    )
    if result.error:
        print(f"Backup FAILED ({result.error}); {len(result.removed)} old backup(s) removed.")
        return 1
    print(f"Backup written to {result.path}; {len(result.removed)} older backup(s) removed.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
