"""Prepare a fresh Debian host for the site: packages, user, folders, venv, ``.env``.

Run once from the clone, as root, with the system's ``python3`` (no venv exists yet, so
this file uses the standard library only; docs/deploy.md "Fresh Debian VPS")::

    sudo python3 /srv/agency_site/app/scripts/prepare_host.py                 # nginx
    sudo python3 /srv/agency_site/app/scripts/prepare_host.py --server caddy  # or Caddy

Running it again changes nothing that is already right (it is safe after a ``git pull``:
it reinstalls the locked requirements). In order it:

1. installs the Debian packages (``apt-get``; ``--no-apt`` skips it): ``python3-venv``,
   ``git``, the web server (``--server nginx|caddy|none``; nginx, the default, with
   Debian's ``certbot`` and its nginx plugin) and, unless ``--no-databases``, PostgreSQL
   and Redis;
2. creates the system user ``DEPLOY_USER`` (``agency``; no login shell, home in the data
   folder, where Reflex keeps its Node and Bun);
3. creates the folders: the data and backup folders (``DEPLOY_DATA_DIR``,
   ``DEPLOY_BACKUP_DIR``; the user's, 0700), the parent of ``DEPLOY_STATIC_ROOT`` where
   the releases go and ``/etc/agency_site`` where they are rendered (root's, 0755: the
   web server reads them; ``SERVER_FILE`` there names the web server), and the web server's
   access log (``DEPLOY_ACCESS_LOG``: the web
   server writes it, the user's group reads it for the nightly report; 0640);
4. gives the clone to root, not writable by the user: root runs its code and its
   ``.venv`` (``deploy release``), so a user who could change them would become root.
   The user may write only ``.web/`` and ``reflex.lock/`` in it (the release exports
   the frontend as the user, and Reflex copies its package lockfiles back there);
5. creates ``.venv`` in the clone and installs ``requirements-postgres.txt`` (hash-locked)
   into it, as root;
6. copies ``.env.example`` to ``.env`` (root's, readable by the user's group: 0640) when
   there is none, with this host's write paths at the top (``write_paths``: inside the
   data folder, as the units place them) and a ``BOOKING_LINK_SECRET`` (``link_secret``:
   the one the backends already keep in the data folder, else a new one); an existing
   ``.env`` is only narrowed to that owner and mode, given a ``BOOKING_LINK_SECRET`` line
   at its end when it sets none, and a warning names the write paths it lacks;
7. with nginx: makes ``ACME_WEBROOT`` (where ``certbot --webroot`` would put Let's
   Encrypt's challenges; the nginx plugin needs none), writes certbot's deploy hook
   (``CERTBOT_HOOK``: nginx reloads after each renewal, so it serves the renewed
   certificate), enables Debian's ``certbot.timer`` (``certbot renew`` twice a day) and
   gives Debian's ``nginx.conf`` the stack's limits for a burst (``ensure_nginx_limits``:
   its one ``worker_connections 768;`` line set to ``WORKER_CONNECTIONS``,
   ``worker_rlimit_nofile`` in a drop-in of the ``modules-enabled`` folder it includes at
   its top; a file without that line exactly once stops the script; ``nginx -t``);
   with ``--server caddy``: gives Debian's ``caddy.service`` the site's Go runtime settings
   (``CADDY_ENVIRONMENT``) in a drop-in, ``/etc/systemd/system/caddy.service.d/``, and
   restarts Caddy when it runs and the drop-in changed.

Root never follows a link in a folder another user owns: the access log (in the web
server's folder) and the links' secret (in the site user's) are opened with
``O_NOFOLLOW``, checked to be regular files of the expected owner with no other hard
link, and changed through the open descriptor (``fchown``/``fchmod``); a link, another
kind of file or another owner stops the script with the path and the reason
(``open_unfollowed``). Otherwise a compromised web server or site user could plant
``access.log -> /etc/shadow`` and turn the next routine run into root.

``DEPLOY_*`` variables of the environment change the paths and the user, as in ``.env``.
``--root PREFIX`` puts every system path (not the clone) under PREFIX: the tests run this
file as root into a temporary folder with a throwaway user.
"""

import argparse
import contextlib
import errno
import os
import pwd
import re
import runpy
import secrets
import shutil
import stat
import subprocess
import sys
from pathlib import Path

