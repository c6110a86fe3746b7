"""systemd units: one backend process per port, and a daily backup of the leads.

``agency-backend@.service`` is a template: ``systemctl enable --now
agency-backend@8001 agency-backend@8002`` starts two backend processes on this
host. Each migrates the database first (one at a time: the migration takes a
lock), reads the site's ``.env`` and is restarted when it fails.
"""

from agency_site.deploy.topology import GENERATED, TRUSTED_PROXY_HOPS, Topology

BACKEND_UNIT = "agency-backend@.service"
BACKUP_SERVICE = "agency-leads-backup.service"
BACKUP_TIMER = "agency-leads-backup.timer"
# Workers per backend process; they share visitor state through Redis.
WORKERS_PER_BACKEND = 2


def backend_unit(topology: Topology) -> str:
    """The template unit of a backend process listening on port ``%i``."""
    venv = f"{topology.app_dir}/.venv/bin"
    return f"""{GENERATED}[Unit]
Description=agency_site backend (Reflex) on port %i
After=network-online.target postgresql.service redis-server.service
Wants=network-online.target

[Service]
Type=simple
User={topology.user}
WorkingDirectory={topology.app_dir}
EnvironmentFile={topology.app_dir}/.env
Environment=GRANIAN_WORKERS={WORKERS_PER_BACKEND}
Environment=REFLEX_TRUSTED_PROXY_HOPS={TRUSTED_PROXY_HOPS}
Environment=PYTHONUNBUFFERED=1
# Bring the leads table to the latest schema before serving (takes a lock: safe in parallel).
ExecStartPre={venv}/reflex db migrate
ExecStart={venv}/reflex run --env prod --backend-only --backend-host 127.0.0.1 --backend-port %i
Restart=on-failure
RestartSec=5
# Give open websockets and sends in flight time to finish on restart.
TimeoutStopSec=30
KillMode=mixed

[Install]
WantedBy=multi-user.target
"""


def backup_service(topology: Topology) -> str:
    """A one-shot copy of the leads database into /var/backups/agency_site."""
    return f"""{GENERATED}[Unit]
Description=Back up the agency_site leads database

[Service]
Type=oneshot
User={topology.user}
WorkingDirectory={topology.app_dir}
EnvironmentFile={topology.app_dir}/.env
ExecStart={topology.app_dir}/.venv/bin/python -m agency_site.deploy backup --out /var/backups/agency_site --keep {topology.backup_keep}
"""


def backup_timer() -> str:
    """Runs the backup every night."""
    return f"""{GENERATED}[Unit]
Description=Nightly backup of the agency_site leads database

[Timer]
OnCalendar=*-*-* 03:30:00
RandomizedDelaySec=15min
Persistent=true

[Install]
WantedBy=timers.target
"""
