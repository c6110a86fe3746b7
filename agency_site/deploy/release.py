"""One release, checked, with rollback: ``python -m agency_site.deploy release``.

In order, stopping at the first failure:

1. **export** the frontend with the public URL baked in, into a new folder
   ``releases/<UTC time>/`` beside the static root (``DEPLOY_STATIC_ROOT``); the
   previous release's ``/assets/`` files are copied in too, so a tab opened on the
   previous release still loads the chunks it names;
2. **render** the web-server file and the units from that export (every page of it
   carries its own CSP in a ``<meta>``: ``agency_site/web_base/security_headers.py``) into
   a staging folder;
3. **validate** them with the web server itself (``caddy validate`` / ``nginx -t``);
4. **switch**: the static root is a symlink, replaced atomically (``rename``) to
   point at the new release, and the rendered files are installed;
5. **reload** the web server (it serves the new folder from then on);
6. **migrate** the leads database once;
7. **restart the backends one at a time**, each answering ``/ping`` before the next;
8. **smoke-check through the web server**: every route answers 200 with this
   release's page, every inline script of it is allowed by the page's own CSP, the short
   CSP header comes with it, a page
   hydrates in a browser with no CSP violation (Chromium through Playwright, when
   installed), ``/_health`` answers and a form's endpoint answers a bad submission
   with its page of field errors (nothing is stored). These checks, the backends' ``/ping``
   and ``ReleaseError`` are ``release_checks.py``'s.

A failure after the switch switches back (symlink, rendered files, reload) and says
why; nothing before the switch touches what is served. ``release --rollback``
returns to the release before the current one (checked the same way). The last
``keep`` releases are kept. The backends run the code of the checkout: a rollback
switches the site's files, not the Python code (``git checkout`` for that).
"""

import contextlib
import dataclasses
import datetime as dt
import fcntl
import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agency_site.deploy import caddy, nginx
from agency_site.deploy.release_checks import ReleaseError, log, smoke_check, wait_for_ping
from agency_site.deploy.topology import from_settings
from agency_site.paths import PING
from agency_site.settings import get_settings
from agency_site.web_base.security_headers import policy_of_page

RELEASES = "releases"
STAMP = "%Y%m%dT%H%M%S.%fZ"
# The web servers a release renders, validates and reloads. nginx by default: on a 2-core
# box it held the load target (10,000 readers + 400 bookings in 20 s) and Debian's Caddy
# 2.6 did not (docs/loadtest.md, "Caddy or nginx").
SERVERS = ("nginx", "caddy")
DEFAULT_SERVER = "nginx"
# In the conf folder: the web server scripts/prepare_host.py set up on this host, one word.
SERVER_FILE = "web-server"


def run(command: Sequence[str], what: str, **kwargs) -> str:
    """Run ``command``; a failure is a ReleaseError naming ``what`` with the output's tail."""
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode:
        tail = "\n".join((result.stdout + result.stderr).splitlines()[-15:])
        raise ReleaseError(f"{what} failed (`{' '.join(command)}`):\n{tail}")
    return result.stdout


@dataclass
class Target:
    """Where a release goes live and how each step is done on this machine."""

    static_root: Path  # The symlink the live release is reached by (DEPLOY_STATIC_ROOT).
    conf_dir: Path  # Where the rendered files are installed (the web server includes them).
    server: str  # One of SERVERS: the one validated and reloaded.
    public_url: str  # Smoke-checked through the web server.
    reload: Callable[[], None]
    migrate: Callable[[], None]
    backends: Sequence[str]  # host:port, restarted in this order.
    restart_backend: Callable[[str], None]  # Restart one (returns before it answers).
    export: Callable[[Path], None]  # Write a fresh frontend export into the folder.
    keep: int = 5
    listen_port: int | None = None
    nginx_prefix: Path | None = None  # Also a standalone nginx.conf running there (stacks).
    caddy_admin: str | None = None  # Caddy's admin address (stacks; default: Caddy's own).
    browser: str = "auto"  # "auto": the browser check when Playwright and Chromium exist.
    smoke: Callable[[Path], None] | None = None  # Overrides the smoke check (tests).
    units_dir: Path | None = None  # Also install the systemd units there (daemon-reload).

    @property
    def releases(self) -> Path:
        """The folder of every kept release."""
        return self.static_root.parent / RELEASES