CHECKOUT = Path(__file__).resolve().parents[1]
# The same defaults as agency_site.settings.DeploySettings (a test keeps them equal).
DEFAULTS = {
    "user": "agency",
    "data_dir": "/var/lib/agency_site",
    "backup_dir": "/var/backups/agency_site",
    "static_root": "/srv/agency_site/frontend",
    "access_log": "/var/log/agency_site/access.log",
}
CONF_DIR = "/etc/agency_site"
REQUIREMENTS = "requirements-postgres.txt"
BASE_PACKAGES = ("python3-venv", "git")
# nginx is the default: on this 2-core box it held the load target (10,000 readers + 400
# bookings in 20 s) where Caddy could not (docs/loadtest.md, "Caddy or nginx").
DEFAULT_SERVER = "nginx"
WEB_SERVER_PACKAGES = {
    "nginx": ("nginx", "libnginx-mod-http-brotli-static", "certbot", "python3-certbot-nginx"),
    "caddy": ("caddy",),
    "none": (),
}
# certbot's nginx plugin answers Let's Encrypt's challenges by itself; this folder is the
# rendered site's challenge folder for `certbot --webroot` (Topology.acme_webroot: a test
# keeps them equal).
ACME_WEBROOT = "/var/www/letsencrypt"
# Run by `certbot renew` after each certificate it renewed (Debian's certbot.timer runs it
# twice a day): nginx reads certificates when it (re)loads its configuration.
CERTBOT_HOOK = "/etc/letsencrypt/renewal-hooks/deploy/agency_site-reload-nginx"
CERTBOT_TIMER = "certbot.timer"
# The web server this host runs, one word: what `deploy release` validates and reloads, and
# what a later run of this script prepares, when neither is told (agency_site/deploy
# /__main__.py reads the same file name: a test keeps them equal).
SERVER_FILE = f"{CONF_DIR}/web-server"
DATABASE_PACKAGES = ("postgresql", "redis-server")
# Caddy's Go runtime under a spike: its garbage collector at 400 % (Go's default 100 %)
# spends less of the box on collecting. make loadtest --stack, 2,500 readers + 400
# bookings in 20 s through Caddy, fresh stacks back to back: default GC, page p95 666 ms
# and 2,638 ms, booking p95 1,057 ms and 3,820 ms; GOGC=400, page p95 129 ms and 87 ms,
# booking p95 241 ms and 220 ms (docs/loadtest.md). What it trades: Caddy's heap may grow
# to five times what it holds live before a collection. Two Caddys from the stack's file,
# h2load, 100,000 requests (pages and a bundle, 200 connections): 0.206 -> 0.147 ms of CPU
# per response, peak RSS 63 -> 91 MiB. scripts/stack.py starts its Caddy with the same.
CADDY_ENVIRONMENT = {"GOGC": "400"}
CADDY_DROP_IN = "/etc/systemd/system/caddy.service.d/agency_site.conf"
# nginx's limits for a burst, the stack's own (agency_site/deploy/nginx_limits.py, which
# imports nothing: run alone, as this script runs before any venv).
_LIMITS = runpy.run_path(str(CHECKOUT / "agency_site/deploy/nginx_limits.py"))
WORKER_CONNECTIONS, WORKER_OPEN_FILES = _LIMITS["WORKER_CONNECTIONS"], _LIMITS["WORKER_OPEN_FILES"]
# Debian's nginx.conf: its events block's one line, 768 connections per worker, is set to
# WORKER_CONNECTIONS (marked, so a later run knows it, and sets a changed value).
NGINX_CONF = "/etc/nginx/nginx.conf"
DEBIAN_WORKER_CONNECTIONS = "\tworker_connections 768;"
OUR_WORKER_CONNECTIONS = re.compile(r"\tworker_connections \d+; # scripts/prepare_host\.py")
# The open files those connections need: a main-context directive, in a folder Debian's
# nginx.conf includes at its top (before its events block).
NGINX_LIMITS_DROP_IN = "/etc/nginx/modules-enabled/90-agency_site-limits.conf"


