"""The production build served as a deployer serves it, on a free port: ``reflex run --env
prod --frontend-port PORT`` (pages and backend on that one port, their URLs derived from it)
from a web workdir of its own (``REFLEX_WEB_WORKDIR``), copied from a template of the
checkout's ``.web/`` with its installed frontend packages hard-linked, so several run side by
side and a build of ``.web/`` itself changes no served file; and where Debian's Chromium is.
Used by the browser tests (tests/e2e/conftest.py), ``make bench``, ``make loadtest`` and
``make spam-bots``.

Sessions that serve the same code (the browser tests' pytest-xdist workers) share one build:
the first builds it, the others serve it (scripts/serve_built.py), each from a server of
its own with its own database and settings.
"""

import contextlib
import fcntl
import hashlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from scripts.local_servers import free_port


class SiteError(RuntimeError):
    """The site cannot be served: no Chromium, no frontend packages, a site that did not
    start (the message says which, with the server's last lines)."""


ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / ".web"
START_TIMEOUT_S = 420
BUILD_TIMEOUT_S = 600

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def headless_shell_path() -> str:
    """Path of the Chromium the headless browser tests drive: Debian's
    ``chromium-headless-shell`` (or CHROMIUM_HEADLESS_SHELL_PATH), the same engine as
    ``chromium`` without the browser's UI layer (what Playwright itself runs headless);
    the whole Chromium where it is missing."""
    for candidate in (
        os.environ.get("CHROMIUM_HEADLESS_SHELL_PATH"),
        "/usr/bin/chromium-headless-shell",
    ):
        if candidate and Path(candidate).exists():
            return candidate
    return chromium_path()


def chromium_path() -> str:
    """Path of the whole Chromium (Debian's, or CHROMIUM_PATH): headed runs, the autofill
    test, Lighthouse, the release's smoke check."""
    for candidate in (
        os.environ.get("CHROMIUM_PATH"),
        "/usr/bin/chromium",
        shutil.which("chromium"),
    ):
        if candidate and Path(candidate).exists():
            return candidate
    raise SiteError(
        "Chromium not found: run `make test` (installs Debian's chromium as root) "
        "or set CHROMIUM_PATH to a Chromium/Chrome binary."
    )


_DIGEST = hashlib.sha256(str(ROOT).encode()).hexdigest()[:12]
# A copy of .web/ with its installed packages (hard links): what each session's own web
# workdir is copied from, so a test that rebuilds .web/ meanwhile disturbs no copy.
WEB_TEMPLATE = Path(tempfile.gettempdir()) / f"agency-site-{_DIGEST}-web-template"
# The files by which Reflex knows its frontend packages are installed: equal, the template's
# packages are the ones .web/ has.
_PACKAGE_FILES = ("package.json", "package-lock.json", "reflex.install_frontend_packages.cached")


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """``path`` locked for this process (the others wait until it is done)."""
    with path.open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def web_lock() -> contextlib.AbstractContextManager[None]:
    """Held by a test session while it installs .web/ or copies it into the template (the
    others wait): no session copies a half-written .web/."""
    return file_lock(Path(tempfile.gettempdir()) / f"agency-site-{_DIGEST}-web.lock")


def _installed_web(env: dict[str, str]) -> None:
    """Install the frontend packages in ``.web/`` once (a fresh clone has none): by the
    production export, so ``.web/`` then also holds a whole build. Under ``web_lock``."""
    if (WEB / "node_modules").is_dir():
        return
    build = subprocess.run(
        [sys.executable, "-m", "reflex", "export", "--frontend-only", "--no-zip"],
        cwd=ROOT,
        env={name: value for name, value in env.items() if name != "REFLEX_WEB_WORKDIR"},
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT_S,
    )
    if build.returncode:
        raise SiteError(
            f"npm install in .web failed:\n{build.stdout[-3000:]}{build.stderr[-3000:]}"
        )


def _copy_web(source: Path, copy: Path) -> None:
    """``source`` copied without its build, its installed packages hard-linked."""
    # Reflex rewrites its own files in place: real copies. The packages are only read.
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "node_modules"))
    shutil.copytree(
        source / "node_modules",
        copy / "node_modules",
        copy_function=os.link,
        ignore=shutil.ignore_patterns(".vite", ".cache"),
    )


def _same(name: str) -> bool:
    mine, template = WEB / name, WEB_TEMPLATE / name
    return mine.is_file() == template.is_file() and (
        not mine.is_file() or mine.read_bytes() == template.read_bytes()
    )


def _fresh_template(env: dict[str, str]) -> None:
    """``WEB_TEMPLATE`` holding the packages ``.web/`` has (installed first). Under the lock."""
    _installed_web(env)
    if (WEB_TEMPLATE / "node_modules").is_dir() and all(map(_same, _PACKAGE_FILES)):
        return
    shutil.rmtree(WEB_TEMPLATE, ignore_errors=True)
    _copy_web(WEB, WEB_TEMPLATE)


def web_template(env: dict[str, str] | None = None) -> None:
    """Make sure the template is there before a test rebuilds ``.web/`` itself."""
    with web_lock():
        _fresh_template(env or dict(os.environ))