def releases(target: Target) -> list[Path]:
    """Every kept release, oldest first."""
    if not target.releases.is_dir():
        return []
    return sorted(
        folder
        for folder in target.releases.iterdir()
        if folder.is_dir() and not folder.is_symlink() and not folder.name.startswith(".")
    )


def current(target: Target) -> Path | None:
    """The live release (where the static root points), if any."""
    if target.static_root.is_symlink():
        return target.static_root.resolve()
    return None


def new_release(target: Target) -> Path:
    """A new release folder's path, named after the time, sorting after every kept one."""
    target.releases.mkdir(parents=True, exist_ok=True)
    target.releases.chmod(0o755)
    kept = [folder.name for folder in releases(target)]
    while True:
        name = dt.datetime.now(dt.UTC).strftime(STAMP)
        if not kept or name > kept[-1]:
            return target.releases / name
        time.sleep(0.001)


def _own_assets_file(release: Path) -> Path:
    """Beside the release (never served): the bundles its own export wrote."""
    return release.with_name(f"{release.name}.assets.json")


def carry_assets(previous: Path | None, new: Path) -> int:
    """Copy the previous release's own bundles the new one lacks (open tabs still load them).

    Only its own: bundles it carried from the release before are not carried again, so a
    release holds at most two exports' bundles.
    """
    own = sorted(p.name for p in (new / "assets").iterdir()) if (new / "assets").is_dir() else []
    _own_assets_file(new).write_text(json.dumps(own))
    if previous is None or not (previous / "assets").is_dir():
        return 0
    record = _own_assets_file(previous)
    names = json.loads(record.read_text()) if record.is_file() else None
    copied = 0
    (new / "assets").mkdir(exist_ok=True)
    for source in (previous / "assets").iterdir():
        destination = new / "assets" / source.name
        carried_before = names is not None and source.name not in names
        if source.is_file() and not destination.exists() and not carried_before:
            shutil.copy2(source, destination)
            copied += 1
    return copied


def export_problem(release: Path) -> str | None:
    """Why ``release`` is not an export of this site's build: no pages, or pages with no
    ``<meta>`` policy of their own (``security_headers.py``: a server sends only the short header)."""
    pages = sorted(release.rglob("*.html"))
    if not pages:
        return f"no pages in {release}"
    missing = [
        page.relative_to(release).as_posix()
        for page in pages
        if policy_of_page(page.read_text(errors="replace")) is None
    ]
    if missing:
        return (
            f"{len(missing)} page(s) in {release} carry no Content-Security-Policy of their "
            f"own (first: {missing[0]})"
        )
    return None


def rendered_files(target: Target, release: Path) -> dict[str, str]:
    """The web-server files and units of ``release`` (its CSP lists its own inline scripts)."""
    from agency_site.deploy import access_log, systemd

    topology = from_settings(
        get_settings(), static_root=str(release), listen_port=target.listen_port
    )
    if target.caddy_admin:
        topology = dataclasses.replace(topology, caddy_admin=target.caddy_admin)
    if problem := export_problem(release):
        raise ReleaseError(problem)
    return {
        "Caddyfile": caddy.caddyfile(topology),
        "nginx-agency_site.conf": nginx.server_block(topology),
        systemd.BACKEND_UNIT: systemd.backend_unit(topology),
        systemd.BACKUP_SERVICE: systemd.backup_service(topology),
        systemd.BACKUP_TIMER: systemd.backup_timer(),
        access_log.LOGROTATE_FILE: access_log.logrotate(topology),
        systemd.REPORT_SERVICE: systemd.report_service(topology),
        systemd.REPORT_TIMER: systemd.report_timer(),
    }