def caddy_drop_in() -> str:
    """The drop-in giving Debian's caddy.service ``CADDY_ENVIRONMENT``."""
    lines = "".join(f"Environment={name}={value}\n" for name, value in CADDY_ENVIRONMENT.items())
    return f"# Written by scripts/prepare_host.py (CADDY_ENVIRONMENT).\n[Service]\n{lines}"


def ensure_caddy_drop_in(root: Path) -> None:
    """Write the drop-in; on this host's own systemd, reload it and restart a running Caddy
    (an environment is read only when a service starts) when the drop-in changed."""
    path = _under(root, CADDY_DROP_IN)
    if path.is_file() and path.read_text(encoding="utf-8") == caddy_drop_in():
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(caddy_drop_in(), encoding="utf-8")
    path.chmod(0o644)
    _say(f"{path} written: {' '.join(f'{k}={v}' for k, v in CADDY_ENVIRONMENT.items())}")
    if _systemd_here(root):
        _run(["systemctl", "daemon-reload"])
        _run(["systemctl", "try-restart", "caddy"])


def nginx_limits_drop_in() -> str:
    """The main-context drop-in giving each nginx worker ``WORKER_OPEN_FILES``."""
    return (
        "# Written by scripts/prepare_host.py (agency_site/deploy/nginx_limits.py): the open\n"
        "# files of each worker's connections (nginx.conf's worker_connections).\n"
        f"worker_rlimit_nofile {WORKER_OPEN_FILES};\n"
    )


def limited_nginx_conf(text: str, path: Path) -> str:
    """Debian's ``nginx.conf`` (``text``, read from ``path``) with its one
    ``worker_connections`` line set to ``WORKER_CONNECTIONS``; nothing else changes. A file
    without that line exactly once stops the script naming it: nothing is guessed."""
    lines = text.splitlines(keepends=True)
    found = [
        index
        for index, line in enumerate(lines)
        if line.rstrip("\n") == DEBIAN_WORKER_CONNECTIONS
        or OUR_WORKER_CONNECTIONS.fullmatch(line.rstrip("\n"))
    ]
    if len(found) != 1:
        raise SystemExit(
            f"prepare_host: {path} has {len(found)} lines {DEBIAN_WORKER_CONNECTIONS.strip()!r} "
            "(tab-indented, in the events block) where Debian's nginx.conf has one: it was "
            "changed by hand. Put back Debian's line (or its whole file) and run this again; it "
            f"sets worker_connections {WORKER_CONNECTIONS}."
        )
    (index,) = found
    ending = lines[index][len(lines[index].rstrip("\n")) :]
    ours = f"\tworker_connections {WORKER_CONNECTIONS}; # scripts/prepare_host.py"
    return "".join([*lines[:index], ours + ending, *lines[index + 1 :]])


def _replace_file(path: Path, text: str, mode: int) -> None:
    """``path`` holds ``text`` (root's, ``mode``), swapped in whole: never half written."""
    temporary = path.with_name(f".{path.name}.agency_site-new")
    temporary.write_text(text, encoding="utf-8")
    os.chown(temporary, 0, 0)
    temporary.chmod(mode)
    os.replace(temporary, path)


def ensure_nginx_limits(root: Path) -> None:
    """Debian's ``nginx.conf`` gets the stack's ``worker_connections`` and the drop-in its
    ``worker_rlimit_nofile``; on this host's own nginx, ``nginx -t`` checks them (a failure
    puts both files back) and a running nginx reloads."""
    conf, drop_in = _under(root, NGINX_CONF), _under(root, NGINX_LIMITS_DROP_IN)
    try:
        text = conf.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise SystemExit(
            f"prepare_host: {conf} is missing: nginx's main configuration, from Debian's nginx "
            "package (install it: run this without --no-apt)."
        ) from None
    wanted = {conf: limited_nginx_conf(text, conf), drop_in: nginx_limits_drop_in()}
    before = {path: path.read_text(encoding="utf-8") if path.is_file() else None for path in wanted}
    changed = [path for path in wanted if before[path] != wanted[path]]
    for path in changed:
        path.parent.mkdir(parents=True, exist_ok=True)
        _replace_file(path, wanted[path], 0o644)
    if changed:
        _say(f"{conf}: worker_connections {WORKER_CONNECTIONS} (Debian's: 768); {drop_in}: "
             f"worker_rlimit_nofile {WORKER_OPEN_FILES}")  # fmt: skip
    if not changed or root != Path("/") or not shutil.which("nginx"):
        return
    try:
        _run(["nginx", "-t"])
    except subprocess.CalledProcessError:
        for path in changed:
            if before[path] is None:
                path.unlink()
            else:
                _replace_file(path, before[path], 0o644)
        _say(f"{conf} and {drop_in} put back as they were: nginx -t refused them")
        raise
    if _systemd_here(root):
        _run(["systemctl", "try-reload-or-restart", "nginx"])


