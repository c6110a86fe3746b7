"""``python -m agency_site.deploy render|backup``: the deploy files from the settings, and backups."""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from agency_site.deploy import backup as backups
from agency_site.deploy import caddy, nginx, systemd
from agency_site.deploy.topology import from_settings
from agency_site.settings import get_settings


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m agency_site.deploy",
        description="Write the web server and systemd files from the site's settings; back up leads.",
    )
    commands = parser.add_subparsers(dest="command", required=True)
    render = commands.add_parser("render", help="write Caddyfile, nginx site and systemd units")
    render.add_argument("--out", required=True, type=Path, help="folder to write them into")
    render.add_argument("--static-root", help="the exported site (default: DEPLOY_STATIC_ROOT)")
    render.add_argument("--listen-port", type=int, help="port to listen on (default: the URL's)")
    render.add_argument(
        "--nginx-prefix",
        type=Path,
        help="also write a standalone nginx.conf running in this folder",
    )
    backup = commands.add_parser("backup", help="copy the leads database (REFLEX_DB_URL)")
    backup.add_argument("--out", required=True, type=Path, help="folder of the backups")
    backup.add_argument(
        "--keep",
        type=int,
        default=get_settings().deploy.backup_keep,
        help="days a backup is kept; older ones are deleted even when this backup fails "
        "(default: DEPLOY_BACKUP_KEEP)",
    )
    return parser


def render(
    out: Path, static_root: str | None, listen_port: int | None, prefix: Path | None
) -> None:
    """Write every generated file into ``out``."""
    topology = from_settings(get_settings(), static_root=static_root, listen_port=listen_port)
    if not topology.has_script_hashes:
        raise SystemExit(
            f"No csp-script-hashes.json in {topology.static_root}: export the site first and "
            "point --static-root (or DEPLOY_STATIC_ROOT) at the unpacked frontend.zip. The "
            "Content-Security-Policy must list its inline scripts, or no page would start."
        )
    out.mkdir(parents=True, exist_ok=True)
    files = {
        "Caddyfile": caddy.caddyfile(topology),
        "nginx-agency_site.conf": nginx.server_block(topology),
        systemd.BACKEND_UNIT: systemd.backend_unit(topology),
        systemd.BACKUP_SERVICE: systemd.backup_service(topology),
        systemd.BACKUP_TIMER: systemd.backup_timer(),
    }
    if prefix is not None:
        prefix = prefix.resolve()
        prefix.mkdir(parents=True, exist_ok=True)
        (prefix / "agency_site.conf").write_text(files["nginx-agency_site.conf"])
        files["nginx.conf"] = nginx.standalone_config(topology, str(prefix))
    for name, text in files.items():
        (out / name).write_text(text)
        print(out / name)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point."""
    args = _parser().parse_args(sys.argv[1:] if argv is None else argv)
    if args.command == "render":
        render(args.out, args.static_root, args.listen_port, args.nginx_prefix)
        return 0
    settings = get_settings()
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
