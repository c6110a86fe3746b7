"""Shared test configuration: browser tests live in tests/e2e and are marked ``e2e``;
tests of the production topology live in tests/stack and are marked ``stack``.

Real servers (PostgreSQL, Redis) come from Debian's packages and run on loopback,
started here once per session and stopped by pid (``scripts/local_servers.py``), or are
the running ones ``TEST_DATABASE_URL`` / ``TEST_REDIS_URL`` point at. A test whose server
or program (PostgreSQL, Redis, Caddy, nginx) is missing is skipped with the reason, so
``make test-unit`` runs without root; under ``CI=true`` it fails instead: CI provides them.
"""

import itertools
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import NoReturn
from urllib.parse import urlsplit

import hypothesis
import pytest
import sqlalchemy as sa

from scripts import local_servers, programs

# Fixtures every test folder shares: the EmailJS fake, the leads database.
pytest_plugins = ["tests.emailjs_fake", "tests.lead_store"]

IN_CI = os.environ.get("CI", "").strip().lower() in {"true", "1", "yes"}

# Hypothesis's examples as they are, without its 200 ms limit on one example: `make test`
# shares 2 cores between three workers and their browsers, and an example that waits for
# the CPU is not a wrong one (a test that times itself sets its own deadline).
hypothesis.settings.register_profile(
    "shared-cores", deadline=None, suppress_health_check=[hypothesis.HealthCheck.too_slow]
)
hypothesis.settings.load_profile("shared-cores")
# Programs of the production topology some fast tests run (`caddy validate`, `nginx -t`...):
# a test failing because one is not installed is skipped (failed under CI).
SERVER_PROGRAMS = frozenset({"caddy", "nginx", "redis-server", "initdb", "pg_ctl", "openssl"})


def unavailable(reason: str) -> NoReturn:
    """Skip the test: its server is not available here; fail it under CI, which has them all."""
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: CI must provide it, so this fails instead of skipping)")
    pytest.skip(reason)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A test that stopped because a server program is not installed: skipped, with the reason."""
    outcome = yield
    report = outcome.get_result()
    error = call.excinfo.value if call.excinfo else None
    if (
        report.when == "call"
        and report.failed
        and not IN_CI
        and isinstance(error, FileNotFoundError)
        and Path(str(error.filename)).name in SERVER_PROGRAMS
    ):
        program = Path(str(error.filename)).name
        report.outcome = "skipped"
        report.longrepr = (
            str(item.path),
            item.location[1] or 0,
            f"Skipped: {program} is not installed or not on PATH (Debian: `sudo apt-get install "
            f"{' '.join(local_servers.APT_PACKAGES)}`; CI=true fails instead)",
        )


# Every program the session starts (``subprocess``, ``asyncio``'s subprocesses), by the
# audit event Python raises for each: checked at the end against scripts/programs.py.
_VENV_BIN = Path(sys.executable).parent
_ran: set[str] = set()


def program_name(executable: str) -> str | None:
    """The program a started executable is, as the table names it; None for the venv's
    own programs (python, reflex, ruff...: requirements*.txt installs them)."""
    path = Path(executable)
    if path.parent == _VENV_BIN or path.name == Path(sys.executable).name:
        return None
    return path.name


def unknown_programs(names: set[str]) -> set[str]:
    """Those of ``names`` no project file installs and the base system does not have."""
    return {n for n in names if n not in programs.PROGRAMS and n not in programs.BASE_SYSTEM}


def _record_programs(event: str, args: tuple) -> None:
    if event == "subprocess.Popen":
        executable, argv = args[0], args[1]
        first = executable or (argv if isinstance(argv, str | bytes | os.PathLike) else argv[0])
        if isinstance(first, str | os.PathLike) and (name := program_name(os.fspath(first))):
            _ran.add(name)


sys.addaudithook(_record_programs)


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node, error) -> None:  # pytest-xdist: a worker finished
    """Gather what each worker (``make test-unit``: ``-n 2``) started."""
    _ran.update(node.workeroutput.get("programs", ()))


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when a test started a program no project file installs."""
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # a worker: its controller checks what every worker ran
        workeroutput["programs"] = sorted(_ran)
        return
    unknown = unknown_programs(_ran)
    if unknown:
        print(
            f"\nThe tests ran {', '.join(sorted(unknown))}, which no project file installs: "
            "add each to scripts/programs.py with the stage that installs it.",
            file=sys.stderr,
        )
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# Seconds each browser-test file takes on 2 cores, its own builds included and the session
# site's not (measured with --durations=0 on 2026-11-26; a file not listed counts as 10).
# `make test` runs the browser tests on pytest-xdist workers (--dist loadfile, as scheduled
# by ``pytest_xdist_make_scheduler`` below): the files are dealt, longest first, into groups
# of about equal time, each on a worker of its own. Their sites serve one build of the session
# site (tests/e2e/conftest.py), made by the group that needs it first (``SITE_BUILD_SECONDS``
# on its clock). A file that uses another's build rides in its group (``SAME_BUILD``).
# test_reflex_run builds .web/ itself (Reflex's own commands): a work unit of its own, on a
# third worker (the Makefile).
BROWSER_FILE_SECONDS = {
    "test_split_origins.py": 180,
    "test_a11y.py": 126,
    "test_service_pages.py": 69,
    "test_pages_main.py": 55,
    "test_form_http_fallback.py": 48,
    "test_desk_bookings.py": 40,
    "test_desk.py": 36,
    "test_forms.py": 34,
    "test_spam_challenge.py": 27,
    "test_lazy_socket.py": 18,
    "test_layout.py": 15,
    "test_desk_leads.py": 14,
    "test_lead_safety.py": 14,
    "test_reader_model.py": 11,
}
# A file -> the file whose build it uses (the session's split-origin export: one per worker).
SAME_BUILD = {"test_spam_challenge.py": "test_split_origins.py"}
# The session site's build, once per run: the first group that uses the site waits for it.
SITE_BUILD_SECONDS = 45
OWN_BUILDS = "test_reflex_run.py"
SITE_GROUPS = ("site-a", "site-b")