def certbot_hook() -> str:
    """The deploy hook: reload nginx, which then serves the renewed certificate."""
    return (
        "#!/bin/sh\n# Written by scripts/prepare_host.py (CERTBOT_HOOK): certbot renew runs it\n"
        "# after renewing a certificate; nginx reads certificates when it reloads.\n"
        "exec systemctl reload nginx\n"
    )


def _systemd_here(root: Path) -> bool:
    """Whether ``root`` is this host's own running systemd (not a test's folder)."""
    return (
        root == Path("/")
        and bool(shutil.which("systemctl"))
        and Path("/run/systemd/system").is_dir()
    )


def ensure_certbot(root: Path) -> None:
    """The ACME folder, certbot's deploy hook (written when it differs) and its timer on."""
    ensure_folder(_under(root, ACME_WEBROOT), 0o755, None)
    hook = _under(root, CERTBOT_HOOK)
    if not (hook.is_file() and hook.read_text(encoding="utf-8") == certbot_hook()):
        hook.parent.mkdir(parents=True, exist_ok=True)
        hook.write_text(certbot_hook(), encoding="utf-8")
        _say(f"{hook} written: nginx reloads after each renewal")
    hook.chmod(0o755)
    if _systemd_here(root):
        _run(["systemctl", "enable", "--now", CERTBOT_TIMER])


def previous_server(root: Path) -> str | None:
    """The web server an earlier run prepared here: the one ``SERVER_FILE`` names, else
    Caddy when a host prepared before that file existed shows it (its Go runtime drop-in, or
    Debian's Caddyfile linked to the rendered one), else None."""
    recorded = _under(root, SERVER_FILE)
    if recorded.is_file():
        name = recorded.read_text(encoding="utf-8").strip()
        return name if name in WEB_SERVER_PACKAGES else None
    linked = _under(root, "/etc/caddy/Caddyfile")
    rendered = _under(root, f"{CONF_DIR}/Caddyfile")
    if _under(root, CADDY_DROP_IN).is_file() or (
        linked.is_symlink() and os.readlink(linked) in (str(rendered), f"{CONF_DIR}/Caddyfile")
    ):
        return "caddy"
    return None


def record_server(root: Path, server: str) -> None:
    """``SERVER_FILE`` names ``server`` (root's, 0644)."""
    path = _under(root, SERVER_FILE)
    if not (path.is_file() and path.read_text(encoding="utf-8") == server + "\n"):
        path.write_text(server + "\n", encoding="utf-8")
        _say(f"{path}: {server}")
    path.chmod(0o644)


def packages(server: str, databases: bool) -> list[str]:
    """The Debian packages this host needs."""
    return [*BASE_PACKAGES, *WEB_SERVER_PACKAGES[server], *(DATABASE_PACKAGES if databases else ())]


def _say(message: str) -> None:
    print(f"prepare_host: {message}", flush=True)


def _run(command: list[str], **kwargs) -> None:
    _say("$ " + " ".join(command))
    subprocess.run(command, check=True, **kwargs)


def _under(root: Path, path: str) -> Path:
    return root / path.lstrip("/") if str(root) != "/" else Path(path)