def own_web_workdir(copy: Path, env: dict[str, str] | None = None) -> Path:
    """A web workdir for one session at ``copy``, from the template: Reflex only compiles
    and builds there, instead of a second npm install of the same lockfile."""
    with web_lock():
        _fresh_template(env or dict(os.environ))
        _copy_web(WEB_TEMPLATE, copy)
    return copy


@dataclass
class SiteServer:
    """A running production build of the site."""

    url: str
    process: subprocess.Popen
    log_path: Path
    db_path: Path
    env: dict[str, str]
    web_dir: Path = WEB  # Its web workdir: the build it serves is under build/client.
    # The public URL its pages were built with (canonical, sitemap): its own URL, or the URL
    # of the server that made the build it serves.
    deploy_url: str = ""

    def __post_init__(self) -> None:
        self.deploy_url = self.deploy_url or self.url

    def log_tail(self, lines: int = 60) -> str:
        """The last lines the server printed."""
        text = self.log_path.read_text(errors="replace") if self.log_path.exists() else ""
        return "\n".join(text.splitlines()[-lines:])


def wait_until_up(url: str, process: subprocess.Popen, timeout: float) -> bool:
    """Poll ``url`` until it answers 200, the process dies or ``timeout`` passes."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return True
        except OSError:
            pass
        time.sleep(1)
    return False


def reflex_prod(port: int, *mode: str) -> list[str]:
    """``reflex run --env prod`` on ``port``, logging at info: with no ``mode``, the pages and
    the backend on that one port, as ``--frontend-port`` gives them (``make prod`` on its
    port); ``mode`` ``--backend-only`` (and its host): the backend alone (the stack's and the
    split-origin site's backends)."""
    port_option = "--backend-port" if "--backend-only" in mode else "--frontend-port"
    return [sys.executable, "-m", "reflex", "run", "--env", "prod", *mode,
            port_option, str(port), "--loglevel", "info"]  # fmt: skip


# Set in a shared build's folder once its first server answered: the build is whole, and
# this is the URL it was built with.
BUILT_FOR = "built-for-url"
# The site's SQLite database, in the folder it is started with.
SITE_DB = "e2e.db"
# The URLs the site derives from the port it runs on (scripts/serve_built.py too).
DERIVED_URLS = ("REFLEX_API_URL", "REFLEX_DEPLOY_URL")


def start_site(
    env_overrides: dict[str, str], workdir: Path, shared_build: Path | None = None
) -> SiteServer:
    """Start the production site on a free port, with its database in ``workdir``: built in a
    web workdir of its own, or in ``shared_build``, where the first session to come builds
    it and the others serve that build."""
    port = free_port()
    url = f"http://localhost:{port}"
    env = {name: value for name, value in os.environ.items() if name not in DERIVED_URLS}
    env |= {"REFLEX_DB_URL": f"sqlite:///{workdir / SITE_DB}", "PYTHONUNBUFFERED": "1",
            **env_overrides}  # fmt: skip
    if shared_build is None:
        return _serve(reflex_prod(port), url, env, own_web_workdir(workdir / "web", env), workdir)
    with file_lock(shared_build.with_name(f"{shared_build.name}.lock")):
        marker = shared_build / BUILT_FOR
        if marker.is_file():
            command = [sys.executable, "-m", "scripts.serve_built", str(port)]
            return _serve(command, url, env, shared_build, workdir, marker.read_text())
        shutil.rmtree(shared_build, ignore_errors=True)  # A build that never answered.
        own_web_workdir(shared_build, env)
        server = _serve(reflex_prod(port), url, env, shared_build, workdir)
        marker.write_text(url)
        return server


def _serve(
    command: list[str], url: str, env: dict[str, str], web_dir: Path, workdir: Path,
    deploy_url: str = "",
) -> SiteServer:  # fmt: skip
    """``command`` started in the site folder with ``web_dir`` as its web workdir, printing
    into ``workdir``/site.log: the site at ``url`` once it answers."""
    log_path = workdir / "site.log"
    with log_path.open("w") as log:
        process = subprocess.Popen(
            command,
            cwd=ROOT,
            env={**env, "REFLEX_WEB_WORKDIR": str(web_dir)},
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    server = SiteServer(url, process, log_path, workdir / SITE_DB, env, web_dir, deploy_url)
    return _started(server)


def _started(server: SiteServer) -> SiteServer:
    """``server`` once its backend and its home page answer (stopped, and ``SiteError``,
    if they do not)."""
    if not wait_until_up(f"{server.url}/ping", server.process, START_TIMEOUT_S) or not (
        wait_until_up(f"{server.url}/", server.process, 60)
    ):
        stop_site(server)
        raise SiteError(f"The production site did not start:\n{server.log_tail()}")
    return server


def stop_site(server: SiteServer) -> None:
    """Stop the site and everything it started."""
    if server.process.poll() is None:
        try:
            os.killpg(server.process.pid, signal.SIGTERM)
            server.process.wait(timeout=20)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            with contextlib.suppress(ProcessLookupError):
                os.killpg(server.process.pid, signal.SIGKILL)
