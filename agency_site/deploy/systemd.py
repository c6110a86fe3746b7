"""systemd units: one backend process per port, a daily backup of the leads, and the
daily reading of the access log into the owner's report (``agency-report-ingest``: on the
web server's host, where the log is; it reads the log and writes the leads database).

``agency-backend@.service`` is a template: ``systemctl enable --now
agency-backend@8001 agency-backend@8002`` starts two backend processes on this
host. Each migrates the database first (one at a time: the migration takes a
lock), reads the site's ``.env``, listens on ``DEPLOY_BACKEND_HOST`` (127.0.0.1, or
a private address when the web server is on another host) and is restarted when it fails.

Every service is hardened (``HARDENING``; `systemd-analyze security` scores each 1.5 where it
scored 7.0): no privilege gain or capability, a private /tmp and /dev, no system call
outside ``@system-service``, no socket but Unix and IP ones, no writable-and-executable
memory, the whole file system read-only but for the data folder (``DEPLOY_DATA_DIR``, a systemd
``StateDirectory`` when under /var/lib), the backend's ``.web/`` (Reflex writes its page
list there at start) and, for the backup, ``DEPLOY_BACKUP_DIR``; files they create are
private to the site's user (``UMask=0077``). Checked by running a backend with its site
folder and home read-only: it serves with only those two folders writable.

Every path the site writes is placed inside the data folder by both units
(``write_paths``: the spool, the erasure log, a SQLite database): the settings' own
defaults are under the site folder (``data/``), which the units cannot write. The site's
``.env`` (read after, so it wins) may name others; the backend says at start-up, and
``/_site/leads/health`` reports, a folder it cannot write.
"""

from agency_site.deploy.topology import GENERATED, TRUSTED_PROXY_HOPS, Topology
from agency_site.settings import DeploySettings, get_settings

BACKEND_UNIT = "agency-backend@.service"
BACKUP_SERVICE = "agency-leads-backup.service"
BACKUP_TIMER = "agency-leads-backup.timer"
REPORT_SERVICE = "agency-report-ingest.service"
REPORT_TIMER = "agency-report-ingest.timer"
# Workers per backend process; they share visitor state through Redis.
WORKERS_PER_BACKEND = 2
# Open files per backend process: every visitor's tab holds a websocket.
OPEN_FILES = 65536
STATE_ROOT = "/var/lib/"


def _deploy(deploy: DeploySettings | None) -> DeploySettings:
    return deploy if deploy is not None else get_settings().deploy


def data_folder_lines(data_dir: str) -> str:
    """The data folder, writable: created by systemd (owned by User=) when under /var/lib."""
    if data_dir.startswith(STATE_ROOT) and data_dir != STATE_ROOT.rstrip("/"):
        return f"StateDirectory={data_dir.removeprefix(STATE_ROOT)}\nStateDirectoryMode=0700\n"
    return f"ReadWritePaths={data_dir}\n"


def write_paths(data_dir: str) -> dict[str, str]:
    """Where the site writes on a host run by these units, by setting: in the data folder.

    scripts/prepare_host.py writes the same lines into a new ``.env`` (a test keeps them
    equal), so the operator's commands (``python -m agency_site.leads``) agree.
    """
    return {
        "REFLEX_DB_URL": f"sqlite:///{data_dir}/reflex.db",
        "LEADS_SPOOL_DIR": f"{data_dir}/spool",
        "LEADS_ERASURE_LOG": f"{data_dir}/erasures.log",
    }


def write_path_lines(data_dir: str) -> str:
    """``write_paths`` as the units' environment; the site's ``.env`` overrides them."""
    return "".join(f"Environment={name}={value}\n" for name, value in write_paths(data_dir).items())


# The system calls and socket families the site's processes may use. Checked by running a
# backend under them (tests/test_systemd_units.py: the form, the websocket, the database).
SYSTEM_CALLS = "@system-service"
ADDRESS_FAMILIES = "AF_UNIX AF_INET AF_INET6"
# What `systemd-analyze security` calls the remaining exposure: no capability, no other
# user, kernel or clock, no namespaces, no writable-and-executable memory (granian, uvloop
# and psycopg need none; no unit runs Node).
HARDENING = (
    "UMask=0077",
    "NoNewPrivileges=yes",
    "PrivateTmp=yes",
    "PrivateDevices=yes",
    "ProtectSystem=strict",
    "ProtectHome=yes",
    "ProtectKernelTunables=yes",
    "ProtectKernelModules=yes",
    "ProtectKernelLogs=yes",
    "ProtectControlGroups=yes",
    "ProtectClock=yes",
    "ProtectHostname=yes",
    "ProtectProc=invisible",
    "RestrictSUIDSGID=yes",
    "RestrictNamespaces=yes",
    "RestrictRealtime=yes",
    f"RestrictAddressFamilies={ADDRESS_FAMILIES}",
    "LockPersonality=yes",
    "MemoryDenyWriteExecute=yes",
    "RemoveIPC=yes",
    "PrivateMounts=yes",
    "CapabilityBoundingSet=",
    "AmbientCapabilities=",
    "SystemCallArchitectures=native",
    f"SystemCallFilter={SYSTEM_CALLS}",
    "SystemCallErrorNumber=EPERM",
)