def ensure_user(name: str, home: Path) -> pwd.struct_passwd:
    """The system user running the site (created once, never changed afterwards)."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    nologin = "/usr/sbin/nologin" if Path("/usr/sbin/nologin").exists() else "/bin/false"
    _run(["useradd", "--system", "--user-group", "--no-create-home",
          "--home-dir", str(home), "--shell", nologin, name])  # fmt: skip
    return pwd.getpwnam(name)


def _refuse(path: Path, why: str) -> SystemExit:
    return SystemExit(
        f"prepare_host: {path} {why}. Root does not follow it: remove it (and find out who "
        "made it), then run this again."
    )


def open_unfollowed(
    path: Path, flags: int, owners: set[int], *, mode: int = 0o600, dir_fd: int | None = None
) -> int:
    """A descriptor of ``path`` (its last part read in ``dir_fd`` when given), never through
    a link: a regular file (``O_DIRECTORY``: a folder) owned by one of ``owners``, with no
    other hard link. Anything else raises ``SystemExit`` naming it."""
    flags |= os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC  # NONBLOCK: a FIFO never waits.
    try:
        fd = os.open(path.name if dir_fd is not None else path, flags, mode, dir_fd=dir_fd)
    except OSError as error:
        if error.errno in (errno.ELOOP, errno.ENOTDIR) or path.is_symlink():
            raise _refuse(path, "is a symbolic link") from None
        raise
    info = os.fstat(fd)
    folder = bool(flags & os.O_DIRECTORY)
    problem = (
        ("is not a folder" if folder else "is not a regular file")
        if not (stat.S_ISDIR if folder else stat.S_ISREG)(info.st_mode)
        else f"belongs to uid {info.st_uid}, not to {sorted(owners)}"
        if info.st_uid not in owners
        else "has other hard links"
        if not folder and info.st_nlink != 1
        else ""
    )
    if problem:
        os.close(fd)
        raise _refuse(path, problem)
    return fd


def _made_folder(path: Path, mode: int, owners: set[int]) -> int:
    """A descriptor of the folder ``path``, made if missing (a link is refused)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with contextlib.suppress(FileExistsError):
        path.mkdir(mode=mode)
    return open_unfollowed(path, os.O_RDONLY | os.O_DIRECTORY, owners)


def ensure_folder(path: Path, mode: int, owner: pwd.struct_passwd | None) -> None:
    """``path`` exists with ``mode`` and the owner (root when None); never through a link."""
    uid, gid = (owner.pw_uid, owner.pw_gid) if owner else (0, 0)
    fd = _made_folder(path, mode, {0, uid})
    try:
        os.fchown(fd, uid, gid)
        os.fchmod(fd, mode)
    finally:
        os.close(fd)
    _say(f"{path} {oct(mode)[2:]} {owner.pw_name if owner else 'root'}")


def _uid_of(name: str) -> tuple[int, ...]:
    try:
        return (pwd.getpwnam(name).pw_uid,)
    except KeyError:
        return ()


def ensure_access_log(path: Path, server: str, reader: pwd.struct_passwd) -> None:
    """The web server's access log (agency_site/deploy/access_log.py): written by the web
    server (Caddy runs as ``caddy``; nginx opens its logs as root), read by the site's user
    (the nightly ``agency-report-ingest``). Made beforehand, ``0640``: ``nginx -t`` needs its
    folder, and Caddy's log roller keeps an existing file's mode and owner."""
    try:
        writer = pwd.getpwnam("caddy") if server == "caddy" else None
    except KeyError:  # Caddy not installed (--no-apt): root until it is.
        writer = None
    uid = writer.pw_uid if writer else 0
    # The folder and the file are the writer's: a web server could have put a link there.
    owners = {0, uid, *_uid_of("caddy")}
    folder = _made_folder(path.parent, 0o750, owners)
    try:
        os.fchown(folder, uid, reader.pw_gid)
        os.fchmod(folder, 0o750)
        log = open_unfollowed(path, os.O_RDONLY | os.O_CREAT, owners, mode=0o640, dir_fd=folder)
        try:
            os.fchown(log, uid, reader.pw_gid)
            os.fchmod(log, 0o640)
        finally:
            os.close(log)
    finally:
        os.close(folder)
    _say(f"{path} 640 {writer.pw_name if writer else 'root'}:{reader.pw_name}")


# Of the clone, what the site's user writes: Reflex's build folder and the package
# lockfiles Reflex copies back after installing the frontend's packages (release export).
USER_FOLDERS = (".web", "reflex.lock")


def write_paths(data_dir: str) -> dict[str, str]:
    """Where the site writes on this host, by setting: inside the data folder.

    The same as agency_site/deploy/systemd.py ``write_paths`` (the units' environment; a
    test keeps them equal): this script runs before any venv, with the standard library.
    """
    return {
        "REFLEX_DB_URL": f"sqlite:///{data_dir}/reflex.db",
        "LEADS_SPOOL_DIR": f"{data_dir}/spool",
        "LEADS_ERASURE_LOG": f"{data_dir}/erasures.log",
    }


