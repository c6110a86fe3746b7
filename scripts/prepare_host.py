"""Prepare a fresh Debian host for the site: packages, user, folders, venv, ``.env``.

Run once from the clone, as root, with the system's ``python3`` (no venv exists yet, so
this file uses the standard library only; docs/deploy.md "Fresh Debian VPS")::

    sudo python3 /srv/agency_site/app/scripts/prepare_host.py --server caddy

Running it again changes nothing that is already right (it is safe after a ``git pull``:
it reinstalls the locked requirements). In order it:

1. installs the Debian packages (``apt-get``; ``--no-apt`` skips it): ``python3-venv``,
   ``git``, the web server (``--server caddy|nginx|none``) and, unless
   ``--no-databases``, PostgreSQL and Redis;
2. creates the system user ``DEPLOY_USER`` (``agency``; no login shell, home in the data
   folder, where Reflex keeps its Node and Bun);
3. creates the folders: the data and backup folders (``DEPLOY_DATA_DIR``,
   ``DEPLOY_BACKUP_DIR``; the user's, 0700), the parent of ``DEPLOY_STATIC_ROOT`` where
   the releases go and ``/etc/agency_site`` where they are rendered (root's, 0755: the
   web server reads them), and gives the clone to the user (releases export as it);
4. creates ``.venv`` in the clone and installs ``requirements-postgres.txt`` (hash-locked)
   into it, as the user;
5. copies ``.env.example`` to ``.env`` (the user's, 0600) when there is none.

``DEPLOY_*`` variables of the environment change the paths and the user, as in ``.env``.
``--root PREFIX`` puts every system path (not the clone) under PREFIX: the tests run this
file as root into a temporary folder with a throwaway user.
"""

import argparse
import os
import pwd
import shutil
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
}
CONF_DIR = "/etc/agency_site"
REQUIREMENTS = "requirements-postgres.txt"
BASE_PACKAGES = ("python3-venv", "git")
WEB_SERVER_PACKAGES = {
    "caddy": ("caddy",),
    "nginx": ("nginx", "libnginx-mod-http-brotli-static"),
    "none": (),
}
DATABASE_PACKAGES = ("postgresql", "redis-server")


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


def ensure_folder(path: Path, mode: int, owner: pwd.struct_passwd | None) -> None:
    """``path`` exists with ``mode`` and the owner (root when None)."""
    path.mkdir(parents=True, exist_ok=True)
    uid, gid = (owner.pw_uid, owner.pw_gid) if owner else (0, 0)
    os.chown(path, uid, gid)
    path.chmod(mode)
    _say(f"{path} {oct(mode)[2:]} {owner.pw_name if owner else 'root'}")


def give_tree(path: Path, owner: pwd.struct_passwd) -> None:
    """Everything under ``path`` belongs to ``owner`` (the clone, written by releases)."""
    for folder, dirs, files in os.walk(path):
        for name in (folder, *(os.path.join(folder, entry) for entry in dirs + files)):
            os.lchown(name, owner.pw_uid, owner.pw_gid)


def as_user(user: pwd.struct_passwd, command: list[str], cwd: Path) -> None:
    """Run ``command`` as the site's user, with its own home (pip's cache, Reflex's tools)."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": user.pw_dir,
        "LANG": "C.UTF-8",
    }
    env |= {key: value for key, value in os.environ.items() if key.startswith("PIP_")}
    _run(["runuser", "-u", user.pw_name, "--", *command], cwd=cwd, env=env)


def prepare(args: argparse.Namespace) -> None:
    """Every step, in order (module docstring)."""
    if os.geteuid() != 0:
        raise SystemExit("prepare_host: run it as root (sudo python3 scripts/prepare_host.py).")
    root, app = args.root.resolve(), args.app_dir.resolve()
    if not (app / REQUIREMENTS).is_file():
        raise SystemExit(f"prepare_host: {app} is not a clone of the site (no {REQUIREMENTS}).")
    if args.apt:
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        _run(["apt-get", "install", "-y", *packages(args.server, args.databases)], env=env)
    data, backups = _under(root, args.data_dir), _under(root, args.backup_dir)
    user = ensure_user(args.user, data)
    ensure_folder(data, 0o700, user)
    ensure_folder(backups, 0o700, user)
    ensure_folder(_under(root, args.static_root).parent, 0o755, None)
    ensure_folder(_under(root, CONF_DIR), 0o755, None)
    give_tree(app, user)
    app.chmod(0o755)
    venv = app / ".venv"
    if not (venv / "bin" / "python").exists():
        as_user(user, [sys.executable, "-m", "venv", str(venv)], cwd=app)
    as_user(user, [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet",
                   "--disable-pip-version-check", "--require-hashes", "-r", REQUIREMENTS],
            cwd=app)  # fmt: skip
    env_file = app / ".env"
    if not env_file.exists():
        shutil.copyfile(app / ".env.example", env_file)
        os.chown(env_file, user.pw_uid, user.pw_gid)
        env_file.chmod(0o600)
        _say(f"{env_file} written from .env.example: set its values (docs/deploy.md)")
    _say("done")


def parser() -> argparse.ArgumentParser:
    """The command line; paths default to the DEPLOY_* variables, else the site's defaults."""
    env = {key: os.environ.get(f"DEPLOY_{key.upper()}", "").strip() for key in DEFAULTS}
    value = {key: env[key] or default for key, default in DEFAULTS.items()}
    cli = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    cli.add_argument("--server", choices=sorted(WEB_SERVER_PACKAGES), default="caddy",
                     help="the web server to install (none on a backend-only host)")  # fmt: skip
    cli.add_argument("--no-apt", dest="apt", action="store_false", help="install no package")
    cli.add_argument("--no-databases", dest="databases", action="store_false",
                     help="no PostgreSQL and Redis (they run on another host)")  # fmt: skip
    cli.add_argument("--user", default=value["user"], help="DEPLOY_USER")
    cli.add_argument("--data-dir", default=value["data_dir"], help="DEPLOY_DATA_DIR")
    cli.add_argument("--backup-dir", default=value["backup_dir"], help="DEPLOY_BACKUP_DIR")
    cli.add_argument("--static-root", default=value["static_root"], help="DEPLOY_STATIC_ROOT")
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
