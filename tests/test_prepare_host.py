"""docs/deploy.md "Fresh Debian VPS", run on this machine: the doc's own commands, with the
system paths moved under a temporary folder, a throwaway system user instead of
``agency``, a local copy of this repository as the one cloned, and no package installed
(``--no-apt``; the package names are checked with ``apt-get --simulate``).

Needs root (``useradd``, ``runuser``, ``chown``); the user and the folder are removed at
the end. Takes about 20 s: it creates a venv and installs the hash-locked
requirements-postgres.txt into it as that user.
"""

import grp
import hashlib
import json
import os
import pwd
import re
import resource
import shutil
import stat
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from agency_site.deploy import nginx
from agency_site.deploy.release import copy_export
from agency_site.deploy.topology import from_settings
from agency_site.settings import load_settings
from agency_site.web_base.security_headers import with_page_policy
from scripts import prepare_host
from tests.conftest import unavailable
from tests.test_deploy_docs import command, env_values

ROOT = Path(__file__).resolve().parents[1]
REPOSITORY = "https://git.example.es/agency/agency_site.git"
SYSTEM_PATHS = ("/srv/agency_site", "/var/lib/agency_site", "/var/backups/agency_site",
                "/etc/agency_site", "/etc/caddy", "/etc/nginx", "/etc/systemd/system", "/etc/nftables.d",
                "/root/host-b")  # fmt: skip
# The test's origin is a folder of root's; git refuses other users' repositories unless told.
GIT_TRUSTS_ALL = {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "safe.directory",
                  "GIT_CONFIG_VALUE_0": "*"}  # fmt: skip
SYSTEM_PYTHON = "/usr/bin/python3"
# Debian 12's /etc/nginx/nginx.conf as its nginx-common package ships it (a test keeps it
# equal to the installed package's), put on the test's host as `apt-get install nginx` does.
DEBIAN_NGINX_CONF = ROOT / "tests/data/debian-nginx.conf"
# Debian's nginx prefix (the modules-enabled files name modules relative to it).
DEBIAN_NGINX_PREFIX = "/usr/share/nginx"