LINK_SECRET = "BOOKING_LINK_SECRET"
# Where the backends keep the secret they generate when .env has none: the same name as
# agency_site/bookings/link_secret.py's (a test keeps them equal), in the data folder.
LINK_SECRET_FILE = "booking-link-secret"


def link_secret(data: Path) -> str:
    """The links' secret for ``.env``: the one the backends keep in ``data`` (so the links
    already mailed keep working), else a new one."""
    path = data / LINK_SECRET_FILE
    try:  # The data folder is the site user's: never through a link it put there.
        fd = open_unfollowed(path, os.O_RDONLY, {0, os.stat(data).st_uid})
    except FileNotFoundError:
        kept = ""
    else:
        try:
            kept = os.read(fd, 4096).decode("utf-8", "replace").strip()
        finally:
            os.close(fd)
    return kept if len(kept) >= 32 and "," not in kept else secrets.token_urlsafe(32)


def link_secret_lines(secret: str) -> str:
    """``.env``'s lines setting the links' secret."""
    return (
        "# Signs the booking links (scripts/prepare_host.py). Every backend host of the site\n"
        "# needs this same line: copy it to a second one (docs/deploy.md).\n"
        f"{LINK_SECRET}={secret}\n"
    )


def env_text(example: str, data_dir: str, secret: str = "") -> str:
    """A new ``.env``: this host's write paths and the links' ``secret`` first, then
    ``.env.example``.

    Later lines win (systemd and python-dotenv alike), so uncommenting a line of
    ``.env.example`` below, e.g. a PostgreSQL ``REFLEX_DB_URL``, still sets its value.
    """
    lines = "".join(f"{name}={value}\n" for name, value in write_paths(data_dir).items())
    secret_lines = link_secret_lines(secret) if secret else ""
    return (
        "# This host's write paths (scripts/prepare_host.py): inside DEPLOY_DATA_DIR, the only\n"
        "# folder the hardened units may write. A line further down overrides one of them.\n"
        f"{lines}{secret_lines}\n{example}"
    )


def names_set(env: str) -> set[str]:
    """The variables a ``.env`` sets (its lines not commented out)."""
    return {line.split("=", 1)[0].strip().removeprefix("export ").strip()
            for line in env.splitlines() if "=" in line and not line.lstrip().startswith("#")}  # fmt: skip


def missing_write_paths(env: str) -> list[str]:
    """The write-path settings an existing ``.env`` does not set."""
    set_here = names_set(env)
    return [name for name in write_paths("") if name not in set_here]


def take_tree(path: Path, user: pwd.struct_passwd) -> None:
    """The clone is root's and writable by root only; the user gets ``USER_FOLDERS``."""
    for folder, dirs, files in os.walk(path):
        if Path(folder) == path:
            dirs[:] = [entry for entry in dirs if entry not in USER_FOLDERS]
        for name in (folder, *(os.path.join(folder, entry) for entry in dirs + files)):
            os.lchown(name, 0, 0)
            mode = os.lstat(name).st_mode
            if not stat.S_ISLNK(mode) and mode & 0o022:
                os.chmod(name, stat.S_IMODE(mode) & ~0o022)
    for entry in USER_FOLDERS:
        (path / entry).mkdir(mode=0o700, exist_ok=True)
        for folder, dirs, files in os.walk(path / entry):
            for name in (folder, *(os.path.join(folder, item) for item in dirs + files)):
                os.lchown(name, user.pw_uid, user.pw_gid)