def site_groups(files: list[str]) -> dict[str, str]:
    """Each browser-test file's group: longest first, into the group with the less time (the
    first file that uses the session site adds its build to its group's); a file of
    ``SAME_BUILD`` in the group of the file whose build it uses."""
    seconds = {name: BROWSER_FILE_SECONDS.get(name, 10) for name in files if name != OWN_BUILDS}
    riders = {name: SAME_BUILD[name] for name in seconds if SAME_BUILD.get(name) in seconds}
    for name, leader in riders.items():
        seconds[leader] += seconds.pop(name)
    own_site = {*SAME_BUILD, *SAME_BUILD.values()}  # Their tests serve their own build.
    load = dict.fromkeys(SITE_GROUPS, 0)
    groups = {}
    site_built = False
    for name in sorted(seconds, key=lambda name: (-seconds[name], name)):
        group = min(SITE_GROUPS, key=lambda group: (load[group], group))
        groups[name] = group
        load[group] += seconds[name]
        if name not in own_site and not site_built:
            load[group] += SITE_BUILD_SECONDS
            site_built = True
    return groups | {name: groups[leader] for name, leader in riders.items()}


# Each browser-test file's group, dealt from the files under tests/e2e (all of them, whatever
# a run selects: a file's group never depends on the command line).
SITE_GROUP_OF = site_groups(
    sorted(path.name for path in (Path(__file__).parent / "e2e").glob("test_*.py"))
)


def pytest_itemcollected(item: pytest.Item) -> None:
    """Mark every test under tests/e2e as a browser test, under tests/stack as a stack test.

    Marked as each test is collected, before any plugin reorders or selects (``-m`` reads
    these marks).
    """
    path = str(item.path).replace("\\", "/")
    if "/e2e/" in path:
        item.add_marker(pytest.mark.e2e)
    if "/stack/" in path:
        item.add_marker(pytest.mark.stack)