def hardening(*writable: str) -> str:
    """The sandbox of every service; ``writable`` are their only writable folders (lines)."""
    return (
        "# Sandbox: read-only system and site code, private /tmp and /dev, no privilege gain,\n"
        "# capability, namespace or other system call; files the site creates are private to\n"
        "# its user.\n"
        + "".join(line + "\n" for line in HARDENING)
        + f"LimitNOFILE={OPEN_FILES}\n"
        + "".join(writable)
    )


def backend_unit(topology: Topology, deploy: DeploySettings | None = None) -> str:
    """The template unit of a backend process listening on port ``%i``."""
    deploy = _deploy(deploy)
    venv, web = f"{topology.app_dir}/.venv/bin", f"{topology.app_dir}/.web"
    sandbox = hardening(data_folder_lines(deploy.data_dir), f"ReadWritePaths={web}\n")
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
Environment=PYTHONDONTWRITEBYTECODE=1
# Where the site writes: inside the data folder (EnvironmentFile= wins over these).
{write_path_lines(deploy.data_dir)}# Reflex's backend writes its compiled page list into .web/ (the only writable folder of
# the site's code); "+": created with root's rights, for the site's user.
ExecStartPre=+/usr/bin/install -d -m 0700 -o {topology.user} {web}
# No migration before serving: a backend must start while the database is down. Each
# worker migrates (under a lock) as soon as the database answers, and keeps leads in its
# spool until then (agency_site/leads/runtime.py); a release migrates once beforehand.
ExecStart={venv}/reflex run --env prod --backend-only --backend-host {deploy.backend_host} --backend-port %i
Restart=on-failure
RestartSec=5
# Give open websockets and sends in flight time to finish on restart.
TimeoutStopSec=30
KillMode=mixed
{sandbox}
[Install]
WantedBy=multi-user.target
"""


def _oneshot_service(topology: Topology, deploy: DeploySettings, unit: str, work: str) -> str:
    """A one-shot job of the site's user with the backends' ``.env`` and database:
    ``unit`` its [Unit] lines, ``work`` what it runs (each line ending in a newline)."""
    return f"""{GENERATED}[Unit]
{unit}
[Service]
Type=oneshot
User={topology.user}
WorkingDirectory={topology.app_dir}
EnvironmentFile={topology.app_dir}/.env
Environment=PYTHONDONTWRITEBYTECODE=1
# The same database as the backends' (EnvironmentFile= wins over these).
{write_path_lines(deploy.data_dir)}{work}"""


def backup_service(topology: Topology, deploy: DeploySettings | None = None) -> str:
    """A one-shot copy of the leads database into ``DEPLOY_BACKUP_DIR``."""
    deploy = _deploy(deploy)
    folder = deploy.backup_dir
    python = f"{topology.app_dir}/.venv/bin/python"
    sandbox = hardening(data_folder_lines(deploy.data_dir), f"ReadWritePaths={folder}\n")
    return _oneshot_service(
        topology,
        deploy,
        "Description=Back up the agency_site leads database\n",
        "# The backup folder, private to the site's user (\"+\": created with root's rights).\n"
        f"ExecStartPre=+/usr/bin/install -d -m 0700 -o {topology.user} {folder}\n"
        f"ExecStart={python} -m agency_site.deploy backup --out {folder} "
        f"--keep {topology.backup_keep}\n{sandbox}",
    )


def _nightly_timer(description: str, at: str) -> str:
    """A timer starting its service every night at ``at``, a missed night caught up."""
    return f"""{GENERATED}[Unit]
Description={description}

[Timer]
OnCalendar=*-*-* {at}
RandomizedDelaySec=15min
Persistent=true

[Install]
WantedBy=timers.target
"""


def backup_timer() -> str:
    """Runs the backup every night."""
    return _nightly_timer("Nightly backup of the agency_site leads database", "03:30:00")


def report_service(topology: Topology, deploy: DeploySettings | None = None) -> str:
    """A one-shot reading of the access log's new lines into the report's daily counts."""
    deploy = _deploy(deploy)
    python = f"{topology.app_dir}/.venv/bin/python"
    sandbox = hardening(data_folder_lines(deploy.data_dir))
    return _oneshot_service(
        topology,
        deploy,
        "Description=Count the agency_site access log's new lines into the owner's report\n"
        "After=network-online.target postgresql.service\n",
        f"Environment=DEPLOY_ACCESS_LOG={topology.access_log}\n"
        "# The access log is the site user's group's to read (scripts/prepare_host.py): no\n"
        "# other group (Debian's adm reads every log of the machine).\n"
        f"ExecStart={python} -m agency_site.report ingest\n{sandbox}",
    )


def report_timer() -> str:
    """Reads the access log every night, after logrotate's midnight rotation (a missed
    night is caught up: the log is read from where the last run stopped)."""
    return _nightly_timer(
        "Nightly count of the agency_site access log for the owner's report", "02:30:00"
    )