def prepare(args: argparse.Namespace) -> None:
    """Every step, in order (module docstring)."""
    if os.geteuid() != 0:
        raise SystemExit("prepare_host: run it as root (sudo python3 scripts/prepare_host.py).")
    root, app = args.root.resolve(), args.app_dir.resolve()
    if not (app / REQUIREMENTS).is_file():
        raise SystemExit(f"prepare_host: {app} is not a clone of the site (no {REQUIREMENTS}).")
    # A host keeps the web server it was prepared with unless told otherwise.
    args.server = args.server or previous_server(root) or DEFAULT_SERVER
    if args.apt:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        _run(["apt-get", "install", "-y", *packages(args.server, args.databases)], env=env)
    data, backups = _under(root, args.data_dir), _under(root, args.backup_dir)
    user = ensure_user(args.user, data)
    ensure_folder(data, 0o700, user)
    ensure_folder(backups, 0o700, user)
    ensure_folder(_under(root, args.static_root).parent, 0o755, None)
    ensure_folder(_under(root, CONF_DIR), 0o755, None)
    record_server(root, args.server)
    if args.server != "none":
        ensure_access_log(_under(root, args.access_log), args.server, user)
    take_tree(app, user)
    app.chmod(0o755)
    venv = app / ".venv"
    if not (venv / "bin" / "python").exists():
        _run([sys.executable, "-m", "venv", str(venv)], cwd=app)
    # Hash-checked, by uv (pip if it cannot be had): scripts/install_locked.py.
    _run([str(venv / "bin" / "python"), "scripts/install_locked.py", REQUIREMENTS], cwd=app)
    env_file = app / ".env"
    if not env_file.exists():
        example = (app / ".env.example").read_text(encoding="utf-8")
        descriptor = os.open(env_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with open(descriptor, "w", encoding="utf-8") as file:
            file.write(env_text(example, args.data_dir, link_secret(data)))
        _say(f"{env_file} written from .env.example: set its values (docs/deploy.md)")
    elif LINK_SECRET not in names_set(env_file.read_text(encoding="utf-8")):
        with env_file.open("a", encoding="utf-8") as file:
            file.write("\n" + link_secret_lines(link_secret(data)))
        _say(f"{env_file}: {LINK_SECRET} added (another backend host needs the same line)")
    if missing := missing_write_paths(env_file.read_text(encoding="utf-8")):
        wanted = write_paths(args.data_dir)
        _say(f"WARNING: {env_file} does not set {', '.join(missing)}: the units use "
             + ", ".join(f"{name}={wanted[name]}" for name in missing)
             + "; add the same lines so the operator's commands see the same files")  # fmt: skip
    # Root's (the release reads it as root), readable by the user's group (backends, exports).
    os.chown(env_file, 0, user.pw_gid)
    env_file.chmod(0o640)
    if args.server == "nginx":
        ensure_nginx_limits(root)
        ensure_certbot(root)
    elif args.server == "caddy":
        ensure_caddy_drop_in(root)
    _say("done")


def parser() -> argparse.ArgumentParser:
    """The command line; paths default to the DEPLOY_* variables, else the site's defaults."""
    env = {key: os.environ.get(f"DEPLOY_{key.upper()}", "").strip() for key in DEFAULTS}
    value = {key: env[key] or default for key, default in DEFAULTS.items()}
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--server", choices=sorted(WEB_SERVER_PACKAGES),
                     help=f"the web server to install (none on a backend-only host); default: "
                     f"the one this host was prepared with, else {DEFAULT_SERVER}")  # fmt: skip
    cli.add_argument("--no-apt", dest="apt", action="store_false", help="install no package")
    cli.add_argument("--no-databases", dest="databases", action="store_false",
                     help="no PostgreSQL and Redis (they run on another host)")  # fmt: skip
    cli.add_argument("--user", default=value["user"], help="DEPLOY_USER")
    cli.add_argument("--data-dir", default=value["data_dir"], help="DEPLOY_DATA_DIR")
    cli.add_argument("--backup-dir", default=value["backup_dir"], help="DEPLOY_BACKUP_DIR")
    cli.add_argument("--static-root", default=value["static_root"], help="DEPLOY_STATIC_ROOT")
    cli.add_argument("--access-log", default=value["access_log"], help="DEPLOY_ACCESS_LOG")
    cli.add_argument("--app-dir", type=Path, default=CHECKOUT, help="the clone (this one)")
    cli.add_argument("--root", type=Path, default=Path("/"), help="prefix of system paths")
    return cli


def main(argv: list[str] | None = None) -> int:
    """Entry point."""
    try:
        prepare(parser().parse_args(argv))
    except subprocess.CalledProcessError as error:
        print(f"prepare_host: failed: {' '.join(map(str, error.cmd))}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