def work_unit(nodeid: str) -> str:
    """What one pytest-xdist worker runs whole: a browser test's group, else a test's file."""
    path = nodeid.split("::", 1)[0]
    name = path.rsplit("/", 1)[-1]
    if "/e2e/" in f"/{path}":
        return OWN_BUILDS if name == OWN_BUILDS else SITE_GROUP_OF.get(name, path)
    return path


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadfile`, with the browser-test files in their groups (``work_unit``), in the
    order collected (the groups first: ``pytest_collection_modifyitems``).

    pytest-xdist's own ``xdist_group`` marks do not group under pytest 9 (the node ids they
    rename are fixed), so the scheduler is told the groups instead."""
    if config.getoption("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class SiteGroupScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    config.option.loadscopereorder = False
    return SiteGroupScheduling(config, log)


# Unit-test files whose set-up is long (a prepared host, a Reflex compile, a simulation):
# `make test` runs each file on one worker (--dist loadfile: a module's fixtures are made
# once), these first, so that no long file is left for the end while the other worker idles.
UNIT_FILE_SECONDS = {
    "test_prepare_host.py": 60,
    "test_durable.py": 50,
    "test_lead_life.py": 30,
    "test_webhooks.py": 30,
    "test_intake.py": 25,
    "test_page_bundles.py": 20,
    "test_reminders_simulation.py": 15,
    "test_sandbox.py": 15,
}


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The browser tests run first: the one that builds .web/ itself, then the longest files;
    then the unit tests, the longest files first."""

    def rank(item: pytest.Item) -> tuple[int, int]:
        if item.path.name == OWN_BUILDS:
            return (0, 0)
        if item.path.name in SITE_GROUP_OF:
            return (1, -BROWSER_FILE_SECONDS.get(item.path.name, 10))
        return (2, -UNIT_FILE_SECONDS.get(item.path.name, 0))

    items.sort(key=rank)  # Stable: else as found.


@pytest.fixture(autouse=True)
def _site_logger_as_found() -> Iterator[None]:
    """Put the ``agency_site`` loggers back around each test: a test that starts the backend
    or the operator command (``runtime.configure_logging``) stops it propagating, which
    would hide later tests' records from ``caplog`` on the same pytest worker."""
    site = logging.getLogger("agency_site")
    handlers, propagate, level = list(site.handlers), site.propagate, site.level
    # A logging.config.dictConfig run by a library an earlier test started (its default
    # disable_existing_loggers) silences the site's module loggers: enabled again.
    for name, logger in logging.root.manager.loggerDict.items():
        if name.startswith("agency_site") and isinstance(logger, logging.Logger):
            logger.disabled = False
    yield
    site.handlers[:] = handlers
    site.propagate, site.level = propagate, level


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args: dict) -> dict:
    """Browser tests (e2e and stack): Debian's Chromium with this closed network's flags; its
    headless shell when headless (``--headed`` needs the whole browser)."""
    from tests.e2e.conftest import CHROMIUM_ARGS, chromium_path, headless_shell_path

    headless = browser_type_launch_args.get("headless", True)
    return {
        **browser_type_launch_args,
        "executable_path": headless_shell_path() if headless else chromium_path(),
        "args": [*browser_type_launch_args.get("args", []), *CHROMIUM_ARGS],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args: dict) -> dict:
    """Spanish desktop browser by default."""
    return {**browser_context_args, "locale": "es-ES", "viewport": {"width": 1280, "height": 800}}


def _external(url: str, name: str) -> local_servers.Server:
    """A running server the tests were pointed at (``TEST_*_URL``); nobody stops it."""
    parts = urlsplit(url)
    return local_servers.Server(name, parts.port or 0, 0, Path(), url)


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[local_servers.Server]:
    """A throwaway PostgreSQL cluster on a free loopback port, for the whole session.

    With ``TEST_DATABASE_URL`` (``postgresql+psycopg://user:password@host:port/db`` of a user
    who may CREATE DATABASE) the tests use that server instead; their databases
    (``test_N``) are dropped at the end.
    """
    if external := os.environ.get("TEST_DATABASE_URL", "").strip():
        url = external.replace("postgresql://", "postgresql+psycopg://", 1)
        server = _external(url, "postgres")
        yield server
        if _created:
            _drop_test_databases(server.url)
        return
    if local_servers.postgres_bin() is None:
        unavailable(
            "PostgreSQL is not installed (`sudo apt-get install postgresql`, or set "
            "TEST_DATABASE_URL to a running server)"
        )
    # PostgreSQL refuses to run as root and pytest's folders are private to root. In memory
    # where the machine has it: every test's database is a copy of a template (megabytes
    # written each), a throwaway cluster gains nothing from a disk.
    folder = Path(
        tempfile.mkdtemp(prefix="agency-pg-", dir=_MEMORY_DIR if _MEMORY_DIR.is_dir() else None)
    )
    folder.chmod(0o755)
    server = local_servers.start_postgres(
        folder / "cluster", local_servers.free_port(), durable=False
    )
    yield server
    local_servers.stop_postgres(server)
    shutil.rmtree(folder, ignore_errors=True)


_databases = itertools.count(1)
_created: list[str] = []
# A tmpfs every Linux has (Debian: half the memory).
_MEMORY_DIR = Path("/dev/shm")


def _drop_test_databases(admin_url: str) -> None:
    """Drop the databases this session created on a server it did not start."""
    admin = sa.create_engine(admin_url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        for name in _created:
            connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()


def _new_database(server: local_servers.Server, template: str | None = None) -> str:
    """A new database on ``server`` (a copy of ``template`` if given): its URL."""
    name = f"test_{os.getpid()}_{next(_databases)}"
    copy_of = f' TEMPLATE "{template.rsplit("/", 1)[1]}"' if template else ""
    admin = sa.create_engine(server.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'CREATE DATABASE "{name}"{copy_of}'))
    admin.dispose()
    _created.append(name)
    return server.url.rsplit("/", 1)[0] + f"/{name}"


def _drop_database(server: local_servers.Server, url: str) -> None:
    """Drop a test's database once the test is over (its connections cut): the cluster holds
    only the databases of the tests running now."""
    name = url.rsplit("/", 1)[1]
    admin = sa.create_engine(server.url, isolation_level="AUTOCOMMIT")
    with admin.connect() as connection:
        connection.execute(sa.text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    admin.dispose()
    _created.remove(name)


@pytest.fixture
def postgres_url(postgres_server: local_servers.Server) -> Iterator[str]:
    """The URL of a new, empty database on the session's PostgreSQL (dropped after)."""
    url = _new_database(postgres_server)
    yield url
    _drop_database(postgres_server, url)


@pytest.fixture(scope="session")
def migrated_postgres_template(postgres_server: local_servers.Server) -> str:
    """A database of the session's PostgreSQL brought to the latest schema once: each test's
    migrated database is a copy of it (``CREATE DATABASE … TEMPLATE``, milliseconds) instead
    of running every migration again (tests/leads/test_migrations.py runs them)."""
    from agency_site.leads import migrations

    url = _new_database(postgres_server)
    engine = sa.create_engine(url)
    migrations.upgrade(engine)
    engine.dispose()  # A template cannot be copied while anyone is connected to it.
    return url


@pytest.fixture
def migrated_postgres_url(
    postgres_server: local_servers.Server, migrated_postgres_template: str
) -> Iterator[str]:
    """The URL of a new database on the session's PostgreSQL, at the latest schema (dropped
    after)."""
    url = _new_database(postgres_server, template=migrated_postgres_template)
    yield url
    _drop_database(postgres_server, url)


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[local_servers.Server]:
    """A Redis on a free loopback port, for the whole session.

    With ``TEST_REDIS_URL`` (``redis://[:password@]host:port``, no database number) the
    tests use that server instead. They empty it (FLUSHALL): point it at a spare Redis.
    """
    if external := os.environ.get("TEST_REDIS_URL", "").strip():
        parts = urlsplit(external)
        yield _external(f"{parts.scheme}://{parts.netloc}", "redis")
        return
    if "redis-server" in local_servers.missing_programs():
        unavailable(
            "redis-server is not installed (`sudo apt-get install redis-server`, or set "
            "TEST_REDIS_URL to a spare running Redis)"
        )
    server = local_servers.start_redis(tmp_path_factory.mktemp("redis"), local_servers.free_port())
    yield server
    local_servers.stop_pid(server.pid)