def validate(target: Target, files: dict[str, str], staging: Path) -> None:
    """Write ``files`` into ``staging`` and have the target's web server check its file
    (not the other one's: it may be installed without the other's certificates)."""
    if staging.exists():
        shutil.rmtree(staging)
    staging.mkdir(parents=True)
    for name, text in files.items():
        (staging / name).write_text(text)
    if target.server == "caddy":
        env = {**os.environ, "HOME": str(staging), "XDG_DATA_HOME": str(staging)}
        run(
            ["caddy", "validate", "--config", str(staging / "Caddyfile"), "--adapter", "caddyfile"],
            "caddy validate",
            env=env,
        )
    else:
        # The server block inside a standalone configuration, tested where it was written.
        prefix = staging / "nginx"
        prefix.mkdir()
        (prefix / "agency_site.conf").write_text(files["nginx-agency_site.conf"])
        (prefix / "nginx.conf").write_text(nginx.standalone_config(str(prefix)))
        run(["nginx", "-t", "-c", str(prefix / "nginx.conf"), "-p", str(prefix)], "nginx -t")


def _write_atomically(path: Path, text: str) -> None:
    temporary = path.with_name(f".{path.name}.new")
    temporary.write_text(text)
    os.replace(temporary, path)


def install(target: Target, files: dict[str, str]) -> None:
    """Put the rendered files where the web server (and systemd) read them."""
    target.conf_dir.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        _write_atomically(target.conf_dir / name, text)
    if target.nginx_prefix is not None:
        target.nginx_prefix.mkdir(parents=True, exist_ok=True)
        _write_atomically(target.nginx_prefix / "agency_site.conf", files["nginx-agency_site.conf"])
        _write_atomically(
            target.conf_dir / "nginx.conf",
            nginx.standalone_config(str(target.nginx_prefix.resolve())),
        )
    if target.units_dir is not None:
        from agency_site.deploy import systemd

        for name in (
            systemd.BACKEND_UNIT,
            systemd.BACKUP_SERVICE,
            systemd.BACKUP_TIMER,
            systemd.REPORT_SERVICE,
            systemd.REPORT_TIMER,
        ):
            _write_atomically(target.units_dir / name, files[name])
        run(["systemctl", "daemon-reload"], "systemctl daemon-reload")


def switch(target: Target, release: Path) -> None:
    """Point the static root at ``release`` in one rename (never a missing root)."""
    link = target.static_root
    if link.exists() and not link.is_symlink():
        # A static root from before releases: kept as the oldest release.
        link.rename(target.releases / "initial")
    temporary = link.with_name(f".{link.name}.new")
    temporary.unlink(missing_ok=True)
    temporary.symlink_to(release)
    os.replace(temporary, link)


def _go_live(target: Target, release: Path, files: dict[str, str]) -> None:
    switch(target, release)
    install(target, files)
    target.reload()


def _checks(target: Target, release: Path) -> None:
    if target.smoke:
        target.smoke(release)
    else:
        smoke_check(target.public_url, release, target.browser)


def _switch_back(target: Target, previous: Path | None, why: Exception) -> None:
    if previous is None:
        raise ReleaseError(f"{why}\nNo previous release to switch back to.") from why
    log(f"FAILED: {why}")
    log(f"switching back to {previous.name}")
    _go_live(target, previous, rendered_files(target, previous))
    raise ReleaseError(f"{why}\nSwitched back to release {previous.name}.") from why


def prune(target: Target) -> list[Path]:
    """Remove releases older than the last ``keep`` (never the live one)."""
    live = current(target)
    removed = []
    for folder in releases(target)[: -target.keep] if target.keep > 0 else []:
        if folder != live:
            shutil.rmtree(folder)
            _own_assets_file(folder).unlink(missing_ok=True)
            removed.append(folder)
    return removed