@dataclass
class Host:
    base: Path  # stands for "/"
    user: str
    origin: Path

    @property
    def app(self) -> Path:
        return self.base / "srv/agency_site/app"

    def path(self, system_path: str) -> Path:
        return self.base / system_path.lstrip("/")

    def localized(self, text: str) -> str:
        """The doc's command for this folder, user and origin (sudo: we are root already)."""
        paths = "|".join(map(re.escape, SYSTEM_PATHS))
        text = re.sub(rf"(?<![\w/])({paths})(?![\w])", lambda m: f"{self.base}{m[1]}", text)
        text = text.replace(REPOSITORY, str(self.origin))
        text = text.replace("sudo -u agency ", f"runuser -u {self.user} -- ")
        if "sudo -u postgres " in text:
            text = re.sub(r"\bagency\b(?![-_])", self.user, text)
            text = text.replace("sudo -u postgres ", "runuser -u postgres -- ")
        text = text.replace("sudo python3 ", f"{SYSTEM_PYTHON} ")
        text = re.sub(r"sudo ([A-Z_]+=\S+ )", r"env \1", text)
        text = text.replace("sudo ", "")
        if "prepare_host.py" in text:
            text += f" --no-apt --user {self.user} --root {self.base}"
        return text

    def run(self, first_line: str, env: dict | None = None, **kwargs):
        """Run the doc's command that starts with ``first_line``; its output."""
        result = subprocess.run(
            ["bash", "-euo", "pipefail", "-c", self.localized(command(first_line))],
            env={**os.environ, **GIT_TRUSTS_ALL, **(env or {})},
            capture_output=True,
            text=True,
            timeout=600,
            **kwargs,
        )
        assert result.returncode == 0, f"{first_line}\n{result.stdout}\n{result.stderr}"
        return result.stdout

    def as_user(self, *args: str, env: dict | None = None) -> str:
        result = subprocess.run(
            ["runuser", "-u", self.user, "--", *args],
            cwd=self.app,
            env={**os.environ, **(env or {})},
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert result.returncode == 0, result.stderr
        return result.stdout


def _mode_owner(path: Path) -> tuple[str, str]:
    stat = path.stat()
    return oct(stat.st_mode & 0o7777), pwd.getpwuid(stat.st_uid).pw_name


@pytest.fixture(scope="module")
def host() -> Iterator[Host]:
    """A temporary "/" with a bare copy of this repository as the one to clone, and the
    name of a throwaway system user (removed at the end, with the folder)."""
    if os.geteuid() != 0 or not shutil.which("useradd") or not shutil.which("runuser"):
        unavailable("prepares a host: needs root, useradd and runuser (CI runs as root)")
    base = Path(tempfile.mkdtemp(prefix="agency-host-"))
    base.chmod(0o755)  # The throwaway user must reach its folders.
    user = f"agtest{os.getpid()}"
    origin = base / "origin.git"
    subprocess.run(["git", "clone", "--quiet", "--bare", str(ROOT), str(origin)], check=True)
    (base / "etc/nginx").mkdir(parents=True)
    shutil.copy(DEBIAN_NGINX_CONF, base / "etc/nginx/nginx.conf")
    try:
        yield Host(base, user, origin)
    finally:
        subprocess.run(["userdel", user], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def prepared(host: Host) -> tuple[Host, str]:
    """The clone and the first run of prepare_host.py, as the doc says; its output."""
    host.run(f"sudo git clone {REPOSITORY} /srv/agency_site/app")
    return host, host.run("sudo python3 /srv/agency_site/app/scripts/prepare_host.py")


def test_a_fresh_host_is_prepared_as_the_doc_says(prepared: tuple[Host, str]) -> None:
    host, output = prepared
    user = pwd.getpwnam(host.user)
    assert user.pw_uid < 1000 and user.pw_shell.endswith("nologin")
    assert user.pw_dir == str(host.path("/var/lib/agency_site"))
    assert "useradd --system" in output
    assert _mode_owner(host.path("/var/lib/agency_site")) == ("0o700", host.user)
    assert _mode_owner(host.path("/var/backups/agency_site")) == ("0o700", host.user)
    assert _mode_owner(host.path("/srv/agency_site")) == ("0o755", "root")
    assert _mode_owner(host.path("/etc/agency_site")) == ("0o755", "root")
    # The web server writes its access log, the site's user reads it (the nightly report).
    log = host.path("/var/log/agency_site/access.log")
    assert _mode_owner(log)[0] == "0o640" and _mode_owner(log.parent)[0] == "0o750"
    assert grp.getgrgid(log.stat().st_gid).gr_name == host.user
    # The clone and its venv are root's (root runs them); the user writes .web/ only.
    assert _mode_owner(host.app) == ("0o755", "root")
    assert _mode_owner(host.app / "scripts/prepare_host.py")[1] == "root"
    assert _mode_owner(host.app / ".web") == ("0o700", host.user)
    assert_env_file_is_roots(host)
    example = (host.app / ".env.example").read_text()
    env = (host.app / ".env").read_text()
    secret = re.search(r"^BOOKING_LINK_SECRET=(\S{32,})$", env, re.MULTILINE)[1]
    written = prepare_host.env_text(example, "/var/lib/agency_site", secret)
    assert env == written
    assert "LEADS_SPOOL_DIR=/var/lib/agency_site/spool\n" in written
    # The venv is root's and has the locked packages, the PostgreSQL driver included.
    assert _mode_owner(host.app / ".venv/pyvenv.cfg")[1] == "root"
    versions = host.as_user(
        ".venv/bin/python",
        "-c",
        "import importlib.metadata as m, agency_site.settings, psycopg; "
        "print(m.version('reflex'), m.version('psycopg'))",
    )
    locked = (host.app / "requirements-postgres.txt").read_text()
    reflex, psycopg = versions.split()
    # A pin keeps its extras (reflex[db]==..., psycopg[binary]==...: scripts/lock.py).
    for name, version in (("reflex", reflex), ("psycopg", psycopg)):
        assert re.search(rf"^{name}(\[[^\]]*\])?=={re.escape(version)} ", locked, re.M), name


def assert_env_file_is_roots(host: Host) -> None:
    """.env: root's (the release reads it as root), readable by the user's group only."""
    env_file = host.app / ".env"
    assert _mode_owner(env_file) == ("0o640", "root")
    assert grp.getgrgid(env_file.stat().st_gid).gr_name == host.user


# Run as the site's user: tries to create a file in each folder, or to open each file for
# writing; prints "writable" or "denied" for each.
TRY_WRITING = """
import os, sys
for path in sys.argv[1:]:
    try:
        if os.path.isdir(path):
            name = os.path.join(path, ".write-probe")
            os.close(os.open(name, os.O_CREAT | os.O_WRONLY, 0o600))
            os.unlink(name)
        else:
            os.close(os.open(path, os.O_WRONLY | os.O_APPEND))
        print("writable", path)
    except OSError:
        print("denied", path)
"""


def assert_the_user_writes_only_its_folders(host: Host) -> None:
    app = host.app
    site_packages = next((app / ".venv/lib").glob("python3*/site-packages"))
    denied = [app, app / "agency_site", app / "agency_site/leads/runtime.py", app / "data",
              app / "scripts", app / "alembic", app / ".env", app / ".venv", app / ".venv/bin",
              app / ".venv/bin/reflex", app / ".venv/pyvenv.cfg", site_packages,
              site_packages / "reflex", site_packages / "reflex/__init__.py"]  # fmt: skip
    # reflex.lock/: Reflex copies its package lockfiles back there on every export (as the user).
    allowed = [host.path("/var/lib/agency_site"), app / ".web", app / "reflex.lock"]
    output = host.as_user(SYSTEM_PYTHON, "-c", TRY_WRITING, *map(str, denied + allowed))
    expected = [f"denied {path}" for path in denied] + [f"writable {path}" for path in allowed]
    assert output.splitlines() == expected
    # Nothing else of the clone is the user's, nor writable by its group or by anyone.
    user = pwd.getpwnam(host.user)
    for folder, dirs, files in os.walk(app):
        if Path(folder) == app:
            dirs[:] = [entry for entry in dirs if entry not in prepare_host.USER_FOLDERS]
        for name in (folder, *(os.path.join(folder, entry) for entry in dirs + files)):
            info = os.lstat(name)
            if stat.S_ISLNK(info.st_mode):
                continue
            assert info.st_uid == 0, name
            assert not info.st_mode & 0o002, name
            assert not (info.st_gid == user.pw_gid and info.st_mode & 0o020), name


def test_the_site_user_writes_only_the_data_folder_and_web(prepared: tuple[Host, str]) -> None:
    """The release runs the clone's code and .venv as root: a service user (a backend
    taken over) able to change them would become root at the next release."""
    host, _ = prepared
    assert_the_user_writes_only_its_folders(host)


def test_a_second_run_changes_nothing_that_is_right(prepared: tuple[Host, str]) -> None:
    host, _ = prepared
    env_file = host.app / ".env"
    env_file.write_text(env_file.read_text() + "AGENCY_NAME=Kept\n")
    venv = (host.app / ".venv/pyvenv.cfg").stat()
    # A host prepared before the clone was root's: the clone, its venv and .env the user's.
    user = pwd.getpwnam(host.user)
    for folder, dirs, files in os.walk(host.app):
        for name in (folder, *(os.path.join(folder, entry) for entry in dirs + files)):
            os.lchown(name, user.pw_uid, user.pw_gid)
    env_file.chmod(0o600)
    output = host.run("sudo python3 /srv/agency_site/app/scripts/prepare_host.py")
    assert "useradd" not in output and "-m venv" not in output and "WARNING" not in output
    assert "worker_connections" not in output  # Debian's nginx.conf has the limits already.
    assert env_file.read_text().endswith("AGENCY_NAME=Kept\n")
    assert_env_file_is_roots(host)
    assert (host.app / ".venv/pyvenv.cfg").stat().st_mtime_ns == venv.st_mtime_ns
    assert _mode_owner(host.path("/var/lib/agency_site")) == ("0o700", host.user)
    assert_the_user_writes_only_its_folders(host)


def test_nginx_by_default_with_certbot_its_renewal_hook_and_challenge_folder(
    prepared: tuple[Host, str],
) -> None:
    """The default web server is nginx, with Debian's certbot and its nginx plugin: the
    challenge folder, the hook that reloads nginx after each renewal (certbot.timer runs
    `certbot renew`), and the server recorded for `deploy release`."""
    host, output = prepared
    assert {"nginx", "certbot", "python3-certbot-nginx"} <= set(
        prepare_host.packages(prepare_host.DEFAULT_SERVER, databases=True)
    )
    assert f"{host.path(prepare_host.SERVER_FILE)}: nginx" in output
    hook = host.path(prepare_host.CERTBOT_HOOK)
    assert f"{hook} written" in output
    assert hook.read_text() == prepare_host.certbot_hook()
    assert "\nexec systemctl reload nginx\n" in hook.read_text()
    assert _mode_owner(hook) == ("0o755", "root")
    subprocess.run(["bash", "-n", str(hook)], check=True)  # Its syntax (sh is a subset).
    assert _mode_owner(host.path(prepare_host.ACME_WEBROOT)) == ("0o755", "root")
    assert "caddy.service.d" not in output
    # Debian's nginx.conf has the stack's connections per worker, its one line changed.
    conf = host.path(prepare_host.NGINX_CONF)
    assert f"{conf}: worker_connections {nginx.WORKER_CONNECTIONS}" in output
    assert _changed_lines(DEBIAN_NGINX_CONF.read_text(), conf.read_text()) == [
        (
            "\tworker_connections 768;",
            f"\tworker_connections {nginx.WORKER_CONNECTIONS}; # scripts/prepare_host.py",
        )
    ]
    drop_in = host.path(prepare_host.NGINX_LIMITS_DROP_IN)
    assert f"\nworker_rlimit_nofile {nginx.WORKER_OPEN_FILES};\n" in drop_in.read_text()
    assert _mode_owner(conf) == _mode_owner(drop_in) == ("0o644", "root")


def _changed_lines(before: str, after: str) -> list[tuple[str, str]]:
    old, new = before.splitlines(), after.splitlines()
    assert len(old) == len(new)
    return [(a, b) for a, b in zip(old, new, strict=True) if a != b]


def test_the_copy_of_debians_nginx_conf_is_debians() -> None:
    """tests/data/debian-nginx.conf is the file Debian's nginx-common installs (dpkg's sum)."""
    result = subprocess.run(["dpkg-query", "-W", "-f=${Conffiles}", "nginx-common"],
                            capture_output=True, text=True)  # fmt: skip
    sums = dict(line.split()[:2] for line in result.stdout.splitlines() if line.strip())
    if prepare_host.NGINX_CONF not in sums:
        unavailable("Debian's nginx-common is not installed (apt-get install nginx)")
    assert hashlib.md5(DEBIAN_NGINX_CONF.read_bytes()).hexdigest() == sums[prepare_host.NGINX_CONF]


def _nginx_host(tmp_path: Path) -> Path:
    """A "/" holding Debian's nginx.conf, as `apt-get install nginx` leaves it."""
    if os.geteuid() != 0:
        unavailable("writes root's nginx configuration: needs root (CI runs as root)")
    (tmp_path / "etc/nginx").mkdir(parents=True)
    shutil.copy(DEBIAN_NGINX_CONF, tmp_path / "etc/nginx/nginx.conf")
    return tmp_path


def _moved_conf(root: Path) -> Path:
    """The host's nginx.conf with what it includes and writes moved under ``root``."""
    conf = (root / "etc/nginx/nginx.conf").read_text()
    conf = re.sub(
        r"/etc/nginx/(modules-enabled|conf\.d|sites-enabled)/", rf"{root}/etc/nginx/\1/", conf
    )
    conf = re.sub(r"^pid .*$", f"pid {root}/nginx.pid;", conf, flags=re.M)
    conf = re.sub(r"^error_log .*$", f"error_log {root}/error.log info;", conf, flags=re.M)
    conf = conf.replace("/var/log/nginx/access.log", f"{root}/access.log")
    moved = root / "nginx-test.conf"
    moved.write_text(conf)
    return moved


def test_debians_nginx_gets_the_stacks_limits_and_runs_with_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Debian's nginx.conf, prepared: the real nginx accepts it with the rendered site, and
    its workers run with the stack's connections and open files (started with the 1,024 open
    files of a systemd service's default soft limit); a second run changes nothing."""
    if not shutil.which("nginx"):
        unavailable("nginx is not installed (apt-get install nginx)")
    root = _nginx_host(tmp_path)
    # The modules Debian's packages enabled (the site's brotli_static), beside the drop-in.
    shutil.copytree("/etc/nginx/modules-enabled", root / "etc/nginx/modules-enabled", symlinks=True)
    prepare_host.ensure_nginx_limits(root)
    conf = root / "etc/nginx/nginx.conf"
    files = [conf, root / prepare_host.NGINX_LIMITS_DROP_IN.lstrip("/")]
    written = [(path.read_text(), path.stat().st_mtime_ns) for path in files]
    prepare_host.ensure_nginx_limits(root)  # A second run changes nothing.
    assert [(path.read_text(), path.stat().st_mtime_ns) for path in files] == written
    # The rendered site beside it, as docs/deploy.md links it into sites-enabled.
    monkeypatch.setenv("REFLEX_DEPLOY_URL", "http://localhost:8080")
    monkeypatch.setenv("DEPLOY_ACCESS_LOG", str(root / "site-access.log"))
    (root / "etc/nginx/sites-enabled").mkdir()
    site = root / "etc/nginx/sites-enabled/agency_site"
    site.write_text(nginx.server_block(from_settings(load_settings(), static_root=str(root))))
    moved = _moved_conf(root)
    result = subprocess.run(["nginx", "-t", "-c", str(moved), "-p", DEBIAN_NGINX_PREFIX],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 0, result.stderr[-2000:]
    site.unlink()  # Run without listening on a port: the limits are the main context's.

    def few_open_files() -> None:
        resource.setrlimit(
            resource.RLIMIT_NOFILE, (1024, resource.getrlimit(resource.RLIMIT_NOFILE)[1])
        )

    server = subprocess.Popen(["nginx", "-c", str(moved), "-p", DEBIAN_NGINX_PREFIX, "-g", "daemon off;"],
                              preexec_fn=few_open_files)  # fmt: skip
    try:
        # A worker sets its limit as it starts, after the master forked it. Above the hard
        # limit that needs CAP_SYS_RESOURCE (a host's root has it; systemd gives nginx.service
        # 524,288): a container without it shows the attempt in the error log instead.
        hard = resource.getrlimit(resource.RLIMIT_NOFILE)[1]
        can_raise = hard == resource.RLIM_INFINITY or hard >= nginx.WORKER_OPEN_FILES
        refused = f"setrlimit(RLIMIT_NOFILE, {nginx.WORKER_OPEN_FILES}) failed (1: Operation"
        deadline = time.monotonic() + 10
        while not (
            _workers_open_files(server.pid) == {nginx.WORKER_OPEN_FILES}
            if can_raise
            else refused in (root / "error.log").read_text()
        ):
            assert time.monotonic() < deadline and server.poll() is None, (
                _workers_open_files(server.pid),
                hard,
            )
            time.sleep(0.05)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert "exceed open file resource limit" not in (root / "error.log").read_text()


def _workers_open_files(master: int) -> set[int]:
    """The soft open-files limits of ``master``'s worker processes."""
    children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
    limits = [Path(f"/proc/{child}/limits").read_text() for child in children]
    return {int(re.search(r"^Max open files\s+(\d+)", text, re.M)[1]) for text in limits}


_OTHER_LINES = st.lists(
    st.text(st.characters(codec="utf-8", exclude_characters="\r\n"), max_size=30).filter(
        lambda line: "worker_connections" not in line
    ),
    max_size=3,
)


@given(before=_OTHER_LINES, after=_OTHER_LINES)
def test_only_debians_worker_connections_line_changes_and_once(before, after) -> None:
    """Whatever else the file holds: one line changes, and a second run changes nothing."""
    debian = DEBIAN_NGINX_CONF.read_text()
    text = "".join(f"{line}\n" for line in before) + debian + "".join(f"{line}\n" for line in after)
    path = Path("/etc/nginx/nginx.conf")
    once = prepare_host.limited_nginx_conf(text, path)
    assert len(_changed_lines(text, once)) == 1
    assert prepare_host.limited_nginx_conf(once, path) == once


@pytest.mark.parametrize(
    "edit",
    [
        lambda text: text.replace("\tworker_connections 768;\n", ""),
        lambda text: text.replace("worker_connections 768;", "worker_connections 1024;"),
        lambda text: text.replace("\tworker_connections 768;", "    worker_connections 768;"),
        lambda text: text.replace("\tworker_connections 768;\n", "\tworker_connections 768;\n" * 2),
    ],
    ids=["removed", "another-value", "spaces", "twice"],
)
def test_a_changed_debian_nginx_conf_stops_the_script_naming_it(tmp_path: Path, edit) -> None:
    """Not Debian's line exactly once: nothing guessed, nothing written, the file named."""
    root = _nginx_host(tmp_path)
    conf = root / "etc/nginx/nginx.conf"
    conf.write_text(edit(conf.read_text()))
    before = conf.read_text()
    with pytest.raises(
        SystemExit, match=rf"{re.escape(str(conf))} has [02] lines 'worker_connections 768;'"
    ):
        prepare_host.ensure_nginx_limits(root)
    assert conf.read_text() == before
    assert not (root / prepare_host.NGINX_LIMITS_DROP_IN.lstrip("/")).exists()
    conf.unlink()
    with pytest.raises(SystemExit, match=rf"{re.escape(str(conf))} is missing"):
        prepare_host.ensure_nginx_limits(root)


def test_caddy_gets_the_sites_go_runtime_settings_once_and_keeps_caddy(
    prepared: tuple[Host, str],
) -> None:
    """--server caddy: Debian's caddy.service gets GOGC=400 in a drop-in, written once; the
    host keeps Caddy on later runs that name no server (the doc's update), and the release
    reads it."""
    from agency_site.deploy.__main__ import _parser, web_server

    host, _ = prepared
    output = host.run("sudo python3 /srv/agency_site/app/scripts/prepare_host.py --server caddy")
    drop_in = host.path(prepare_host.CADDY_DROP_IN)
    assert f"{drop_in} written: GOGC=400" in output
    assert drop_in.read_text().splitlines()[1:] == ["[Service]", "Environment=GOGC=400"]
    assert _mode_owner(drop_in) == ("0o644", "root")
    again = host.run("sudo python3 /srv/agency_site/app/scripts/prepare_host.py --no-apt")
    assert "caddy.service.d" not in again and "certbot" not in again
    assert host.path(prepare_host.SERVER_FILE).read_text() == "caddy\n"
    conf_dir = str(host.path("/etc/agency_site"))
    assert web_server(_parser().parse_args(["release", "--conf-dir", conf_dir])) == "caddy"
    # A host prepared for Caddy before the server was recorded is still Caddy's.
    host.path(prepare_host.SERVER_FILE).unlink()
    assert prepare_host.previous_server(host.base) == "caddy"


def test_the_caddy_drop_in_is_a_unit_file_systemd_reads(tmp_path: Path) -> None:
    """Parsed as systemd parses a unit: one [Service] section, each setting an Environment."""
    import configparser

    unit = configparser.ConfigParser(strict=False, interpolation=None)
    unit.read_string(prepare_host.caddy_drop_in())
    assert unit.sections() == ["Service"]
    assert dict(unit["Service"]) == {"environment": "GOGC=400"}
    prepare_host.ensure_caddy_drop_in(tmp_path)  # Not "/": no systemctl.
    written = tmp_path / prepare_host.CADDY_DROP_IN.lstrip("/")
    assert written.read_text() == prepare_host.caddy_drop_in()


def test_an_env_file_without_write_paths_is_named_not_changed() -> None:
    example = (ROOT / ".env.example").read_text()
    assert prepare_host.missing_write_paths(example) == list(prepare_host.write_paths(""))
    new = prepare_host.env_text(example, "/var/lib/agency_site")
    assert prepare_host.missing_write_paths(new) == []
    assert prepare_host.missing_write_paths("export LEADS_SPOOL_DIR=/x\n# LEADS_ERASURE_LOG=/y\n") == [
        "REFLEX_DB_URL", "LEADS_ERASURE_LOG"]  # fmt: skip


def test_a_new_env_file_gets_the_links_secret_the_backends_already_keep(tmp_path: Path) -> None:
    """So the links mailed while .env had none keep working; else a new one."""
    from agency_site.bookings import link_secret

    assert prepare_host.LINK_SECRET_FILE == link_secret.FILE_NAME
    kept = "k" * 43
    (tmp_path / prepare_host.LINK_SECRET_FILE).write_text(kept + "\n")
    assert prepare_host.link_secret(tmp_path) == kept
    new = {prepare_host.link_secret(tmp_path / "none") for _ in range(3)}
    assert len(new) == 3 and all(len(secret) >= 32 and "," not in secret for secret in new)
    (tmp_path / prepare_host.LINK_SECRET_FILE).write_text("short\n")
    assert prepare_host.link_secret(tmp_path) != "short"
    text = prepare_host.env_text("# BOOKING_LINK_SECRET=\n", "/d", kept)
    assert "BOOKING_LINK_SECRET" in prepare_host.names_set(text)
    assert f"\nBOOKING_LINK_SECRET={kept}\n" in text
    assert "BOOKING_LINK_SECRET" not in prepare_host.names_set("# BOOKING_LINK_SECRET=x\n")


def test_an_env_file_without_a_links_secret_gets_the_kept_one_at_its_end(
    prepared: tuple[Host, str],
) -> None:
    """A host set up before: its backends made and kept a secret; prepare_host.py writes
    that one into .env, changing no line of it."""
    host, _ = prepared
    env_file = host.app / ".env"
    before = env_file.read_text()
    without = "".join(
        line for line in before.splitlines(keepends=True)
        if not line.startswith("BOOKING_LINK_SECRET=")
    )  # fmt: skip
    env_file.write_text(without)
    kept = host.path("/var/lib/agency_site") / prepare_host.LINK_SECRET_FILE
    kept.write_text("q" * 43 + "\n")
    try:
        output = host.run("sudo python3 /srv/agency_site/app/scripts/prepare_host.py --no-apt")
        after = env_file.read_text()
        assert after.startswith(without) and after.endswith(
            "\nBOOKING_LINK_SECRET=" + "q" * 43 + "\n"
        )
        assert "BOOKING_LINK_SECRET added" in output and "q" * 43 not in output
        assert_env_file_is_roots(host)
    finally:
        env_file.write_text(before)
        kept.unlink()


def test_the_release_copies_links_of_the_users_export_as_links(tmp_path: Path) -> None:
    """Root copies the export the user wrote: a link to a file the user cannot read
    must not become a copy of that file in the served folder."""
    client = tmp_path / "app/.web/build/client"
    client.mkdir(parents=True)
    (client / "index.html").write_text("<html></html>")
    secret = tmp_path / "root-only"
    secret.write_text("secret")
    (client / "leak.txt").symlink_to(secret)
    copy_export(tmp_path / "app", tmp_path / "release")
    assert (tmp_path / "release/index.html").read_text() == "<html></html>"
    assert (tmp_path / "release/leak.txt").is_symlink()


def test_the_env_values_of_the_doc_load(prepared: tuple[Host, str]) -> None:
    host, _ = prepared
    env_file = host.app / ".env"
    before = env_file.read_text()
    values = env_values()
    env_file.write_text(before + "".join(f"{key}={value}\n" for key, value in values.items()))
    clean = {key: value for key, value in os.environ.items() if not key.startswith(
        ("REFLEX_", "DEPLOY_", "EMAILJS_", "AGENCY_", "LEADS_", "GRANIAN_"))}  # fmt: skip
    try:
        result = subprocess.run(
            ["runuser", "-u", host.user, "--", ".venv/bin/python", "-c",
             "import json, os\n"
             "from agency_site.settings import get_settings\n"
             "s = get_settings()\n"
             f"keys = {sorted(values)!r}\n"
             "print(json.dumps({'env': {k: os.environ[k] for k in keys}, 'url': s.site_url,"
             " 'hops': s.reflex.trusted_proxy_hops, 'backends': s.deploy.backend_addresses,"
             " 'db': s.reflex.db_url.get_secret_value()}))"],
            cwd=host.app, env=clean, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        env_file.write_text(before)
    assert result.returncode == 0, result.stderr
    loaded = json.loads(result.stdout)
    assert loaded["env"] == values
    assert loaded["url"] == "https://www.example.es" and loaded["hops"] == 1
    assert loaded["backends"] == ["127.0.0.1:8001", "127.0.0.1:8002"]
    assert loaded["db"] == values["REFLEX_DB_URL"]


def test_the_packages_exist() -> None:
    """The doc's and prepare_host.py's package names, resolved by apt (nothing installed)."""
    if not shutil.which("apt-get"):
        unavailable("apt-get is not installed (not a Debian machine)")
    lines = ("sudo apt-get install -y git python3-venv", "sudo apt-get install -y nftables")
    names = [name for line in lines for name in command(line).split()[4:]]
    for server in prepare_host.WEB_SERVER_PACKAGES:
        names += prepare_host.packages(server, databases=True)
    result = subprocess.run(
        ["apt-get", "install", "--simulate", "-y", *sorted(set(names))],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr


def test_the_database_and_its_user(host: Host, postgres_server) -> None:
    """`sudo -u postgres createuser/createdb` against the tests' throwaway cluster."""
    from scripts.local_servers import PG_USER

    if not (postgres_server.folder / "run").is_dir():
        unavailable("an external PostgreSQL (TEST_DATABASE_URL): no local superuser socket")
    env = {"PGHOST": str(postgres_server.folder / "run"), "PGPORT": str(postgres_server.port),
           "PGUSER": PG_USER}  # fmt: skip
    host.run("sudo -u postgres createuser --pwprompt agency", env=env, input="pw-1\npw-1\n")
    host.run("sudo -u postgres createdb --owner agency agency", env=env)
    owner = subprocess.run(
        ["runuser", "-u", "postgres", "--", "psql", "-tAc",
         f"SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = '{host.user}'"],
        env={**os.environ, **env}, capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    assert owner == host.user
    subprocess.run(["runuser", "-u", "postgres", "--", "bash", "-c",
                    f"dropdb {host.user} && dropuser {host.user}"],
                   env={**os.environ, **env}, check=True)  # fmt: skip


def test_the_web_server_file_points_at_the_rendered_one(host: Host) -> None:
    host.path("/etc/caddy").mkdir(parents=True, exist_ok=True)  # Debian's caddy package
    host.run("sudo ln -sf /etc/agency_site/Caddyfile /etc/caddy/Caddyfile")
    link = host.path("/etc/caddy/Caddyfile")
    assert os.readlink(link) == str(host.path("/etc/agency_site/Caddyfile"))
    host.path("/etc/nginx/sites-enabled").mkdir(parents=True, exist_ok=True)  # Debian's nginx
    host.run(
        "sudo ln -sf /etc/agency_site/nginx-agency_site.conf /etc/nginx/sites-enabled/agency_site"
    )
    link = host.path("/etc/nginx/sites-enabled/agency_site")
    assert os.readlink(link) == str(host.path("/etc/agency_site/nginx-agency_site.conf"))


def test_a_backup_by_hand(prepared: tuple[Host, str]) -> None:
    host, _ = prepared
    database = host.path("/var/lib/agency_site") / "reflex.db"
    host.as_user(".venv/bin/python", "-c",
                 f"import sqlite3; sqlite3.connect({str(database)!r}).execute('CREATE TABLE t (x)')")  # fmt: skip
    host.run(
        "cd /srv/agency_site/app && sudo -u agency .venv/bin/python -m agency_site.deploy backup "
        "--out /var/backups/agency_site --keep 14",
        env={"REFLEX_DB_URL": f"sqlite:///{database}"},
    )
    (backup,) = host.path("/var/backups/agency_site").glob("leads-*.sqlite3")
    assert _mode_owner(backup) == ("0o600", host.user)


def test_an_update(prepared: tuple[Host, str]) -> None:
    host, _ = prepared
    git = ["git", "-C", str(host.origin)]
    tree = subprocess.run([*git, "rev-parse", "HEAD^{tree}"], capture_output=True, text=True,
                          check=True).stdout.strip()  # fmt: skip
    new = subprocess.run([*git, "commit-tree", tree, "-p", "HEAD", "-m", "an update"],
                         capture_output=True, text=True, check=True,
                         env={**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t",
                              "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@t"},
                         ).stdout.strip()  # fmt: skip
    branch = subprocess.run([*git, "symbolic-ref", "HEAD"], capture_output=True, text=True,
                            check=True).stdout.strip()  # fmt: skip
    subprocess.run([*git, "update-ref", branch, new], check=True)
    # Pulled as root: the clone is root's.
    host.run("cd /srv/agency_site/app && sudo git pull --ff-only")
    head = host.as_user("git", "rev-parse", "HEAD", env=GIT_TRUSTS_ALL).strip()
    assert head == new
    host.run("sudo python3 /srv/agency_site/app/scripts/prepare_host.py --no-apt")
    assert_the_user_writes_only_its_folders(host)


def test_the_second_hosts_unit(prepared: tuple[Host, str]) -> None:
    """The backend unit of a second host listens on its private address."""
    host, _ = prepared
    static_root = host.path("/srv/agency_site/frontend")
    static_root.mkdir(exist_ok=True)
    (static_root / "index.html").write_text(
        with_page_policy("<html><head></head></html>", "https://x", "https://x")
    )
    host.run(
        "cd /srv/agency_site/app && sudo DEPLOY_BACKEND_HOST=10.0.0.6 .venv/bin/python -m "
        "agency_site.deploy render --out /root/host-b",
        env={"DEPLOY_STATIC_ROOT": str(static_root)},
    )
    unit = host.path("/root/host-b/agency-backend@.service").read_text()
    assert "--backend-host 10.0.0.6 --backend-port %i" in unit


def test_the_firewall_rule(host: Host) -> None:
    """The doc's nftables file, written as it says and checked by nft (not loaded)."""
    if not shutil.which("nft"):
        unavailable("nft is not installed (apt-get install nftables)")
    host.run("sudo install -D -m 0644 /dev/stdin /etc/nftables.d/agency-backends.nft <<'NFT'")
    rules = host.path("/etc/nftables.d/agency-backends.nft")
    assert _mode_owner(rules) == ("0o644", "root")
    assert "tcp dport 8001-8002 ip saddr != 10.0.0.5 drop" in rules.read_text()
    host.run("sudo nft -c -f /etc/nftables.d/agency-backends.nft")


def test_the_defaults_are_the_sites() -> None:
    from agency_site.deploy import release
    from agency_site.deploy.topology import Topology
    from agency_site.settings import DeploySettings

    defaults = DeploySettings.model_fields
    for key, value in prepare_host.DEFAULTS.items():
        assert defaults[key].default == value, key
    assert Topology.__dataclass_fields__["acme_webroot"].default == prepare_host.ACME_WEBROOT
    assert f"{prepare_host.CONF_DIR}/{release.SERVER_FILE}" == prepare_host.SERVER_FILE
    assert prepare_host.DEFAULT_SERVER == release.DEFAULT_SERVER
    assert (prepare_host.WORKER_CONNECTIONS, prepare_host.WORKER_OPEN_FILES) == (
        nginx.WORKER_CONNECTIONS, nginx.WORKER_OPEN_FILES)  # fmt: skip
    assert set(release.SERVERS) == set(prepare_host.WEB_SERVER_PACKAGES) - {"none"}


def _root_only(tmp_path: Path) -> Path:
    """A file only root reads: what a planted link points at."""
    if os.geteuid() != 0:
        unavailable("plants links in folders of other users: needs root (CI runs as root)")
    target = tmp_path / "root-only"
    target.write_text("ROOT-ONLY-" + "s" * 40 + "\n")
    target.chmod(0o600)
    return target


@pytest.mark.parametrize("planted", ["symlink", "hardlink", "fifo"])
def test_the_access_log_is_never_followed_into_another_file(tmp_path: Path, planted) -> None:
    """The web server owns the log's folder: a link (or a FIFO) it put there as access.log
    is refused, and what it points at keeps its owner and mode."""
    target = _root_only(tmp_path)
    writer = pwd.getpwnam("caddy" if shutil.which("caddy") else "nobody")
    reader = pwd.getpwnam("nobody")
    folder = tmp_path / "log"
    folder.mkdir(mode=0o750)
    os.chown(folder, writer.pw_uid, reader.pw_gid)
    log = folder / "access.log"
    if planted == "symlink":
        log.symlink_to(target)
    elif planted == "hardlink":
        os.link(target, log)
    else:
        os.mkfifo(log)
    with pytest.raises(SystemExit, match=r"access\.log (is a symbolic link|has other hard links|is not a regular file)"):  # fmt: skip
        prepare_host.ensure_access_log(log, "caddy", reader)
    assert (target.stat().st_uid, stat.S_IMODE(target.stat().st_mode)) == (0, 0o600)
    # A plain file, or none, is made the writer's and the reader group's, 0640.
    log.unlink()
    prepare_host.ensure_access_log(log, "caddy", reader)
    prepare_host.ensure_access_log(log, "caddy", reader)  # A second run changes nothing.
    info = log.lstat()
    assert stat.S_ISREG(info.st_mode) and stat.S_IMODE(info.st_mode) == 0o640
    assert (info.st_gid, stat.S_IMODE(folder.stat().st_mode)) == (reader.pw_gid, 0o750)


def test_the_links_secret_is_never_read_through_a_link(tmp_path: Path) -> None:
    """The site's user owns the data folder: a booking-link-secret it made a link to a file
    of root's would copy that file into .env (which the user reads)."""
    target = _root_only(tmp_path)
    user = pwd.getpwnam("nobody")
    data = tmp_path / "data"
    data.mkdir(mode=0o700)
    os.chown(data, user.pw_uid, user.pw_gid)
    planted = data / prepare_host.LINK_SECRET_FILE
    planted.symlink_to(target)
    with pytest.raises(SystemExit, match="booking-link-secret is a symbolic link"):
        prepare_host.link_secret(data)
    planted.unlink()
    os.link(target, planted)  # A hard link to it: refused as well.
    with pytest.raises(SystemExit, match=r"booking-link-secret (belongs to uid 0|has other)"):
        prepare_host.link_secret(data)
    planted.unlink()
    kept = "k" * 43
    planted.write_text(kept)
    os.chown(planted, user.pw_uid, user.pw_gid)
    assert prepare_host.link_secret(data) == kept  # The user's own file: read.