@contextlib.contextmanager
def one_at_a_time(target: Target) -> Iterator[None]:
    """Hold this host's release lock (``.release.lock`` in the releases folder) for a
    release or a rollback; another one running already is a ``ReleaseError`` (two at once
    would switch, reload and restart over each other)."""
    target.releases.mkdir(parents=True, exist_ok=True)
    path = target.releases / ".release.lock"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
    with open(descriptor, "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise ReleaseError(
                f"Another release or rollback is running on this host (it holds {path}). "
                "Nothing was done: run this again once it has ended."
            ) from None
        yield


def release(target: Target) -> Path:
    """Export, render, validate, switch, reload, migrate, restart, check; switch back on
    failure. One at a time on a host (``one_at_a_time``)."""
    with one_at_a_time(target):
        return _release(target)


def _release(target: Target) -> Path:
    started = time.monotonic()
    previous = current(target)
    new = new_release(target)
    try:
        log(f"exporting into {new}")
        target.export(new)
        carried = carry_assets(previous, new)
        log(f"exported; {carried} bundle(s) of the previous release kept for open tabs")
        files = rendered_files(target, new)
        validate(target, files, target.releases / ".staging")
        log(f"{target.server} accepts the rendered configuration")
    except (ReleaseError, OSError) as error:
        shutil.rmtree(new, ignore_errors=True)
        _own_assets_file(new).unlink(missing_ok=True)
        raise ReleaseError(f"{error}\nNothing was switched: the live site is unchanged.") from error
    try:
        _go_live(target, new, files)
        log(f"switched the static root to {new.name} and reloaded {target.server}")
        target.migrate()
        log("leads database migrated")
        for address in target.backends:
            target.restart_backend(address)
            wait_for_ping(address)
            log(f"backend {address} restarted and answers {PING}")
        _checks(target, new)
    except (ReleaseError, OSError) as error:
        try:
            _switch_back(target, previous, error)
        finally:
            if current(target) != new:
                shutil.rmtree(new, ignore_errors=True)  # Never served again.
                _own_assets_file(new).unlink(missing_ok=True)
    removed = prune(target)
    log(
        f"release {new.name} live in {time.monotonic() - started:.0f} s"
        f" ({len(removed)} old release(s) removed, {len(releases(target))} kept)"
    )
    return new


def rollback(target: Target) -> Path:
    """Back to the release before the live one (``_rollback``), one at a time on a host."""
    with one_at_a_time(target):
        return _rollback(target)


def _rollback(target: Target) -> Path:
    """Return to the release before the live one (re-rendered, validated, checked)."""
    live = current(target)
    kept = releases(target)
    older = [folder for folder in kept if live is None or folder.name < live.name]
    if not older:
        raise ReleaseError("no release before the live one to return to")
    previous = older[-1]
    files = rendered_files(target, previous)
    validate(target, files, target.releases / ".staging")
    _go_live(target, previous, files)
    log(f"switched the static root back to {previous.name} and reloaded {target.server}")
    try:
        _checks(target, previous)
    except ReleaseError as error:
        if live is not None:
            _switch_back(target, live, error)
        raise
    log(f"release {previous.name} live again")
    return previous


def copy_export(app_dir: Path, folder: Path, web_dir: Path | None = None) -> None:
    """Copy the frontend just exported in ``app_dir`` (into its ``.web/``, or ``web_dir``
    when the export had a web workdir of its own) into the release ``folder``.

    ``.web/`` is the site user's (the export runs as it) and this copy runs as root: a
    link in it is copied as a link, never followed, so root copies no file the user
    could not read into the served folder.
    """
    web = web_dir or app_dir / ".web"
    shutil.copytree(web / "build" / "client", folder, symlinks=True)
    folder.chmod(0o755)


def state_json(target: Target) -> str:
    """The releases as JSON (for scripts and tests)."""
    live = current(target)
    return json.dumps(
        {"live": live.name if live else None, "releases": [p.name for p in releases(target)]}
    )
